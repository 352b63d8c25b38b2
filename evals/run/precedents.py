"""Labels as precedents: a person's verdict on an answer decides the same answer next time.

A precedent is keyed by the case's content sha and the sha of the reply as the checks read
it: the normalised answer and what the system reported beside it (the refs it cited and
retrieved, whether it abstained). Editing the case changes its sha, so every label given to
the old content stops deciding anything; the same text citing another passage, or no longer
abstaining, is another answer, which the label does not decide.
The row keeps every check's own result; the precedent is a separate field beside them.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.reply import Reply
from evals.suite.case import Case

# Half a UTF-16 pair: no character, and no UTF-8 form (a reply's bad bytes decoded loosely).
_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_text(text: str) -> str:
    """`text` with each lone surrogate made U+FFFD, as a page shows it and a file can hold it."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # in C: most texts have none, and some are megabytes long
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def normalise_answer(answer: str) -> str:
    """The answer as precedents compare it: NFC, runs of white space made one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", whole_text(answer)).split())


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


def reply_sha(
    answer: str,
    cited: Sequence[str] | None = None,
    retrieved: Sequence[str] | None = None,
    abstained: bool | None = None,
) -> str:
    """The SHA-256 of a reply as the checks read it: the normalised answer, the refs cited
    and retrieved (as sets; None when not reported) and the abstention flag (hex)."""

    def refs(xs: Sequence[str] | None) -> list[str] | None:
        return None if xs is None else sorted({str(x) for x in xs})

    key = [normalise_answer(answer), refs(cited), refs(retrieved), abstained]
    return hashlib.sha256(json.dumps(key, ensure_ascii=False).encode("utf-8")).hexdigest()


#: (case_sha, reply_sha) -> the label that decides that reply to that case content.
Precedents = Mapping[tuple[str, str], Precedent]


def case_reply_sha(
    case: Case,
    answer: str,
    cited: Sequence[str] | None,
    retrieved: Sequence[str] | None,
    abstained: bool | None,
) -> str:
    """`reply_sha` with the retrieval the checks read: the case's frozen passages when the
    system reported none (as the run row records it)."""
    return reply_sha(
        answer, cited, case.retrieved_refs if retrieved is None else retrieved, abstained
    )


def find(precedents: Precedents, case: Case, reply: Reply) -> Precedent | None:
    """The precedent for this reply to this case content, if a person labelled it."""
    if not precedents or reply.answer is None:
        return None
    key = case_reply_sha(case, reply.answer, reply.cited, reply.retrieved, reply.abstained)
    return precedents.get((case.sha, key))


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
