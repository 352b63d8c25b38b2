"""`invoke run --batch`: the answers come from one provider batch instead of live requests.

Cached answers become rows at once. The other requests (the exact bodies a live run sends)
go into one JSONL input file; its file id, then the batch id, are written to the run file
and made durable before anything else happens, so a process that ends while the batch runs
is continued by `--resume`, which collects that batch and never sends it again. The batch
is polled with a doubling, capped wait; its output and error files become rows through the
same grading as live replies (the judge, when asked for, grades each answer live once the
batch has answered). A request the batch did not answer is that case's error row, which
`--resume` sends again as a new batch.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.providers.batch import (
    BatchEndpoint,
    BatchState,
    CannotList,
    NotCreated,
    ResultLine,
    batch_input,
    custom_id,
    missing_reason,
    split_custom_id,
)
from evals.providers.openai_compat import OpenAICompatProvider
from evals.reply import ProviderError, Reply
from evals.run.batch_steps import output_estimate, read_results, unknown_batch, wait_for
from evals.run.cache import AnswerCache, cache_key
from evals.run.cost import cost_usd, discounted, estimate_batch_cost, price_for
from evals.run.files import iso_z, unwritable
from evals.run.plan import BatchSettings, RowCallback, RunPlan, RunResult
from evals.run.resume import OpenBatch, open_batch
from evals.run.rows import grade_reply, make_row
from evals.run.runner import grading_pool, open_run_file, to_run
from evals.run.summary import summarise
from evals.run.work import request_chars
from evals.run.writer import BatchedRunWriter
from evals.suite.case import Case

NoteCallback = Callable[[str], None]


def _print_note(text: str) -> None:
    print(text, flush=True)


#: One case's outcome on its way to a row: the case, epoch, reply or reason, batch id.
Outcome = tuple[Case, int, Reply | None, str | None, str | None]


class _BatchRun:
    """The state of one batch run: its file, rows, cache, price and endpoint."""

    def __init__(
        self,
        plan: RunPlan,
        provider: OpenAICompatProvider,
        settings: BatchSettings,
        writer: BatchedRunWriter,
        rows: list[dict[str, Any]],
        run_id: str,
        on_row: RowCallback | None,
        note: NoteCallback,
    ) -> None:
        self.plan = plan
        self.provider = provider
        self.settings = settings
        self.writer = writer
        self.rows = rows
        self.run_id = run_id
        self.on_row = on_row
        self.note = note
        self.prompt = plan.suite.prompt_text()
        self.prompt_sha = plan.suite.prompt_sha()
        self.price = discounted(price_for(provider.model, plan.prices), settings.discount)
        self.endpoint = BatchEndpoint(provider)
        self.stopped: str | None = None
        #: Why the run file could not take a record (a full disk): the run stops, exit 3.
        self.write_error: str | None = None
        #: The batch being waited for, named when the process is interrupted.
        self.waiting: str | None = None
        self.cache: AnswerCache | None = None
        if plan.use_cache and plan.cache_path is not None:
            try:
                self.cache = AnswerCache(plan.cache_path)
            except (OSError, sqlite3.Error) as exc:
                print(f"warning: answer cache off ({plan.cache_path}: {exc})", file=sys.stderr)

    async def run(self, records: list[dict[str, Any]]) -> None:
        """Collect a batch left open by an earlier process, then answer what has no row."""
        pending = open_batch(records)
        if pending is not None:
            await self.collect(pending, look_first=True)
            if self.stopped:
                return
        # What the collected batch left unanswered has its error row now: the next
        # --resume sends it again, not this process.
        todo = await self.from_cache(to_run(self.plan, self.rows))
        if todo:
            await self.submit(todo)

    async def from_cache(
        self, queue: list[tuple[Case, int]]
    ) -> list[tuple[Case, int, dict[str, Any]]]:
        """Rows for the cached answers; the requests still to send."""
        hits: list[Outcome] = []
        todo = []
        for case, epoch in queue:
            request = self.provider.request_for(case, self.prompt)
            hit = self.cache.get(cache_key(request, epoch)) if self.cache else None
            if hit is not None:
                hits.append((case, epoch, hit, None, None))
            else:
                todo.append((case, epoch, request))
        await self.emit(hits)
        return todo

    def affordable(self, todo: list[tuple[Case, int, dict[str, Any]]]) -> int:
        """How many of the requests fit in --max-cost by the estimate; sets the stop reason
        when not all do."""
        cap = self.plan.max_cost
        if cap is None:
            return len(todo)
        out_tokens, how = output_estimate(self.provider.max_tokens, self.rows)
        totals = estimate_batch_cost([request_chars(t[2]) for t in todo], self.price, out_tokens)
        if totals is None:  # the command refuses --max-cost without a price
            return len(todo)
        fit = sum(1 for t in totals if t <= cap)
        if fit < len(todo):
            self.stopped = (
                f"budget: the batch of {len(todo)} request(s) would cost about "
                f"${totals[-1]:.4f} (~4 characters per input token, {how}), past ${cap:g}; "
                f"{fit} sent"
            )
        return fit

    async def submit(self, todo: list[tuple[Case, int, dict[str, Any]]]) -> None:
        """Upload the requests that fit the budget as one input file and collect its batch."""
        todo = todo[: self.affordable(todo)]
        if not todo:
            return
        items = [(custom_id(c.id, e), req) for c, e, req in todo]
        try:
            fid = await self.endpoint.upload(batch_input(items), f"{self.run_id}.jsonl")
        except ProviderError as exc:
            self.stopped = f"the batch was not sent: {exc}"
            return
        ids = [cid for cid, _ in items]
        if not self.record("uploaded", fid, requests=len(ids), custom_ids=ids):
            return  # unrecorded, so no batch is made of it: nothing is paid for
        self.note(f"uploaded {len(ids)} request(s) as file {fid}")
        await self.collect(OpenBatch(fid, ids), look_first=False)

    async def collect(self, pending: OpenBatch, *, look_first: bool) -> None:
        """Create the batch if that never happened, wait for it to end, write its rows."""
        if pending.batch_id is None:
            state = await self.create(pending, look_first=look_first)
            if state is None:
                return
            pending.batch_id = state.id
            if not self.record(
                "created", pending.input_file_id, batch_id=state.id, status=state.status
            ):
                self.stopped = (
                    f"{self.stopped}; batch {state.id} was created for file "
                    f"{pending.input_file_id} and goes on at the provider: `invoke run --resume` "
                    "finds it there and collects it"
                )
                return
            self.note(f"created batch {state.id} for {len(pending.custom_ids)} request(s)")
        else:
            self.note(f"collecting batch {pending.batch_id} (sent by an earlier run)")
        final = await self.poll(pending.batch_id)
        if final is None:
            return
        results = await self.read_results(final)
        if results is None:
            return
        await self.emit(self.outcomes(pending, final, results))
        if self.write_error:
            return  # rows are missing from the file: --resume reads the batch's files again
        self.record(
            "ended",
            pending.input_file_id,
            batch_id=final.id,
            status=final.status,
            counts={"total": final.total, "completed": final.completed, "failed": final.failed},
            output_file_id=final.output_file_id,
            error_file_id=final.error_file_id,
        )

    async def create(self, pending: OpenBatch, *, look_first: bool) -> BatchState | None:
        """The batch for an uploaded file: found at the provider when an earlier process
        may have created it, else created now (once); None when the run has to stop."""
        fid = pending.input_file_id
        try:
            found = None
            if look_first:
                try:
                    found = await self.endpoint.find(fid)
                except CannotList:
                    # Without a list, only the run file can tell whether an earlier process
                    # may have created the batch: it records each try before making it.
                    if pending.creating:
                        raise
            if found is not None:
                return found
            if not self.record("creating", fid):
                return None
            return await self.endpoint.create(fid, {"evals_run_id": self.run_id[:512]})
        except NotCreated as exc:
            self.record("not_created", fid)  # refused for sure: --resume may ask again
            self.stopped = (
                f"the batch was not created: {exc}; `invoke run --resume` creates it "
                f"from the uploaded file {fid}"
            )
            return None
        except CannotList as exc:
            self.stopped = unknown_batch(fid, exc)
        except ProviderError as exc:
            self.stopped = (
                f"the batch was not created: {exc}; `invoke run --resume` creates it "
                f"from the uploaded file {fid}"
            )
        return None

    async def poll(self, batch_id: str) -> BatchState | None:
        """The batch's final state; None when contact is lost (the run stops)."""
        self.waiting = batch_id
        state, lost = await wait_for(self.endpoint, batch_id, self.settings, self.note)
        if state is None:
            self.stopped = lost
        else:
            self.waiting = None
        return state

    async def read_results(self, state: BatchState) -> dict[str, ResultLine] | None:
        """Every request's outcome in the batch's files; None when they cannot be read."""
        results, why = await read_results(self.endpoint, state, self.provider.clean, self.note)
        if results is None:
            self.stopped = why
        return results

    def outcomes(
        self, pending: OpenBatch, state: BatchState, results: dict[str, ResultLine]
    ) -> list[Outcome]:
        """Each request of the batch without a row yet: its reply, or why there is none."""
        by_id = {c.id: c for c in self.plan.cases}
        done = {(r["case"], r.get("epoch", 0)) for r in self.rows}
        out: list[Outcome] = []
        for cid in pending.custom_ids:
            key = split_custom_id(cid)
            if key is None or key[0] not in by_id or key in done:
                continue
            case, epoch = by_id[key[0]], key[1]
            line = results.get(cid)
            reply, error = None, None
            if line is None:
                error = missing_reason(state)
            elif line.error is not None or line.body is None:
                error = line.error or "malformed batch line"
            else:
                try:
                    reply = self.provider.reply_from_body(line.body, None)
                except ProviderError as exc:
                    error = f"{exc} (batch {state.id})"
                else:
                    if self.cache:  # only answers are cached, never an error
                        request = self.provider.request_for(case, self.prompt)
                        self.cache.put(cache_key(request, epoch), self.provider.model, reply)
            out.append((case, epoch, reply, error, state.id))
        unanswered = sum(1 for o in out if o[2] is None)
        if state.status != "completed" and unanswered:
            self.note(
                f"batch {state.id} {state.status}: {unanswered} request(s) without an answer "
                "are error rows; `invoke run --resume` sends them again as a new batch"
            )
        return out

    async def emit(self, outcomes: list[Outcome]) -> None:
        """Grade each answer (the judge, if any, live and `concurrency` at a time) and write
        its row as it finishes."""
        plan = self.plan
        # The checks run in worker processes, as many at a time as there are workers (the
        # judge, when there is one, `concurrency` at a time).
        sem = asyncio.Semaphore(max(1, plan.concurrency, 2 * plan.workers))
        pool = grading_pool(plan, len(outcomes), None, outcomes[0][0] if outcomes else None)

        async def one(
            case: Case, epoch: int, reply: Reply | None, error: str | None, batch_id: str | None
        ) -> None:
            graded = None
            if reply is not None:
                async with sem:
                    graded = await grade_reply(plan, case, reply, pool=pool)
            row = make_row(plan, self.run_id, self.prompt_sha, case, epoch, reply, error, graded)
            if reply is not None:
                row["cost_usd"] = cost_usd(reply.usage, self.price)
            if batch_id is not None:
                row["batch_id"] = batch_id
            if plan.row_filter:
                row = plan.row_filter(row)
            if not self.write(row):
                return  # the answer stays in the cache; --resume writes its row
            self.rows.append(row)
            if self.on_row:
                self.on_row(row)

        try:
            await asyncio.gather(*(one(*o) for o in outcomes))
        finally:
            if pool is not None:
                pool.close()

    def write(self, record: dict[str, Any]) -> bool:
        """Append a record; False (and the run stops) when the run file cannot take it.

        The writer cuts a half-written record back off, so the file stays readable and
        `--resume` goes on from the records before it.
        """
        if self.write_error:
            return False
        try:
            self.writer.write(record)
        except ValueError as exc:  # not JSON: the run file stays readable without it
            self.note(f"warning: a record was not written: {exc}")
            return False
        except OSError as exc:
            self.write_error = unwritable(self.writer.path, exc)
            self.stopped = self.stopped or self.write_error
            return False
        return True

    def record(self, event: str, input_file_id: str, **fields: Any) -> bool:
        """A `batch` record, durable before the run goes on; False when it could not be."""
        rec = {
            "kind": "batch",
            "run_id": self.run_id,
            "event": event,
            "at": iso_z(),
            "input_file_id": input_file_id,
            **fields,
        }
        if not self.write(rec):
            return False
        try:
            self.writer.sync()
        except OSError as exc:
            self.write_error = unwritable(self.writer.path, exc)
            self.stopped = self.stopped or self.write_error
            return False
        return True

    def close(self) -> None:
        if self.cache:
            self.cache.close()


