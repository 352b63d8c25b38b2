"""Comparing two runs: pairing by case, the release gate (statistics and decision: pure
functions, no I/O), rendering, baselines; what `invoke diff` and `invoke baseline` use.

Imports `suite` and `run` (run files) only.
"""
