"""`invoke review`: what a change does to the eval (read from git), weakened expectations
first; the pre-commit hook.

Imports `suite` and `checks`.
"""
