"""A large run read for its report: rows past the first few thousand kept in brief.

A report of a run with more than FULL_ROWS rows shows its errors, cases in review and
failures in full (the first FULL_ROWS of them, lowest score first: what a person reads)
and every other row, the passes first of all, in brief: its id, category, status, score
and failing checks, one short JSON array each, which the page lists, filters and sorts
like the others. Passing rows are reduced to their brief as they are read, so memory holds
its JSON text per pass instead of the row (100,000 rows held whole took 30 KB each, and
their page was 300 MB; held as lists of values, 300 bytes each).
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.numfmt import fmt_num
from evals.report.data import failing_checks, review_names, row_label
from evals.report.page import script_json
from evals.report.safe import terminal_value
from evals.run.tally import Tally
from evals.suite.jsonl import parse_record

#: Rows a report shows in full; the rest are listed in brief.
FULL_ROWS = 2000


def row_count(path: Path) -> int:
    """Lines of a run file beyond its header and summary: its rows, near enough to choose
    how to read it; counted in chunks, nothing parsed."""
    n = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            n += chunk.count(b"\n")
    return max(0, n - 2)


def _epochs(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        try:
            header = parse_record(fh.readline())
        except ValueError:
            return 1
    settings = header.get("settings") if isinstance(header, dict) else None
    epochs = settings.get("epochs") if isinstance(settings, dict) else None
    return epochs if isinstance(epochs, int) and epochs > 0 else 1


def brief_of(row: dict[str, Any], epochs: int) -> list[Any]:
    """[label, category, status, score, score as shown, failing names, n failing, by a label]."""
    failed, errored = failing_checks(row)
    score = row.get("score")
    return [
        row_label(row, epochs),
        row.get("category") or "",
        str(row.get("status")),
        score if isinstance(score, int | float) else None,
        fmt_num(score if isinstance(score, int | float) else None),
        " ".join(failed + errored + review_names(row)),
        len(failed) + len(errored),
        1 if isinstance(row.get("precedent"), dict) else 0,
    ]


def _order(b: list[Any]) -> tuple[Any, ...]:
    return (-1 if b[3] is None else b[3], b[0])


def _plain(label: str) -> bool:
    """Whether `label` stands in its page's JSON text as it is (no escape: ASCII, no `\\`,
    `<`, `>`, `&`) and every character sorts after the closing quote: then texts that start
    with it sort as the labels do."""
    return all("\x22" < ch < "\x7f" and ch not in "\\<>&" for ch in label)


def _label_of(text: str) -> str:
    return json.loads(text)[0]


def _by_label(texts: list[str], plain: bool) -> list[str]:
    """Briefs of one score in the order of their labels (equal labels as they came)."""
    if plain:
        ordered = sorted(texts)  # the label leads the text: no key per row to hold
        if not _repeats(ordered):
            return ordered
    return sorted(texts, key=_label_of)


def _repeats(ordered: list[str]) -> bool:
    """Whether two neighbours share a label (their order then falls to the rest of the text)."""
    prev = None
    for t in ordered:
        label = t[: t.index('"', 2)]
        if label == prev:
            return True
        prev = label
    return False


@dataclass
class Briefs:
    """What a large run's report keeps of its rows: passes in brief, and the run's figures
    (the summary as a tally, every row's latency) for the numbers the page prints."""

    epochs: int
    #: Each pass's brief as the page's JSON text, by its score (-1: none).
    passes: dict[Any, list[str]] = field(default_factory=dict)
    #: Every pass's label sorts as its text does (`_plain`).
    plain: bool = True
    latencies: array[float] = field(default_factory=lambda: array("d"))
    n: int = 0
    tally: Tally = field(default_factory=Tally)

    def keep(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The row made terminal-safe when it is kept whole; None for a pass, kept in brief."""
        row = terminal_value(row)
        self.n += 1
        self.tally.add(row)
        lat = row.get("latency_ms")
        if isinstance(lat, int | float):
            self.latencies.append(float(lat))
        if row.get("status") != "pass" or row.get("needs_review"):
            return row  # a pass the judge flagged is listed by `--review`: kept whole
        brief = brief_of(row, self.epochs)
        self.plain = self.plain and _plain(brief[0])
        self.passes.setdefault(_order(brief)[0], []).append(script_json(brief))
        return None

    @property
    def n_passes(self) -> int:
        return sum(len(texts) for texts in self.passes.values())

    def listed(self, rest: list[dict[str, Any]]) -> list[str]:
        """Every row not shown in full as its JSON text, in the page's order: the kept rows
        past FULL_ROWS (already in order), then the passes, lowest score first, by label."""
        out = [script_json(brief_of(r, self.epochs)) for r in rest]
        for score in sorted(self.passes):
            out += _by_label(self.passes[score], self.plain)
        return out


def briefs_for(path: Path) -> Briefs | None:
    """A Briefs to read the run with when it has more than FULL_ROWS rows, else None."""
    if row_count(path) <= FULL_ROWS:
        return None
    epochs = _epochs(path)
    return Briefs(epochs, tally=Tally(per_case=epochs > 1))
