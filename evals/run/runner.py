"""Running cases against a provider: bounded concurrency, cache, budget, stamped rows."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.errors import InputError
from evals.providers.base import (
    REFUSAL_QUORUM,
    EndpointRefused,
    RefusalWatch,
    RequestProvider,
)
from evals.providers.masking import describe
from evals.reply import ProviderError, Reply
from evals.run.cache import AnswerCache, cache_key
from evals.run.cost import (
    CURRENT_CASE,
    Budget,
    CaseSpend,
    charge_judge,
    cost_usd,
    estimate_prompt_cost,
    judge_refusal,
    price_for,
)
from evals.run.files import run_file_name, unwritable, utc_now
from evals.run.grade_cache import GradeCache
from evals.run.plan import RowCallback, RunPlan, RunResult, WrittenRows
from evals.run.pool import GradePool
from evals.run.resume import reopen
from evals.run.retry import transient
from evals.run.rows import grade_reply, make_header, make_row
from evals.run.tally import Tally
from evals.run.writer import BatchedRunWriter
from evals.suite.case import Case

WITHHELD_MESSAGE = "provider message withheld (sealed run)"


def _builtin_name(exc: BaseException) -> str:
    """The exception's type when Python defines it; an application's own class name could
    be made of any text."""
    return type(exc).__name__ if type(exc).__module__ == "builtins" else "exception"


def request_chars(request: dict[str, Any]) -> int:
    """The characters of a request's messages: the prompt-size floor of its cost."""
    msgs = request.get("body", {}).get("messages") or []
    return sum(len(m.get("content") or "") for m in msgs if isinstance(m, dict))


