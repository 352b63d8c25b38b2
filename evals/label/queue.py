"""Which answers of a run a person is asked to label, in what order, and the line each writes."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from evals.run.precedents import answer_sha, reply_sha, whole_text

#: The queue's order: undecided answers first, then failures, then a sample of passes.
QUEUE_ORDER = ("review", "fail", "pass")
WHY_QUEUED = {
    "review": "the checks could not decide",
    "fail": "the checks failed it",
    "pass": "a spot check of a pass",
}


@dataclass(frozen=True)
class Item:
    """One answer to label: its run row and why it is in the queue."""

    row: dict[str, Any]
    queued: str  # review | fail | pass

    @property
    def case(self) -> str:
        return str(self.row["case"])

    @property
    def answer(self) -> str:
        """The answer as shown and labelled: a lone surrogate (bad bytes) made U+FFFD."""
        return whole_text(str(self.row["draft"]))


@dataclass(frozen=True)
class Queue:
    items: list[Item]
    #: Answers left out because a person already labelled them (the same normalised answer).
    already_labelled: int
    #: Rows left out because their case is no longer in the suite.
    unknown_case: int
    #: Passing rows not drawn into the sample.
    passes_not_sampled: int


def row_key(row: dict[str, Any]) -> tuple[str, str]:
    """(case, the sha of the reply as the checks read it), as a label of it is keyed."""

    def refs(field: str) -> list[str] | None:
        v = row.get(field)
        return [str(x) for x in v] if isinstance(v, list) else None

    abstained = row.get("abstained") if isinstance(row.get("abstained"), bool) else None
    sha = reply_sha(str(row["draft"]), refs("cited"), refs("retrieved"), abstained)
    return str(row["case"]), sha


def same_reply(record: Any, key: tuple[str, str]) -> bool:
    """Whether a labelled/*.jsonl record labels the reply `key` (a `row_key`) names."""
    if not isinstance(record, dict) or not isinstance(record.get("answer"), str):
        return False
    fields = {f: record.get(f) for f in ("cited", "retrieved")}
    refs = {f: [str(x) for x in v] if isinstance(v, list) else None for f, v in fields.items()}
    abstained = record.get("abstained") if isinstance(record.get("abstained"), bool) else None
    sha = reply_sha(record["answer"], refs["cited"], refs["retrieved"], abstained)
    return (str(record.get("case")), sha) == key


def build_queue(
    rows: list[dict[str, Any]],
    *,
    sample: int,
    seed: int,
    labelled: Collection[tuple[str, str, str | None]],
    case_ids: Collection[str],
) -> Queue:
    """Review rows first, then failures, then `sample` passes drawn with `seed`.

    Each reply (`row_key`: case, normalised answer, refs, abstention) comes once, and never
    when `labelled` (case, reply sha, the case sha the label is pinned to or None) already
    holds it for the case as the row's run asked it: the same answer labelled twice would
    count twice in calibration, while a label of an earlier version of the case decides
    nothing for this one. Errors have no verdict to check and rows without an answer nothing
    to label.
    """
    groups: dict[str, list[Item]] = {k: [] for k in QUEUE_ORDER}
    seen: set[tuple[str, str]] = set()
    already = unknown = 0
    ordered = sorted(rows, key=lambda r: (str(r.get("case")), int(r.get("epoch") or 0)))
    for row in ordered:
        status, draft = row.get("status"), row.get("draft")
        if status not in groups or not isinstance(draft, str) or not draft.strip():
            continue
        if row.get("case") not in case_ids:
            unknown += 1
            continue
        key = row_key(row)
        if (*key, row.get("case_sha")) in labelled or (*key, None) in labelled:
            already += key not in seen
            seen.add(key)
            continue
        if key in seen:
            continue
        seen.add(key)
        groups[status].append(Item(row, status))
    passes = groups["pass"]
    drawn = random.Random(seed).sample(passes, min(max(sample, 0), len(passes)))
    items = groups["review"] + groups["fail"] + drawn
    return Queue(items, already, unknown, len(passes) - len(drawn))


def label_record(
    item: Item, label: str, why: str, *, case_sha: str, run: str, by: str, at: datetime
) -> dict[str, Any]:
    """The labelled/*.jsonl line for one decision (see schemas/labelled.schema.json)."""
    row = item.row
    rec: dict[str, Any] = {
        "case": item.case,
        "answer": item.answer,
        "label": label,
        # The schema wants a reason; an empty box is recorded as such, not invented.
        "why": " ".join(whole_text(why).split()) or "no reason given",
        "case_sha": case_sha,
        "answer_sha": answer_sha(item.answer),
        "run": run,
        "by": by,
        "at": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    for field in ("cited", "retrieved"):
        if isinstance(row.get(field), list):
            rec[field] = [str(x) for x in row[field]]
    if isinstance(row.get("abstained"), bool):
        rec["abstained"] = row["abstained"]
    return rec