async def execute_batch(
    plan: RunPlan,
    on_row: RowCallback | None = None,
    on_note: NoteCallback | None = None,
    on_file: Callable[[Path], None] | None = None,
) -> RunResult:
    """Run every case (times every epoch) without a row through one provider batch.

    `on_file` gets the run file's path as soon as the file exists (to say how to resume)."""
    provider, settings = plan.provider, plan.batch
    if not isinstance(provider, OpenAICompatProvider) or settings is None:
        raise TypeError("a batch run needs an OpenAI-compatible provider and BatchSettings")
    path, header, writer, rows = open_run_file(plan)
    if on_file is not None:
        on_file(path)
    note = on_note or _print_note
    flow = _BatchRun(plan, provider, settings, writer, rows, header["run_id"], on_row, note)
    started = time.perf_counter()
    completed = False
    try:
        await flow.run(plan.resume.batches if plan.resume else [])
        completed = flow.stopped is None
    except BaseException:
        if flow.waiting:
            note(
                f"batch {flow.waiting} goes on at the provider: `invoke run --resume "
                f"{path.name}` collects its answers (nothing is sent again)"
            )
        raise
    finally:
        summary = summarise(
            rows,
            completed=completed,
            stopped_reason=flow.stopped if flow.stopped else None if completed else "interrupted",
            run_id=header["run_id"],
            elapsed_s=max(0.0, time.perf_counter() - started),
            left_out=list(plan.left_out),
        )
        try:
            if writer.failed is None:
                writer.write(summary)
            writer.close()
        except OSError as exc:
            flow.write_error = flow.write_error or unwritable(path, exc)
        flow.close()
        await provider.aclose()
        if plan.grader:
            await plan.grader.aclose()
    return RunResult(path, header, rows, summary, flow.write_error)
