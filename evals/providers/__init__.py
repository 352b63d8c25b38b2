"""Systems under test: the OpenAI-compatible endpoint, the offline model, replayed answers,
and your own app as a `--target`. Pinned model ids.

Imports `evals.suite` and `evals.reply` only; never the run, the checks or anything above.
"""
