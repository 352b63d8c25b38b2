"""`invoke mutate`: operators that make known-wrong variants, text surgery, the mutation
run and its report.

Imports `suite`, `checks`, `judge` and `run` (run files for --from-run).
"""
