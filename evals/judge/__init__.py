"""The LLM judge: its client and verdict cache, its prompt and verdict validation (its
calibration against human labels is in `evals.calibrate`).

Imports `suite`, `checks`, `providers` and `run` (the cache and run files).
"""
