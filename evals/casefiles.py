"""Writing case files: canonical formatting and new case skeletons. Never overwrites by accident."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.case import canonical_json, read_json_file
from evals.errors import InputError, Problem
from evals.suite import Suite

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class FmtResult:
    changed: list[Path]
    unreadable: list[Problem]


def format_cases(suite: Suite, *, check: bool, paths: list[Path] | None = None) -> FmtResult:
    """Rewrite case files in canonical form (or, with `check`, only list those that differ)."""
    changed: list[Path] = []
    unreadable: list[Problem] = []
    for path in paths if paths is not None else suite.case_files():
        try:
            data = read_json_file(path)
        except (ValueError, OSError) as exc:
            unreadable.append(Problem(str(path), "", str(exc)))
            continue
        if not isinstance(data, dict):
            unreadable.append(Problem(str(path), "", "not a JSON object"))
            continue
        text = canonical_json(data)
        if path.read_bytes() != text.encode("utf-8"):
            changed.append(path)
            if not check:
                tmp = path.with_suffix(".json.tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(path)  # atomic: a crash never leaves half a case
    return FmtResult(changed, unreadable)


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


def write_new_case(suite: Suite, case_id: str) -> Path:
    """Write a skeleton to cases/ID.json; refuses a bad id or an existing file."""
    if not ID_RE.match(case_id):
        raise InputError(f"case id {case_id!r}: use lower-case letters, digits, '.', '_', '-'")
    path = suite.cases_dir / f"{case_id}.json"
    suite.cases_dir.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(canonical_json(skeleton(case_id)))
    except FileExistsError:
        raise InputError([Problem(str(path), "", "already exists; not overwritten")]) from None
    return path
