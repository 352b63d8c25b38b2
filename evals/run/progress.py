"""Progress while a run goes: a live bar on a terminal, plain periodic lines in CI logs.

Either way every case still gets its PASS/FAIL/REVIEW/ERROR line.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from evals.run.console import case_line


def _money(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"


class RunProgress:
    """Counts rows as they arrive and shows done/total, errors, rows in review, cost so far
    and an ETA."""

    def __init__(self, total: int, *, stream: IO[str] | None = None, tty: bool | None = None):
        self.total = total
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.errors = 0
        self.review = 0
        self.cost: float | None = 0.0
        self.started = time.monotonic()
        self._next_plain = max(1, total // 10)
        self._last_plain = self.started
        self._bar: Any = None
        if self.tty:
            self._start_bar()

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("run"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"),
            TextColumn("review {task.fields[review]}"),
            TextColumn("cost {task.fields[cost]}"),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(file=self.stream, highlight=False),
            transient=True,
        )
        self._task = self._bar.add_task(
            "run", total=self.total, errors=0, review=0, cost=_money(0.0)
        )
        self._bar.start()

    def eta_s(self) -> float | None:
        if not self.done:
            return None
        rate = (time.monotonic() - self.started) / self.done
        return rate * (self.total - self.done)

    def line(self) -> str:
        eta = self.eta_s()
        return (
            f"progress: {self.done}/{self.total} done, {self.errors} errors, "
            + (f"{self.review} in review, " if self.review else "")
            + f"cost {_money(self.cost)}, eta {'?' if eta is None else f'{eta:.0f}s'}"
        )

    def row(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.errors += row["status"] == "error"
        self.review += row["status"] == "review"
        c = row.get("cost_usd")
        if row.get("cached"):
            pass  # a cached answer costs nothing this time
        elif c is None and (row["status"] != "error" or row.get("usage")):
            self.cost = None  # one unknown price makes the total unknown
        elif c is not None and self.cost is not None:
            self.cost += c
        text = case_line(row)
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
            self._bar.update(
                self._task,
                completed=self.done,
                errors=self.errors,
                review=self.review,
                cost=_money(self.cost),
            )
            return
        self.stream.write(text + "\n")
        now = time.monotonic()
        if self.done % self._next_plain == 0 or now - self._last_plain >= 10:
            self._last_plain = now
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        """A line about the run as a whole (a batch's status), above the bar on a terminal."""
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
            return
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
