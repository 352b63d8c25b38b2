"""Grading on every core: the deterministic checks of many answers in worker processes.

The checks are pure CPU on one core, so a run of replayed or batch-collected answers, a
calibration or a mutation pass waits on one core while the others sit idle. A `GradePool`
grades (case, reply) pairs in `workers` forked processes, in chunks, and hands the results
back in the order given, so what a caller writes is what one process would have written:
`grade` is a function of its inputs (its memos only save work), and a test holds N workers
to one worker's results row by row.

Workers are forked, so they hold the checks the parent registered (a suite's `checks.py`
included) without loading anything again. Where fork is not available (macOS and Windows
start processes afresh) or one worker is asked for, grading stays in this process.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from evals.checks import CheckResult
from evals.checks.grading import grade
from evals.errors import InputError
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

#: Answers graded per task sent to a worker: enough to hide the cost of sending them.
CHUNK = 16


def default_workers() -> int:
    """The cores this process may run on (a container's limit included)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_workers(value: int | str | None) -> int:
    """`--workers N` as given (a whole number from 1), or one per core when not given."""
    if value is None:
        return default_workers()
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1 or str(value).strip() != str(n):
        raise InputError(f"--workers must be a whole number from 1, not {value!r}")
    return n


#: The suite's settings in a forked worker: set before the fork, so they are not sent (and
#: pickled) with every answer.
_SETTINGS: list[SuiteSettings] = []


def _grade_chunk(jobs: list[tuple[Case, Reply]]) -> list[dict[str, CheckResult]]:
    settings = _SETTINGS[-1]
    return [grade(case, reply, settings) for case, reply in jobs]


def _ready() -> int:
    return os.getpid()


def _quiet() -> None:
    # Ctrl-C is the main process's to handle (it keeps the rows written and stops the pool);
    # a worker that took it too would print its own traceback in the middle of the run's.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_Waiting = tuple[Case, Reply, "asyncio.Future[dict[str, CheckResult]]"]


def _deliver(done: asyncio.Future[list[dict[str, CheckResult]]], part: list[_Waiting]) -> None:
    """Each waiting answer gets its results, or the failure of its chunk."""
    for i, (_, _, fut) in enumerate(part):
        if fut.done():
            continue
        if done.cancelled():
            fut.cancel()
        elif (exc := done.exception()) is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(done.result()[i])


class GradePool:
    """`grade()` over many answers in worker processes (one process: in this one)."""

    def __init__(
        self, workers: int, settings: SuiteSettings, warm: tuple[Case, Reply] | None = None
    ) -> None:
        """`warm`: an answer graded here first (its results thrown away), so the language data
        and tables the checks load on first use are loaded once, before the fork, and shared
        by every worker instead of loaded by each."""
        self.settings = settings
        # What is loaded by now (the suite, its cases, the language tables) lives to the end:
        # kept out of the collector's full scans, which went over all of it again and again
        # (a tenth of grading's CPU), and, in forked workers, out of the pages the collector
        # would otherwise write to and so copy.
        gc.freeze()
        self._frozen = True
        forkable = "fork" in multiprocessing.get_all_start_methods()
        self.workers = workers if forkable else 1
        self._pool: ProcessPoolExecutor | None = None
        self._waiting: list[_Waiting] = []
        if self.workers > 1:
            if warm is not None:
                grade(warm[0], warm[1], settings)
            ctx = multiprocessing.get_context("fork")
            _SETTINGS.append(settings)
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_quiet)
            # The workers are forked now, before the caller starts threads (an event loop's
            # resolver, an HTTP client): a fork copies only the thread that makes it.
            self._pool.submit(_ready).result()

    def grade_all(self, jobs: Sequence[tuple[Case, Reply]]) -> list[dict[str, CheckResult]]:
        """The results of every (case, reply), in the order given."""
        if self._pool is None:
            return [grade(case, reply, self.settings) for case, reply in jobs]
        # Few large runs of neighbours: one case's answers mostly meet one worker's memos of
        # its passages, and four chunks per worker still even out their lengths.
        size = max(CHUNK, -(-len(jobs) // (self.workers * 4)))
        chunks = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
        futures = [self._pool.submit(_grade_chunk, c) for c in chunks]
        return [r for f in futures for r in f.result()]

    async def grade(self, case: Case, reply: Reply) -> dict[str, CheckResult]:
        """One answer's results, graded in a worker while the event loop goes on.

        The answers that become ready in one turn of the loop (a replayed run's, a batch's)
        go to the workers together, a share each: one hand-over per worker, not per answer."""
        if self._pool is None:
            return grade(case, reply, self.settings)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[dict[str, CheckResult]] = loop.create_future()
        self._waiting.append((case, reply, fut))
        if len(self._waiting) == 1:
            loop.call_soon(self._send)
        return await fut

    def _send(self) -> None:
        waiting, self._waiting = self._waiting, []
        assert self._pool is not None
        size = max(1, -(-len(waiting) // self.workers))
        for i in range(0, len(waiting), size):
            part = waiting[i : i + size]
            sent = asyncio.wrap_future(
                self._pool.submit(_grade_chunk, [(c, r) for c, r, _ in part])
            )
            sent.add_done_callback(lambda done, part=part: _deliver(done, part))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            _SETTINGS.remove(self.settings)
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def __enter__(self) -> GradePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
