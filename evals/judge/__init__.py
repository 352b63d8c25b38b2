"""The LLM judge: its client and verdict cache, its prompt, verdict validation, and
calibration against human labels.

Imports `suite`, `checks`, `providers` and `run` (the cache and run files).
"""
