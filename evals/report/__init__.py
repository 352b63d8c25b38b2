"""`invoke report`: terminal and self-contained HTML reports of a run or a comparison, and
their assets.

Imports `suite`, `run` and `compare`.
"""
