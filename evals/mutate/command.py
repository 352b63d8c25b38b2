"""The `invoke mutate` command: load the suite, grade the variants (and the judge), print."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from evals.checks import CheckResult, errored
from evals.errors import InputError
from evals.mutate.engine import good_answers_from_run, mutate_suite
from evals.reply import Reply
from evals.run.pool import check_workers
from evals.suite.case import Case
from evals.suite.folder import Suite


class JudgeGrader:
    """The LLM judge as an extra grader: batches run concurrently on one event loop."""

    def __init__(self, judge: Any, concurrency: int = 8) -> None:
        self.judge = judge
        self.concurrency = max(1, concurrency)
        self.loop = asyncio.new_event_loop()

    def __call__(self, case: Case, reply: Reply) -> dict[str, CheckResult]:
        return self.many([(case, reply)])[0]

    def many(self, pairs: list[tuple[Case, Reply]]) -> list[dict[str, CheckResult]]:
        return self.loop.run_until_complete(self._many(pairs))

    async def _many(self, pairs: list[tuple[Case, Reply]]) -> list[dict[str, CheckResult]]:
        gate = asyncio.Semaphore(self.concurrency)

        async def one(case: Case, reply: Reply) -> dict[str, CheckResult]:
            if not self.judge.applies_to(case):
                return {}
            async with gate:
                try:
                    result, _ = await self.judge.grade(case, reply)
                except Exception as exc:  # the judge's own failures are already errors
                    result = errored(f"{type(exc).__name__}: {exc}")
            return {self.judge.name: result}

        return list(await asyncio.gather(*(one(c, r) for c, r in pairs)))

    def close(self) -> None:
        self.loop.run_until_complete(self.judge.aclose())
        self.loop.close()


def judge_grader(model: str, suite: Suite | None = None, settings: Any = None) -> JudgeGrader:
    """The LLM judge for `model` as an extra grader; refused when this build has no judge."""
    try:
        from evals.judge.client import make_judge
    except ImportError:
        raise InputError("the judge is not available in this build") from None
    from evals.cli import settings as project_settings
    from evals.cli import suite_at

    settings = settings or project_settings()
    suite = suite or suite_at(None)
    return JudgeGrader(make_judge(model, suite, settings), settings.concurrency)


def cmd_mutate(
    suite_dir: str | None,
    case_glob: str | None,
    from_run: str | None,
    fmt: str,
    judge: str | None,
    workers: int | str | None = None,
) -> int:
    """The `invoke mutate` command: print the report, return the exit code. `workers`:
    processes that grade (default: one per core)."""
    from evals.checks.loading import load_cases
    from evals.cli import settings, suite_at
    from evals.mutate.report import render_json, render_markdown
    from evals.run.files import read_run
    from evals.run.latest import resolve_in_suite
    from evals.suite.folder import select_cases

    if fmt not in ("md", "json"):
        raise InputError(f"--format must be md or json, not {fmt!r}")
    suite = suite_at(suite_dir)
    cases, _ = load_cases(suite, strict=True)
    chosen = select_cases(cases, case_glob=case_glob)
    if not chosen:
        raise InputError(f"no case matches --case {case_glob!r} in {suite.cases_dir}")
    run_goods = None
    warnings: list[str] = []
    run_path: Path | None = None
    if from_run:
        # `latest`: the newest run of this suite (another suite's run has other cases).
        run_path = resolve_in_suite(
            from_run, settings().runs_path, suite.path, settings().root, "--from-run RUN"
        )
        run = read_run(run_path)
        warnings += run.warnings
        run_goods = good_answers_from_run(run.rows, run.run_id)
    extra = judge_grader(judge, suite) if judge else None
    try:
        report = mutate_suite(
            suite, chosen, run_goods=run_goods, extra_grader=extra, workers=check_workers(workers)
        )
    finally:
        if extra is not None:
            extra.close()
    if not report.tested:
        raise InputError(
            f"nothing to test: none of the {len(chosen)} selected case(s) has a `reference`, a "
            "`known_wrong` or a `known_right` draft"
            + (" (nor a passing draft in the run)" if from_run else "")
            + ", or no operator applied; add a reference answer to mutate"
        )
    report.run_file = str(run_path) if run_path else None
    report.judge = judge
    report.warnings = warnings
    for w in warnings:
        print(w, file=sys.stderr)
    print(render_json(report) if fmt == "json" else render_markdown(report))
    return report.exit_code
