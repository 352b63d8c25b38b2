"""Grading on every core: the deterministic checks of many answers in worker processes.

The checks are pure CPU on one core, so a run of replayed or batch-collected answers, a
calibration or a mutation pass waits on one core while the others sit idle. A `GradePool`
grades (case, reply) pairs in `workers` forked processes, in chunks, and hands the results
back in the order given, so what a caller writes is what one process would have written:
`grade` is a function of its inputs (its memos only save work), and a test holds N workers
to one worker's results row by row.

Workers are forked, so they hold the checks the parent registered (a suite's own `checks.py`
included) without loading anything again. Where fork is not available (macOS and Windows
start processes afresh) or one worker is asked for, grading stays in this process.

Each worker is one forked process on one socket pair, and this process starts no thread: a
`concurrent.futures` process pool moves every chunk through a manager thread and a feeder
thread, whose turns at the interpreter lock cost a live run's event loop about as much as
grading the answer itself (measured: the main process's CPU was the same with two workers
as with none). Here the event loop reads a worker's results when its socket is readable,
and a worker is sent a chunk only when it has none, so neither side can block on the other.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import pickle
import signal
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from evals.checks import CheckResult
from evals.checks.grading import grade
from evals.errors import InputError
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

#: The fewest answers sent to a worker at once in a batch of many: enough to hide the cost of
#: sending them.
CHUNK = 16

#: A batch is cut into chunks of what is left over (this many times the workers): large
#: chunks first, smaller ones towards the end, so the workers finish together.
SHARES = 3

_Results = dict[str, CheckResult]
_Job = tuple[Case, Reply]


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


def chunk_sizes(n: int, workers: int, least: int = CHUNK) -> list[int]:
    """How `n` answers are cut for `workers` processes: each chunk a share of what is left
    (1 / (SHARES x workers)), never fewer than `least` answers but the last; the sizes add
    up to `n`. Pure, so the cut is tested on its own."""
    out: list[int] = []
    left = n
    while left > 0:
        size = min(left, max(least, -(-left // (SHARES * max(1, workers)))))
        out.append(size)
        left -= size
    return out


class WorkerStopped(RuntimeError):
    """A grading worker ended before it sent its results (killed, or out of memory)."""


def _serve(
    conn: Connection, inherited: list[Connection], settings: SuiteSettings, warm: _Job | None
) -> None:
    """A worker: grade each chunk received, send back its results; stop at an empty message
    or when the main process is gone."""
    # Ctrl-C is the main process's to handle (it keeps the rows written and stops the pool);
    # a worker that took it too would print its own traceback in the middle of the run's.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for other in inherited:
        other.close()  # the main process's ends of the workers forked before this one
    if warm is not None:
        grade(warm[0], warm[1], settings)
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if not data:
            return
        jobs: list[_Job] = pickle.loads(data)
        try:
            out: tuple[bool, Any] = (True, [grade(c, r, settings) for c, r in jobs])
            payload = pickle.dumps(out, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # grade() turns a check's exception into its error: a bug
            payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        try:
            conn.send_bytes(payload)
        except OSError:
            return  # the main process closed the pool while this chunk was graded


@dataclass
class _Worker:
    process: Any  # a forked multiprocessing Process
    conn: Connection
    #: What the worker is grading: the answers' places (a batch) or their futures (a run).
    busy: list[Any] | None = None
    reading: bool = False
    dead: bool = field(default=False)


_Waiting = tuple[Case, Reply, "asyncio.Future[_Results]"]


class GradePool:
    """`grade()` over many answers in worker processes (one process: in this one)."""

    def __init__(
        self,
        workers: int,
        settings: SuiteSettings,
        warm: _Job | None = None,
        warm_in_workers: bool = False,
    ) -> None:
        """`warm`: an answer graded first (its results thrown away), so the language data and
        tables the checks load on first use are loaded before the first real answer: here,
        before the fork, shared by every worker (the least CPU); or, with `warm_in_workers`,
        by each worker while this process goes on (a live run: its first requests do not
        wait for it)."""
        self.settings = settings
        # What is loaded by now (the suite, its cases, the language tables) lives to the end:
        # kept out of the collector's full scans, which went over all of it again and again
        # (a tenth of grading's CPU), and, in forked workers, out of the pages the collector
        # would otherwise write to and so copy.
        gc.freeze()
        self._frozen = True
        forkable = "fork" in multiprocessing.get_all_start_methods()
        self.workers = workers if forkable else 1
        self._pool: list[_Worker] = []
        self._waiting: list[_Waiting] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broken: BaseException | None = None
        if self.workers > 1:
            if warm is not None and not warm_in_workers:
                grade(warm[0], warm[1], settings)
            ctx = multiprocessing.get_context("fork")
            # Forked now, before the caller starts threads (an event loop's resolver, an HTTP
            # client): a fork copies only the thread that makes it.
            for _ in range(self.workers):
                mine, theirs = ctx.Pipe(duplex=True)
                inherited = [w.conn for w in self._pool]
                args = (theirs, inherited, settings, warm if warm_in_workers else None)
                proc = ctx.Process(target=_serve, args=args, daemon=True)
                proc.start()
                theirs.close()
                self._pool.append(_Worker(proc, mine))

    def _send(self, worker: _Worker, jobs: list[_Job], busy: list[Any]) -> None:
        try:
            worker.conn.send_bytes(pickle.dumps(jobs, pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            worker.dead = True
            raise self._break(WorkerStopped(f"a grading worker stopped: {exc}")) from None
        worker.busy = busy

    def _receive(self, worker: _Worker) -> list[_Results]:
        try:
            ok, value = pickle.loads(worker.conn.recv_bytes())
        except (EOFError, OSError):
            worker.dead = True
            code = worker.process.exitcode
            raise self._break(WorkerStopped(f"a grading worker stopped (exit {code})")) from None
        if not ok:
            raise self._break(value)
        return value

    def _break(self, exc: BaseException) -> BaseException:
        """The pool cannot be trusted after a worker failed: every later call raises too."""
        self._broken = self._broken or exc
        return exc

    def _check(self) -> None:
        if self._broken is not None:
            raise WorkerStopped(f"the grading pool stopped: {self._broken}")

    def grade_all(self, jobs: Sequence[_Job]) -> list[_Results]:
        """The results of every (case, reply), in the order given."""
        if not self._pool:
            return [grade(case, reply, self.settings) for case, reply in jobs]
        self._check()
        # One case's answers together: they meet one worker's memos of its passages. Large
        # chunks first and smaller ones last, each to the first worker free, so they finish
        # together; the results go back to their places.
        order = sorted(range(len(jobs)), key=lambda i: jobs[i][0].id)
        cuts: list[list[int]] = []
        at = 0
        for size in chunk_sizes(len(order), self.workers):
            cuts.append(order[at : at + size])
            at += size
        cuts.reverse()  # popped from the end: the largest first
        try:
            return self._gather(jobs, cuts)
        except BaseException as exc:
            # Chunks may still be out (an interrupt, a worker gone): their results must not
            # be read as a later batch's.
            self._break(exc)
            raise

    def _gather(self, jobs: Sequence[_Job], cuts: list[list[int]]) -> list[_Results]:
        results: list[_Results | None] = [None] * len(jobs)
        for w in self._pool:
            if cuts:
                part = cuts.pop()
                self._send(w, [jobs[i] for i in part], part)
        while any(w.busy is not None for w in self._pool):
            ready = wait([w.conn for w in self._pool if w.busy is not None])
            for w in self._pool:
                if w.conn not in ready or w.busy is None:
                    continue
                got = self._receive(w)
                for i, r in zip(w.busy, got, strict=True):
                    results[i] = r
                w.busy = None
                if cuts:
                    part = cuts.pop()
                    self._send(w, [jobs[i] for i in part], part)
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]

    async def grade(self, case: Case, reply: Reply) -> _Results:
        """One answer's results, graded in a worker while the event loop goes on.

        The answers that become ready in one turn of the loop (a replayed run's, a batch's),
        or while every worker is busy (a live run whose grading falls behind its replies),
        go to the free workers together, a share each."""
        if not self._pool:
            return grade(case, reply, self.settings)
        self._check()
        loop = asyncio.get_running_loop()
        self._loop = loop
        fut: asyncio.Future[_Results] = loop.create_future()
        self._waiting.append((case, reply, fut))
        if len(self._waiting) == 1:
            loop.call_soon(self._dispatch)
        return await fut

    def _dispatch(self) -> None:
        self._waiting = [x for x in self._waiting if not x[2].done()]  # cancelled meanwhile
        free = [w for w in self._pool if w.busy is None and not w.dead]
        for k, w in enumerate(free):
            if not self._waiting:
                return
            size = -(-len(self._waiting) // (len(free) - k))
            part, self._waiting = self._waiting[:size], self._waiting[size:]
            try:
                self._send(w, [(c, r) for c, r, _ in part], [f for _, _, f in part])
            except WorkerStopped as exc:
                self._waiting = part + self._waiting  # failed below, with every other one
                self._fail_all(exc)
                return
            if not w.reading:
                assert self._loop is not None
                self._loop.add_reader(w.conn.fileno(), self._collect, w)
                w.reading = True

    def _collect(self, w: _Worker) -> None:
        """A worker's results are ready: hand them out, and give it what waits."""
        futures, w.busy = w.busy or [], None
        try:
            got = self._receive(w)
        except BaseException as exc:
            for f in futures:
                if not f.done():
                    f.set_exception(exc)
            self._fail_all(exc)
            return
        for f, r in zip(futures, got, strict=True):
            if not f.done():
                f.set_result(r)
        if self._waiting:
            self._dispatch()

    def _fail_all(self, exc: BaseException) -> None:
        self._stop_reading()
        waiting, self._waiting = self._waiting, []
        for _, _, f in waiting:
            if not f.done():
                f.set_exception(exc)
        for w in self._pool:
            for f in w.busy or []:
                if isinstance(f, asyncio.Future) and not f.done():
                    f.set_exception(exc)

    def _stop_reading(self) -> None:
        for w in self._pool:
            if w.reading and self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(w.conn.fileno())
            w.reading = False

    def close(self) -> None:
        """Stop the workers: an idle one when told, one still grading (its results no longer
        wanted, after an interrupt or an error) at once."""
        self._stop_reading()
        for _, _, f in self._waiting:
            f.cancel()
        self._waiting = []
        for w in self._pool:
            if w.busy is not None or w.dead:
                w.process.terminate()
            else:
                try:
                    w.conn.send_bytes(b"")
                except OSError:
                    w.process.terminate()
            w.conn.close()
        for w in self._pool:
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
        self._pool = []
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def __enter__(self) -> GradePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
