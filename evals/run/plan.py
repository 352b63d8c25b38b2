"""What shapes a run: the immutable plan a command builds, and what a run returns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from evals.checks import CheckResult
from evals.providers.base import Provider
from evals.providers.batch import COMPLETION_WINDOW, ENDPOINT
from evals.reply import Reply
from evals.run.files import read_run
from evals.run.precedents import Precedents
from evals.suite.case import Case
from evals.suite.folder import Suite

#: The most epochs a run may have (`--epochs`, and a run file's header on resume): every
#: (case, epoch) pair is planned up front, so an absurd count would exhaust memory before a
#: single request; past a hundred attempts per case the noise figures change no more.
MAX_EPOCHS = 100


class Grader(Protocol):
    """A check that needs I/O (the LLM judge): runs after the deterministic checks."""

    #: The check name it produces, e.g. "judge"; it runs for cases whose checks list it.
    name: str

    def applies_to(self, case: Case) -> bool:
        """Whether this case gets the check (listed in its checks, or a suite-wide rule)."""
        ...

    def stamp(self) -> dict[str, Any]:
        """What the run header records under `judge`."""
        ...

    async def grade(self, case: Case, reply: Reply) -> tuple[CheckResult, dict[str, Any]]:
        """The check's result plus fields to add to the row (e.g. the verdict)."""
        ...

    async def decide(
        self, case: Case, reply: Reply, results: dict[str, CheckResult]
    ) -> tuple[dict[str, CheckResult], dict[str, Any]]:
        """The results with what the checks left in review decided, item by item, and the
        row fields that record it: `judge_questions`, `usage`, `cost_usd`."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class Resumed:
    """An interrupted run to continue: its file, header and the rows kept from it."""

    path: Path
    header: dict[str, Any]
    rows: list[dict[str, Any]]
    #: The run's `batch` records (a batch run): a batch still open is collected, not re-sent.
    batches: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class BatchSettings:
    """`--batch`: the answers come from one provider batch instead of live requests."""

    #: The first wait between status checks, doubled after each up to `poll_max_s`.
    poll_s: float = 5.0
    poll_max_s: float = 60.0
    #: The price table's batch_discount for the model (None: costs at the live price).
    discount: float | None = None

    def stamp(self) -> dict[str, Any]:
        """What the run header records under settings.batch."""
        return {
            "endpoint": ENDPOINT,
            "completion_window": COMPLETION_WINDOW,
            "discount": self.discount,
        }


@dataclass(frozen=True)
class RunPlan:
    """Everything that shapes a run, fixed before it starts; all of it is stamped in the header."""

    suite: Suite
    #: In id order; a `CaseList` reads each case from its file when it is reached.
    cases: Sequence[Case]
    provider: Provider
    runs_dir: Path
    root: Path
    label: str | None = None
    concurrency: int = 8
    #: Processes that run the deterministic checks (`run/pool.py`); the results do not
    #: depend on it, so it is not stamped.
    workers: int = 1
    epochs: int = 1
    settings: dict[str, Any] = field(default_factory=dict)
    #: The LLM judge, when --judge is given.
    grader: Grader | None = None
    #: Merged into the header (e.g. the sealed pile's digest).
    header_extra: dict[str, Any] = field(default_factory=dict)
    #: Applied to each row before it is written or shown (sealed runs strip all case text).
    row_filter: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: Store and print only the kind of a provider failure (HTTP 401, timeout), never the
    #: provider's own message, which could quote the case (a sealed run turns this on).
    withhold_provider_text: bool = False
    #: Answers are read from and written to the cache (a sealed run turns this off).
    use_cache: bool = True
    cache_path: Path | None = None
    #: USD per million tokens by model id ([tool.evals.prices]).
    prices: dict[str, Any] = field(default_factory=dict)
    #: --max-cost: no new case starts once the estimate would pass it.
    max_cost: float | None = None
    #: --resume: the run file to continue.
    resume: Resumed | None = None
    #: --batch: send the requests as one provider batch (an OpenAI-compatible endpoint only).
    batch: BatchSettings | None = None
    #: --resend: how often an attempt that ended in a transient error (a timeout, HTTP 429 or
    #: 5xx, a dropped connection) is sent again before it is written as an error row.
    resend: int = 2
    #: The wait before the first re-send, doubled before each next one.
    resend_wait_s: float = 1.0
    #: Selected cases not run because only a check this run does not grade (the judge,
    #: without --judge) would score them: named in the header and the summary.
    left_out: tuple[str, ...] = ()
    #: People's labels of answers (the suite's `labelled/`): an answer a person labelled for
    #: the same case content takes that verdict; its checks still run and are kept.
    precedents: Precedents = field(default_factory=dict)


def _row_key(row: dict[str, Any]) -> tuple[str, int]:
    return (str(row["case"]), int(row.get("epoch", 0)))


class WrittenRows(Sequence[dict[str, Any]]):
    """The case rows of a run file, read from the file when they are asked for.

    A run keeps counts, not its rows (a run of 100,000 cases held 2 KB per row): the file
    holds every row as written, so reading it back gives exactly what was written. `len`
    and the first failed and in-review rows (by case id, for the hints after a run) come
    without reading the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        #: The failed or errored row, and the row in review, with the smallest (case, epoch).
        self.first_bad: dict[str, Any] | None = None
        self.first_review: dict[str, Any] | None = None
        self._read: list[dict[str, Any]] | None = None

    def note(self, row: dict[str, Any]) -> None:
        """Count one row as written."""
        self.count += 1
        self._read = None
        status = row.get("status")
        if status in ("fail", "error"):
            if self.first_bad is None or _row_key(row) < _row_key(self.first_bad):
                self.first_bad = row
        elif status == "review" and (
            self.first_review is None or _row_key(row) < _row_key(self.first_review)
        ):
            self.first_review = row

    def _rows(self) -> list[dict[str, Any]]:
        if self._read is None:
            self._read = read_run(self.path).rows
        return self._read

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: Any) -> Any:
        return self._rows()[i]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._rows())

    def __add__(self, other: Any) -> list[dict[str, Any]]:
        return [*self, *other]


@dataclass
class RunResult:
    """A finished run: its file, header, rows and summary.

    Its repr names the file only. asyncio's Runner repr()s the run's task, result included,
    when it puts the Ctrl-C handler back; a repr of every row took a third of a second per
    thousand cases."""

    path: Path
    header: dict[str, Any] = field(repr=False)
    rows: Sequence[dict[str, Any]] = field(repr=False)
    summary: dict[str, Any] = field(repr=False)
    #: Why the run file stopped taking rows (a full disk), when it did.
    write_error: str | None = None


RowCallback = Callable[[dict[str, Any]], None]
