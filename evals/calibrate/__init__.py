"""Calibration: how far to trust a grader, measured against answers whose verdict is known.

`judge` compares the LLM judge with people's labels (`invoke calibrate`); `checks` grades
answers labelled right or wrong (the cases' `reference`, `known_right` and `known_wrong`
drafts, and the suite's `labelled/*.jsonl`) with the deterministic checks alone and reports
false alarms, misses, sensitivity, specificity and Cohen's kappa (`invoke calibrate --checks`).
`stats` holds the arithmetic, `labelled` reads and validates the labelled answers.

Imports `suite`, `checks`, `run` and `judge`.
"""
