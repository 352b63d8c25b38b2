"""Running a suite: the plan, the runner, grading a reply into a row, run files (write, read,
resume, merge), the answer cache, cost, stamps, summary, console and progress.

Imports `suite`, `checks` and `providers`; never `judge`, `compare`, `seal`, `mutate`,
`report` or `review` (the judge plugs in through the `Grader` protocol in `plan.py`).
"""
