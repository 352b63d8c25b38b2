"""Running cases against a provider: bounded concurrency, cache, budget, stamped rows."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evals.errors import InputError
from evals.providers.base import (
    REFUSAL_QUORUM,
)
from evals.reply import Reply
from evals.run.cost import (
    CURRENT_CASE,
    CaseSpend,
    cost_usd,
)
from evals.run.files import run_file_name, unwritable, utc_now
from evals.run.grade_cache import GradeCache
from evals.run.plan import RowCallback, RunPlan, RunResult, WrittenRows
from evals.run.pool import GradePool
from evals.run.resume import reopen
from evals.run.rows import grade_reply, make_header, make_row
from evals.run.tally import Tally
from evals.run.work import Work
from evals.run.writer import BatchedRunWriter
from evals.suite.case import Case
from evals.suite.caselist import CaseList


def _may_judge(grader: Any, case: Case) -> bool:
    return bool(grader.applies_to(case) or callable(getattr(grader, "decide", None)))


def open_run_file(
    plan: RunPlan,
) -> tuple[Path, dict[str, Any], BatchedRunWriter, list[dict[str, Any]]]:
    """A new run file with its header written, or the resumed one made whole again; with
    the rows it already holds."""
    if plan.resume is not None:
        path = plan.resume.path
        try:
            writer = reopen(plan.resume)
        except OSError as exc:
            raise InputError(
                f"{unwritable(path, exc)}; the run file is unchanged and nothing was run"
            ) from None
        return path, plan.resume.header, writer, list(plan.resume.rows)
    created_dt = utc_now()
    path = plan.runs_dir / run_file_name(created_dt, plan.suite.prompt_sha(), plan.label)
    header = make_header(plan, path.stem, created_dt.isoformat().replace("+00:00", "Z"))
    return path, header, _start(path, header), []


class Queue:
    """Every (case, epoch) without a row yet, epoch by epoch, each case read as it is
    reached (a `CaseList` holds none): 100,000 queued cases held took 200 MB."""

    def __init__(self, plan: RunPlan, rows: list[dict[str, Any]]) -> None:
        self.cases, self.epochs = plan.cases, plan.epochs
        self.done = {(r["case"], r.get("epoch", 0)) for r in rows}
        self._n = sum(
            1 for e in range(self.epochs) for cid in self._ids() if (cid, e) not in self.done
        )

    def _ids(self) -> Iterator[str]:
        cases = self.cases
        return cases.ids() if isinstance(cases, CaseList) else (c.id for c in cases)

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def __iter__(self) -> Iterator[tuple[Case, int]]:
        for e in range(self.epochs):
            for i, cid in enumerate(self._ids()):
                if (cid, e) not in self.done:
                    yield self.cases[i], e

    def first(self) -> Case | None:
        return next(iter(self), (None, 0))[0]


def to_run(plan: RunPlan, rows: list[dict[str, Any]]) -> list[tuple[Case, int]]:
    """Every (case, epoch) without a row yet, epoch by epoch (held: a batch's list)."""
    return list(Queue(plan, rows))


async def execute(
    plan: RunPlan,
    on_row: RowCallback | None = None,
    on_file: Callable[[Path], None] | None = None,
) -> RunResult:
    """Run every case (times every epoch) not already done; rows are written as each finishes.

    `on_file` gets the run file's path as soon as the file exists (to say how to resume)."""
    prompt_sha = plan.suite.prompt_sha()
    prompt = plan.suite.prompt_text()
    path, header, writer, rows = open_run_file(plan)
    run_id = header["run_id"]
    if on_file is not None:
        on_file(path)
    queue = Queue(plan, rows)
    # Counts, not rows: the run file holds every row, and 100,000 rows held in memory were
    # 200 MB. The rows of a resumed file are counted first, as summarise read them.
    tally, written_rows = Tally(per_case=plan.epochs > 1), WrittenRows(path)
    for row in rows:
        tally.add(row)
        written_rows.note(row)
    del rows
    work = Work(plan, prompt)
    if work.budget is not None and callable(gated := getattr(plan.grader, "use_budget", None)):
        gated(work.judge_gate, work.judge_paid)  # every request to the judge asks first
    work.prefetch(queue)
    pool = grading_pool(plan, len(queue), work.grades, queue.first())
    # With fewer requests to make than the quorum, all of them decide.
    work.refusals.quorum = max(1, min(REFUSAL_QUORUM, len(queue)))
    started = time.perf_counter()
    completed = False
    pending = iter(queue)
    in_flight = [0]
    write_error: list[str] = []

    def keep(row: dict[str, Any], case: Case, epoch: int) -> dict[str, Any] | None:
        """Write the row and return it as written; None (and the run stops) when the file
        cannot take it."""
        try:
            try:
                writer.write(row)
            except ValueError as exc:
                # A row that is not JSON (a NaN from an app or a check) would make the
                # file unreadable: the case becomes an error row that says why.
                row = make_row(
                    plan, run_id, prompt_sha, case, epoch, None, f"row not written: {exc}"
                )
                row = plan.row_filter(row) if plan.row_filter else row
                writer.write(row)
        except OSError as exc:
            # A full disk: stop starting cases; the rows written stay whole and resumable.
            if not write_error:
                write_error.append(unwritable(path, exc))
                work.stopped = work.stopped or write_error[0]
            return None
        return row

    async def worker() -> None:
        for case, epoch in pending:
            while work.refusals.undecided() and in_flight[0] and not work.stopped:
                # The first answer was a refusal: let the requests in flight say whether
                # the endpoint refuses them all before another case is started.
                await asyncio.sleep(0.02)
            if work.stopped:
                return
            in_flight[0] += 1
            # A judged run may put any case's undecided checks to the judge, not only a rubric's.
            spend = CaseSpend(judged=plan.grader is not None and _may_judge(plan.grader, case))
            CURRENT_CASE.set(spend)
            try:
                try:
                    reply, error = await work.answer(case, epoch, spend)
                finally:
                    in_flight[0] -= 1
                if reply is None and error is None:
                    return  # the budget stopped the run before this case started
                if reply is not None and spend.judged and not work.admit(spend):
                    return  # a cached answer, but its judging would pass the cap
                graded = await grade_reply(plan, case, reply, work.grades, pool) if reply else None
                paid = f"{plan.grader.name}_cost_usd" if plan.grader is not None else ""
                if graded is not None and paid in graded[1]:
                    # The case's verdict and any question on what the checks left undecided.
                    spend.add(graded[1][paid])
            finally:
                work.settle(spend)
            row = make_row(plan, run_id, prompt_sha, case, epoch, reply, error, graded)
            if not (reply is not None and reply.cached):
                row["tries"] = spend.tries  # a cached answer was not asked for in this run
            if reply is not None:
                row["cost_usd"] = cost_usd(reply.usage, work.price)
            if plan.row_filter:
                row = plan.row_filter(row)
            written = keep(row, case, epoch)
            if written is None:
                return
            tally.add(written)
            written_rows.note(written)
            if on_row:
                on_row(written)

    n = max(1, min(plan.concurrency, len(queue)))
    tasks = [asyncio.ensure_future(worker()) for _ in range(n)]
    try:
        await asyncio.gather(*tasks)
        completed = work.stopped is None
    except BaseException:
        # Stop every worker before the summary is written, so no row can follow it.
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        summary = tally.record(
            completed=completed,
            stopped_reason=work.stopped if work.stopped else None if completed else "interrupted",
            run_id=run_id,
            elapsed_s=max(0.0, time.perf_counter() - started),
            left_out=list(plan.left_out),
        )
        try:
            if writer.failed is None:
                writer.write(summary)
            writer.close()
        except OSError as exc:
            if not write_error:
                write_error.append(unwritable(path, exc))
        if pool is not None:
            pool.close()
        if work.cache:
            work.cache.close()
        await plan.provider.aclose()
        if plan.grader:
            await plan.grader.aclose()
    return RunResult(path, header, written_rows, summary, write_error[0] if write_error else None)


#: Answers to grade below which a run grades in its own process: forking the workers costs
#: more than grading a few dozen answers.
POOL_MIN = 64


def grading_pool(
    plan: RunPlan, n_queued: int, grades: GradeCache | None, first: Case | None = None
) -> GradePool | None:
    """Worker processes for the checks when the run has enough answers to grade (not when
    the stored check results hold them all: a cached re-run grades nothing)."""
    stored = grades.n_found if grades is not None else 0
    if plan.workers <= 1 or n_queued - stored < POOL_MIN:
        return None
    # Forked before the first request: an HTTP client's threads are not copied into them.
    # Each worker loads the checks' tables itself, while this process sends the first
    # requests: loading them here first held every request back by a tenth of a second.
    warm = (first, Reply(answer=first.question)) if first is not None else None
    return GradePool(plan.workers, plan.suite.settings, warm, warm_in_workers=True)


def _start(path: Path, header: dict[str, Any]) -> BatchedRunWriter:
    """A new run file with its header; a file that cannot be made is bad input (exit 2)."""
    try:
        writer = BatchedRunWriter(path)
    except OSError as exc:
        raise InputError(f"{unwritable(path, exc)}; nothing was run") from None
    try:
        writer.write(header)
    except OSError as exc:
        with contextlib.suppress(OSError):
            writer.close()
            path.unlink()
        raise InputError(f"{unwritable(path, exc)}; nothing was run") from None
    return writer


def run(plan: RunPlan, on_row: RowCallback | None = None) -> RunResult:
    return asyncio.run(execute(plan, on_row))


def exit_code(summary: dict[str, Any]) -> int:
    """3 when any case errored or the run stopped early, else 1 when any failed, else 3 when
    a case awaits review, else 0.

    A failed case is a verdict CI can act on whatever else is undecided; a run whose only
    blemish is a case in review has no verdict on that case yet, which is not a pass."""
    counts = summary["counts"]
    if counts["error"] or not summary.get("completed", True):
        return 3
    if counts["fail"]:
        return 1
    return 3 if counts.get("review") else 0