class _Work:
    """The per-run state the workers share (one event loop, so no locks are needed)."""

    def __init__(self, plan: RunPlan, prompt: str) -> None:
        self.plan = plan
        self.prompt = prompt
        self.price = price_for(plan.provider.model, plan.prices)
        # The judge's price (None when unlisted, or for a grader that costs nothing).
        self.judge_price = getattr(plan.grader, "price", None)
        self.budget = Budget(plan.max_cost) if plan.max_cost is not None else None
        self.stopped: str | None = None
        self.refusals = RefusalWatch(REFUSAL_QUORUM)
        p = plan.provider
        self.requester = p if isinstance(p, RequestProvider) else None
        self.cache: AnswerCache | None = None
        self.grades: GradeCache | None = None
        # (case id, epoch) -> (request, cache key), built up front by `prefetch`.
        self.prepared: dict[tuple[str, int], tuple[dict[str, Any], str]] = {}
        if plan.use_cache and self.requester is not None and plan.cache_path is not None:
            try:
                self.cache = AnswerCache(plan.cache_path)
            except (OSError, sqlite3.Error) as exc:
                # A broken cache must not stop a run: it only costs requests.
                print(f"warning: answer cache off ({plan.cache_path}: {exc})", file=sys.stderr)
        if self.cache is not None:
            self.grades = self.cache.grade_cache(plan.suite.settings, plan.suite.path)

    async def answer(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None]:
        """The reply (from the cache when it holds one), or the reason there is none.

        An attempt that ends in a transient error is sent again, up to `plan.resend` times
        with a doubling wait, before it becomes an error row; `spend.tries` counts the tries.
        """
        while True:
            reply, error, wait = await self._try(case, epoch, spend)
            if wait is None or spend.tries > self.plan.resend or self.stopped:
                return reply, error
            await asyncio.sleep(max(wait, self.plan.resend_wait_s * 2 ** (spend.tries - 1)))
            spend.tries += 1

    async def _try(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None, float | None]:
        """One try: (reply, reason there is none, the least wait before another try, or None
        when another try could not change it)."""
        try:
            reply, error = await self._send(case, epoch, spend)
        except ProviderError as exc:
            again = transient(exc)
            return None, self._failed(exc), min(exc.retry_after or 0.0, 60.0) if again else None
        return reply, error, None

    def _failed(self, exc: ProviderError) -> str:
        """The reason of a failed try, noting a refusal that stops the run."""
        reason = self._reason(exc)
        if isinstance(exc, EndpointRefused):
            verdict = self.refusals.refused(exc.signature, reason, exc.hint)
            if verdict and not self.stopped:
                self.stopped = verdict
        else:
            self.refusals.answered()
        return reason

    async def _send(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None]:
        """The reply, or the reason there is none; a ProviderError is raised to the caller."""
        plan = self.plan
        try:
            if self.requester is None:
                coro = plan.provider.answer(case, self.prompt, epoch)
                reply = await self._budgeted(coro, spend)
                if reply is not None:
                    self.refusals.answered()
                return reply, None
            prepared = self.prepared.pop((case.id, epoch), None)
            request, key = prepared or self.request_and_key(case, epoch)
            spend.chars = request_chars(request)
            if self.cache:
                hit = self.cache.get(key)
                if hit is not None:
                    return hit, None
            reply = await self._budgeted(self.requester.send(request), spend)
            if reply is not None:
                self.refusals.answered()
            if reply is not None and self.cache:
                self.cache.put(key, plan.provider.model, reply)  # only successes reach here
            return reply, None
        except ProviderError:
            raise
        except Exception as exc:  # an unexpected provider failure is still only this case's error
            self.refusals.answered()
            if self.plan.withhold_provider_text:
                return None, f"{_builtin_name(exc)}: {WITHHELD_MESSAGE}"
            return None, describe(exc)[:500]

    def request_and_key(self, case: Case, epoch: int) -> tuple[dict[str, Any], str]:
        """The request for one case and its cache key ("" when there is no cache)."""
        assert self.requester is not None
        request = self.requester.request_for(case, self.prompt)
        return request, cache_key(request, epoch) if self.cache else ""

    def prefetch(self, queue: list[tuple[Case, int]]) -> None:
        """Build every queued request and read all their cached replies in one query."""
        if self.cache is None or self.requester is None:
            return
        for case, epoch in queue:
            try:
                self.prepared[(case.id, epoch)] = self.request_and_key(case, epoch)
            except Exception:  # noqa: S112 - `answer` builds it again and makes it this case's error
                continue
        self.cache.prefetch([key for _, key in self.prepared.values()])
        if self.grades is not None:
            # A cached reply graded before under the same inputs is not graded again.
            hits = [
                (c, self.cache.prefetched(self.prepared[(c.id, e)][1]))
                for c, e in queue
                if (c.id, e) in self.prepared
            ]
            self.grades.prefetch([(c, r) for c, r in hits if r is not None])

    def _reason(self, exc: ProviderError) -> str:
        """The error row's reason: the provider's message, or only its kind when withheld."""
        if self.plan.withhold_provider_text:
            return f"{exc.kind}: {WITHHELD_MESSAGE}"
        return str(exc) or exc.kind

    def admit(self, spend: CaseSpend) -> bool:
        """Whether the case may start paying: spent + in flight + this one stay under the cap.

        Charged once per case, at its first paid request (the answer, or the judging of a
        cached answer); the case stays in flight until its judging is done."""
        b = self.budget
        if b is None or spend.started:
            return True
        judge_floor = estimate_prompt_cost(spend.chars, self.judge_price) if spend.judged else 0.0
        spend.floor = (estimate_prompt_cost(spend.chars, self.price) or 0.0) + (judge_floor or 0.0)
        if self.stopped or not b.may_start(spend.floor):
            if not self.stopped:
                guessed = (
                    f", {b.estimated} case(s) without token usage charged at the mean"
                    if b.estimated
                    else ""
                )
                self.stopped = (
                    f"budget: the next case would take the estimated cost past "
                    f"${b.max_usd:g} (spent ${b.spent:.4f}{guessed})"
                )
            return False
        b.started()
        spend.started = True
        return True

    def settle(self, spend: CaseSpend) -> None:
        """The case is done: what it paid (answer plus judge) joins the budget's spend."""
        live, spend.live = spend.live, 0.0
        if self.budget is not None:
            self.budget.live -= live
        if self.budget is not None and spend.started:
            # An answer of unknown cost still paid for its judging: never charged less.
            self.budget.finished(spend.cost, counted=spend.counted, floor=spend.floor, least=live)

    def judge_gate(self, chars: int) -> str | None:
        """Before each request to the judge (a verdict, a per-fact question, a retry): why it
        may not be sent (the budget would pass its cap, or the run stopped), else None."""
        if self.budget is None:
            return None
        if not self.stopped:
            self.stopped = judge_refusal(self.budget, chars, self.judge_price)
        return self.stopped

    def judge_paid(self, cost: float | None, chars: int) -> None:
        """A judge request came back: its cost counts against the budget at once."""
        if self.budget is not None:
            charge_judge(self.budget, cost, chars, self.judge_price)

    async def _budgeted(self, coro: Any, spend: CaseSpend) -> Reply | None:
        if not self.admit(spend):
            coro.close()
            return None
        reply = await coro
        if self.budget is not None:
            spend.add(cost_usd(reply.usage, self.price))
        return reply


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


def to_run(plan: RunPlan, rows: list[dict[str, Any]]) -> list[tuple[Case, int]]:
    """Every (case, epoch) without a row yet, epoch by epoch."""
    done = {(r["case"], r.get("epoch", 0)) for r in rows}
    return [(c, e) for e in range(plan.epochs) for c in plan.cases if (c.id, e) not in done]


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
    queue = to_run(plan, rows)
    # Counts, not rows: the run file holds every row, and 100,000 rows held in memory were
    # 200 MB. The rows of a resumed file are counted first, as summarise read them.
    tally, written_rows = Tally(per_case=plan.epochs > 1), WrittenRows(path)
    for row in rows:
        tally.add(row)
        written_rows.note(row)
    del rows
    work = _Work(plan, prompt)
    if work.budget is not None and callable(gated := getattr(plan.grader, "use_budget", None)):
        gated(work.judge_gate, work.judge_paid)  # every request to the judge asks first
    work.prefetch(queue)
    pool = grading_pool(plan, len(queue), work.grades, queue[0][0] if queue else None)
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
    warm = (first, Reply(answer=first.question)) if first is not None else None
    return GradePool(plan.workers, plan.suite.settings, warm)


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
