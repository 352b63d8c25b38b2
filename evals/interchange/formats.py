"""How each outside golden-set format maps onto a case: one function each."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evals.suite.case import KEY_ORDER

# Optional fields every format may carry, copied as they are (the validator checks them).
COMMON = {"category", "difficulty", "tags", "context", "source", "note", "cluster"}

DIFFICULTY = {
    "easy": "easy",
    "simple": "easy",
    "basic": "easy",
    "low": "easy",
    "1": "easy",
    "medium": "medium",
    "moderate": "medium",
    "intermediate": "medium",
    "normal": "medium",
    "mid": "medium",
    "2": "medium",
    "hard": "hard",
    "difficult": "hard",
    "challenging": "hard",
    "advanced": "hard",
    "high": "hard",
    "3": "hard",
}
# Spreadsheets say yes/no in their users' languages too (ja/nein, oui/non, sí/no).
TRUE = {"true", "yes", "y", "1", "t", "ja", "oui", "si", "sí", "x"}
FALSE = {"false", "no", "n", "0", "f", "nein", "non", "-"}


@dataclass
class Mapped:
    """One input record as a case, plus what did not map and what went wrong."""

    line: int
    raw_id: str | None
    data: dict[str, Any]
    unknown: dict[str, Any] = field(default_factory=dict)
    remarks: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (field, message)
    answer: dict[str, Any] | None = None  # a replay line, for formats with saved answers


def text_list(value: Any, split: str | None = None) -> list[str] | None:
    """A list of non-empty strings from a list or a string (split on `split`); None if neither."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        parts = value.split(split) if split else [value]
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    return None


def parse_bool(value: Any) -> bool | None | str:
    """True/False from common spellings; None when empty; the value itself when unreadable."""
    if isinstance(value, bool) or value is None:
        return value
    s = str(value).strip().lower()
    if s == "":
        return None
    if s in TRUE:
        return True
    if s in FALSE:
        return False
    return str(value)


def _take_list(m: Mapped, rec: dict[str, Any], key: str, split: str | None = None) -> list[str]:
    items = text_list(rec.pop(key, None), split)
    if items is None:
        m.problems.append((key, "must be a string or a list of strings"))
        return []
    return items


def _common(m: Mapped, rec: dict[str, Any]) -> None:
    """Copy the shared optional fields; map difficulty spellings; keep reference/answer."""
    for key in sorted(COMMON & set(rec)):
        value = rec.pop(key)
        if value in (None, "", []):
            continue
        if key == "difficulty":
            mapped = DIFFICULTY.get(str(value).strip().lower())
            if mapped is None:
                m.unknown["difficulty"] = value
                m.remarks.append(f"difficulty {value!r} is not easy|medium|hard: kept in note")
                continue
            value = mapped
        m.data[key] = value
    reference, answer = rec.pop("reference", None), rec.pop("answer", None)
    if reference and answer and reference != answer:
        m.unknown["answer"] = answer
    if reference or answer:
        m.data["reference"] = reference or answer


def _turns(m: Mapped, value: Any) -> list[dict[str, str]]:
    """Chat turns `[{"role": "user"|"assistant", "content"}]`; a problem for anything else."""
    if not isinstance(value, list) or not value:
        m.problems.append(("messages", "must be a non-empty list of {role, content} turns"))
        return []
    out = []
    for i, t in enumerate(value):
        if (
            not isinstance(t, dict)
            or t.get("role") not in ("user", "assistant")
            or not isinstance(t.get("content"), str)
            or not t["content"].strip()
        ):
            m.problems.append(
                (f"messages/{i}", 'must be {"role": "user"|"assistant", "content": text}')
            )
            continue
        out.append({"role": t["role"], "content": t["content"]})
    return out


