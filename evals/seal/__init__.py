"""The sealed held-out pile: encryption, manifest, ledger and budget, exposure checks, and
running the pile (it supplies cases and a row filter to a RunPlan).

Imports `suite`, `checks`, `run` and `compare.stats`.
"""
