"""Writing case files: canonical formatting and new case skeletons. Never overwrites by accident."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.suite.case import canonical_json, parse_json_text
from evals.suite.folder import Suite, link_problem

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
MAX_ID_LEN = 120  # as in schemas/case.schema.json


@dataclass(frozen=True)
class FmtResult:
    changed: list[Path]
    unreadable: list[Problem]


def format_cases(suite: Suite, *, check: bool, paths: list[Path] | None = None) -> FmtResult:
    """Rewrite case files in canonical form (or, with `check`, only list those that differ)."""
    changed: list[Path] = []
    unreadable: list[Problem] = []
    for path in paths if paths is not None else suite.case_files():
        linked = link_problem(path)
        if linked:  # never read through, never replaced by a copy of its target
            unreadable.append(linked)
            continue
        try:
            if path.is_dir():
                raise ValueError("is a directory, not a case file")
            raw = path.read_bytes()
            data = parse_json_text(raw)
        except ValueError as exc:
            unreadable.append(Problem(str(path), "", str(exc)))
            continue
        except OSError as exc:
            unreadable.append(Problem(str(path), "", f"cannot read: {exc.strerror or exc}"))
            continue
        if not isinstance(data, dict):
            unreadable.append(Problem(str(path), "", "not a JSON object"))
            continue
        text = canonical_json(data).encode("utf-8")
        if raw != text:
            if not check:
                try:
                    _replace(path, text)
                except OSError as exc:
                    unreadable.append(Problem(str(path), "", f"cannot write: {exc.strerror}"))
                    continue
            changed.append(path)
    return FmtResult(changed, unreadable)


def _replace(path: Path, text: bytes) -> None:
    """Write beside the file, then rename over it: a crash never leaves half a case."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(text)
        tmp.replace(path)
    except OSError:
        if tmp.is_file():
            tmp.unlink()
        raise


def skeleton(case_id: str) -> dict[str, Any]:
    """A valid case to start from: every field a reviewer expects, with placeholder text."""
    return {
        "id": case_id,
        "category": "general",
        "difficulty": "medium",
        "source": "where this case came from (ticket number, date)",
        "question": "The user's question, as they wrote it.",
        "retrieved": [{"ref": "doc#section", "text": "The passage retrieval returns for it."}],
        "expect": {"facts": ["a phrase the answer must contain"], "sources": ["doc#section"]},
        "reference": "A known-good answer that states a phrase the answer must contain [doc:doc#section].",
        "known_wrong": [{"draft": "An answer that is wrong.", "why": "Why it is wrong."}],
    }


def _leaves(value: Any, at: str = "") -> list[tuple[str, str]]:
    """(JSON pointer, text) of every string inside `value`."""
    if isinstance(value, str):
        return [(at, value)]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _leaves(v, f"{at}/{k}")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _leaves(v, f"{at}/{i}")]
    return []


#: The skeleton's placeholder texts (its id and its plain category aside): a case still
#: holding one was written by `invoke new` and not filled in.
_PLACEHOLDERS = frozenset(
    text for at, text in _leaves(skeleton("x")) if at not in ("/id", "/category", "/difficulty")
)


def placeholders_left(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(JSON pointer, text) of each skeleton placeholder still in a case."""
    return [(at, text) for at, text in _leaves(data) if text in _PLACEHOLDERS]


def write_new_case(suite: Suite, case_id: str) -> Path:
    """Write a skeleton to cases/ID.json; refuses a bad id or an existing file."""
    if not ID_RE.match(case_id):
        raise InputError(f"case id {case_id!r}: use lower-case letters, digits, '.', '_', '-'")
    if len(case_id) > MAX_ID_LEN:
        raise InputError(f"case id {case_id[:20]!r}...: at most {MAX_ID_LEN} characters")
    path = suite.cases_dir / f"{case_id}.json"
    try:
        suite.cases_dir.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(canonical_json(skeleton(case_id)))
    except FileExistsError:
        raise InputError([Problem(str(path), "", "already exists; not overwritten")]) from None
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot write: {exc.strerror}")]) from None
    return path
