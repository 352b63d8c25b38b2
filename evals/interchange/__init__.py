"""`invoke import` / `invoke export`: outside golden-set formats to case files and back.

Imports `suite` and `checks`.
"""
