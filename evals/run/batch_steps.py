"""The steps of a batch run that need none of its state: sizing the batch's output for the
budget, waiting for the batch to end, reading its output and error files, and what to say
when a batch cannot be found."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

from evals.providers.batch import (
    BatchEndpoint,
    BatchState,
    Clean,
    ResultLine,
    parse_results,
    progress_line,
)
from evals.reply import ProviderError
from evals.run.plan import BatchSettings

#: Status checks that may fail in a row (each after the SDK's own retries) before the run
#: stops and leaves the batch to `--resume`.
POLL_FAILURES = 3
#: A progress line at least this often while nothing changes.
QUIET_S = 300.0


def output_estimate(max_tokens: int | None, rows: list[dict[str, Any]]) -> tuple[float, str]:
    """Output tokens per request for the budget estimate, and how they were sized."""
    if max_tokens is not None:
        return float(max_tokens), f"max_tokens {max_tokens} out"
    seen = [
        u["completion_tokens"]
        for r in rows
        if isinstance(u := r.get("usage"), dict) and isinstance(u.get("completion_tokens"), int)
    ]
    if seen:
        mean = sum(seen) / len(seen)
        return mean, f"{mean:.0f} tokens out as in the answers so far"
    return 0.0, "input only: no max_tokens and no answer yet to size the output"


def backoff(first_s: float, cap_s: float) -> Iterator[float]:
    """The waits between status checks: `first_s`, doubled each time, never above `cap_s`."""
    delay = min(first_s, cap_s)
    while True:
        yield delay
        delay = min(delay * 2, cap_s)


async def wait_for(
    endpoint: BatchEndpoint, batch_id: str, settings: BatchSettings, note: Callable[[str], None]
) -> tuple[BatchState | None, str | None]:
    """Check the batch with a doubling wait (capped) until it ends: (its final state, None);
    (None, why) when contact is lost (the batch goes on and `--resume` collects it)."""
    waits = backoff(settings.poll_s, settings.poll_max_s)
    failures, started = 0, time.monotonic()
    last: tuple[Any, ...] | None = None
    last_at = started
    while True:
        try:
            state = await endpoint.retrieve(batch_id)
        except ProviderError as exc:
            failures += 1
            if failures >= POLL_FAILURES:
                return None, (
                    f"{exc}; the batch goes on at the provider and `invoke run --resume` collects it"
                )
            note(f"warning: {exc}; checking again shortly")
        else:
            failures = 0
            now = time.monotonic()
            key = (state.status, state.completed, state.failed)
            if key != last or now - last_at >= QUIET_S or state.final:
                note(progress_line(state, now - started))
                last, last_at = key, now
            if state.final:
                return state, None
        await asyncio.sleep(next(waits))


async def read_results(
    endpoint: BatchEndpoint, state: BatchState, clean: Clean, note: Callable[[str], None]
) -> tuple[dict[str, ResultLine] | None, str | None]:
    """Every request's outcome from the output file, then the error file (a warning per line
    that could not be read); (None, why) when a file cannot be fetched."""
    results: dict[str, ResultLine] = {}
    for fid in (state.output_file_id, state.error_file_id):
        if not fid:
            continue
        try:
            raw = await endpoint.read_file(fid)
        except ProviderError as exc:
            return None, f"{exc}; `invoke run --resume` reads batch {state.id} again"
        got, warnings = parse_results(raw, f"batch {state.id}, file {fid}", clean)
        for w in warnings:
            note(f"warning: {w}")
        for cid, res in got.items():
            results.setdefault(cid, res)
    return results, None


def unknown_batch(input_file_id: str, why: ProviderError) -> str:
    """Why a run stops when a batch may exist that the endpoint cannot be asked about, and
    what to do: creating it again could pay for every request twice."""
    fid = input_file_id
    return (
        f"an earlier run asked the endpoint to create the batch for file {fid} and ended "
        f"before it could record the answer, and {why}, so whether that batch exists cannot "
        "be known; nothing was created, so nothing is paid twice. Look for a batch of input "
        f"file {fid} at the provider: if there is one, wait for it and start a new run (its "
        "answers are not in the cache); if there is none, start a new `invoke run --batch` "
        "(cached answers are not paid for again)"
    )
