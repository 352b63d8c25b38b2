"""The suite: the Case type, case files and their canonical form, JSON Schemas, safe
patterns, the suite folder and its settings.

The bottom layer: imports only `evals.errors` and `evals.config`.
"""
