"""Labels as precedents: a person's verdict on an answer decides the same answer next time.

A precedent is keyed by the case's content sha and the sha of the normalised answer: editing
the case changes its sha, so every label given to the old content stops deciding anything.
The row keeps every check's own result; the precedent is a separate field beside them.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def normalise_answer(answer: str) -> str:
    """The answer as precedents compare it: NFC, runs of white space made one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", answer).split())


def answer_sha(answer: str) -> str:
    """The SHA-256 of the normalised answer (hex)."""
    return hashlib.sha256(normalise_answer(answer).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Precedent:
    """A person's label of one answer to one case content."""

    label: str  # pass | fail
    by: str | None
    at: str | None
    why: str
    #: Where the label is kept: `labelled/FILE.jsonl:LINE`.
    source: str
    #: The run the labelled answer came from, when the label says.
    run: str | None = None
    #: False for a label written without the case's sha: no edit of the case voids it.
    pinned: bool = True

    def to_json(self, checks_status: str, checks_score: float | None) -> dict[str, Any]:
        """The row's `precedent` field: the label, and what the checks alone decided."""
        return {
            "label": self.label,
            "by": self.by,
            "at": self.at,
            "why": self.why,
            "source": self.source,
            "run": self.run,
            "pinned": self.pinned,
            "checks_status": checks_status,
            "checks_score": checks_score,
        }


#: (case_sha, answer_sha) -> the label that decides that answer to that case content.
Precedents = Mapping[tuple[str, str], Precedent]


def find(precedents: Precedents, case_sha: str, answer: str | None) -> Precedent | None:
    """The precedent for this answer to this case content, if a person labelled it."""
    if not precedents or answer is None:
        return None
    return precedents.get((case_sha, answer_sha(answer)))


def decided_by(precedent: Mapping[str, Any]) -> str:
    """`decided by a label (ana, 2026-12-01T15:02:11Z)`: how reports name a precedent."""
    who = precedent.get("by") or "unknown"
    when = precedent.get("at") or "undated"
    return f"decided by a label ({who}, {when})"


def label_counts(rows: list[dict[str, Any]]) -> dict[str, int] | None:
    """Rows decided by a label, apart from the checks: how many, their verdicts, and on how
    many the checks alone had said otherwise; None when no row was decided by one."""
    decided = [r for r in rows if isinstance(r.get("precedent"), dict)]
    if not decided:
        return None
    out = {"n": len(decided), "pass": 0, "fail": 0, "checks_disagreed": 0}
    for r in decided:
        p = r["precedent"]
        out["pass" if p.get("label") == "pass" else "fail"] += 1
        if p.get("checks_status") != p.get("label"):
            out["checks_disagreed"] += 1
    return out


def label_counts_line(counts: Mapping[str, int]) -> str:
    """`decided by a label: 3 case(s) (2 pass, 1 fail); the checks alone said otherwise on 2`."""
    return (
        f"decided by a label: {counts['n']} case(s) ({counts['pass']} pass, {counts['fail']} "
        f"fail); the checks alone said otherwise on {counts['checks_disagreed']}"
    )