def _start(line: int, rec: dict[str, Any], id_key: str) -> Mapped:
    """The id and the question; a conversation's `messages` give its earlier turns (and the
    question, when the record has none, as their last user turn)."""
    raw_id = rec.pop(id_key, None)
    m = Mapped(line, None if raw_id in (None, "") else str(raw_id), {})
    question = rec.pop("question", None)
    turns = _turns(m, rec.pop("messages")) if "messages" in rec else []
    if question in (None, "") and turns and turns[-1]["role"] == "user":
        question = turns.pop()["content"]
    elif turns and turns[-1] == {"role": "user", "content": question}:
        turns.pop()  # the log recorded the question as the last turn as well
    if not isinstance(question, str) or not question.strip():
        m.problems.append(("question", "required, a non-empty string"))
    else:
        m.data["question"] = question
    if turns:
        m.data["messages"] = turns
    return m


def map_golden(line: int, record: dict[str, Any]) -> Mapped:
    """`id, question, expected_facts, must_not_contain, source_id` (+ answer/reference)."""
    rec = dict(record)
    m = _start(line, rec, "id")
    expect = {
        "facts": _take_list(m, rec, "expected_facts"),
        "must_not_contain": _take_list(m, rec, "must_not_contain"),
        "sources": _take_list(m, rec, "source_id"),
    }
    m.data["expect"] = {k: v for k, v in expect.items() if v}
    _common(m, rec)
    m.unknown.update(rec)
    return m


def _adversarial(m: Mapped, rec: dict[str, Any]) -> bool:
    """An adversarial row (a made-up place, a trick question): its category says so, or an
    `adversarial` flag does. The right answer there declines to invent."""
    flag = parse_bool(rec.pop("adversarial", None))
    if isinstance(flag, str):
        m.problems.append(("adversarial", f"{flag!r} is not true/false/yes/no/1/0"))
        return False
    category = rec.get("category")
    named = isinstance(category, str) and "adversarial" in category.lower()
    return bool(flag) if flag is not None else named


def map_rubric(line: int, record: dict[str, Any]) -> Mapped:
    """`question, rubric, expected_destinations, difficulty, category`.

    Destinations are what retrieval should bring back (the travel format scores them as
    retrieval recall), so they become `expect.sources`, scored by `retrieval_recall` against
    the refs a system reports retrieving; they are not words the answer must contain.
    Adversarial rows become hand-over cases (`expect.abstain`): the right answer declines.
    """
    rec = dict(record)
    m = _start(line, rec, "id")
    expect: dict[str, Any] = {"sources": _take_list(m, rec, "expected_destinations")}
    rubric = rec.pop("rubric", None)
    if isinstance(rubric, list) and all(isinstance(r, str) for r in rubric):
        rubric = "\n".join(f"- {r}" for r in rubric)
    if rubric not in (None, ""):
        if isinstance(rubric, str):
            expect["rubric"] = rubric
        else:
            m.problems.append(("rubric", "must be a string or a list of strings"))
    if _adversarial(m, rec):
        expect["abstain"] = True
        m.remarks.append("adversarial: a hand-over case (expect.abstain), the answer must decline")
    m.data["expect"] = {k: v for k, v in expect.items() if v}
    _common(m, rec)
    m.unknown.update(rec)
    return m


def map_case(line: int, record: dict[str, Any]) -> Mapped:
    """Our own case objects (what `invoke export` writes): taken as they are."""
    rec = dict(record)
    m = Mapped(line, None if rec.get("id") in (None, "") else str(rec.get("id")), {})
    known = set(KEY_ORDER)
    m.data = {k: v for k, v in rec.items() if k in known and k != "id"}
    m.unknown = {k: v for k, v in rec.items() if k not in known}
    return m


CSV_CASE_COLUMNS = {"case_id", "question", "expected_chunk_ids", "required_points"}
CSV_ANSWER_COLUMNS = {
    "candidate_answer",
    "cited_chunk_ids",
    "candidate_abstains",
    "retrieved_chunk_ids",
}
CSV_COLUMNS = (
    CSV_CASE_COLUMNS | CSV_ANSWER_COLUMNS | {"should_abstain", "reference", "answer"} | COMMON
)
_ID_LIST = re.compile(r"[|,;\s]+")


def _ids(value: str | None) -> list[str]:
    return [p for p in _ID_LIST.split(value or "") if p]


def map_csv_row(
    line: int, record: dict[str, Any], chunks: dict[str, dict[str, str]] | None
) -> Mapped:
    """`case_id, question, expected_chunk_ids, required_points, should_abstain` + saved answers."""
    rec = {k: v for k, v in record.items()}
    m = _start(line, rec, "case_id")
    expect: dict[str, Any] = {"facts": _take_list(m, rec, "required_points", "|")}
    abstain = parse_bool(rec.pop("should_abstain", None))
    if isinstance(abstain, str):
        m.problems.append(("should_abstain", f"{abstain!r} is not true/false/yes/no/1/0"))
    elif abstain is not None:
        expect["abstain"] = abstain
    chunk_ids = _ids(rec.pop("expected_chunk_ids", None))
    # What the system retrieved when it wrote the saved answer, best first: the case's frozen
    # retrieval, so that its citation checks run (an unanswerable case has no expected chunk,
    # and its answer may still cite what was retrieved).
    ranked = _ids(rec.get("retrieved_chunk_ids"))
    passages = list(dict.fromkeys([*ranked, *chunk_ids]))
    if passages:
        if chunks is None:
            if chunk_ids:  # without the chunks file, retrieved ids stay in the replay file only
                m.problems.append(
                    ("expected_chunk_ids", "the passages are unknown: pass --chunks FILE")
                )
        else:
            for column, ids in (("retrieved_chunk_ids", ranked), ("expected_chunk_ids", chunk_ids)):
                missing = [c for c in ids if c not in chunks]
                if missing:
                    m.problems.append((column, f"not in the chunks file: {', '.join(missing)}"))
            m.data["retrieved"] = [chunks[c] for c in passages if c in chunks]
    # An answer that rightly declines cites nothing, so sources are required only otherwise.
    if chunk_ids and abstain is not True:
        expect["sources"] = chunk_ids
    m.data["expect"] = {k: v for k, v in expect.items() if v not in ([], None)}
    m.answer = _answer_line(m, rec)
    _common(m, rec)
    m.unknown.update({k: v for k, v in rec.items() if v not in (None, "")})
    return m


def _answer_line(m: Mapped, rec: dict[str, Any]) -> dict[str, Any] | None:
    """A replay line from the saved-answer columns; None when the row has no saved answer."""
    answer = rec.pop("candidate_answer", None)
    cited = rec.pop("cited_chunk_ids", None)
    retrieved = rec.pop("retrieved_chunk_ids", None)
    abstained = parse_bool(rec.pop("candidate_abstains", None))
    if isinstance(abstained, str):
        m.problems.append(("candidate_abstains", f"{abstained!r} is not true/false/yes/no/1/0"))
        abstained = None
    if answer in (None, "") and abstained is None:
        return None
    line: dict[str, Any] = {"case": None, "answer": answer or ""}
    if cited not in (None, ""):
        line["cited"] = _ids(cited)
    if retrieved not in (None, ""):
        line["retrieved"] = _ids(retrieved)
    if abstained is not None:
        line["abstained"] = abstained
    return line


def unknown_note(existing: Any, unknown: dict[str, Any]) -> str:
    """The case's note with the unmapped input fields appended as JSON."""
    text = json.dumps(unknown, ensure_ascii=False, sort_keys=True)
    extra = f"imported as given (no case field, or changed on import): {text}"
    return f"{existing}\n{extra}" if isinstance(existing, str) and existing else extra


MAPPERS: dict[str, Callable[[int, dict[str, Any]], Mapped]] = {
    "golden": map_golden,
    "rubric": map_rubric,
    "case": map_case,
}
