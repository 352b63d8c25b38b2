"""The Case type: reading one case file, its canonical form and its content hash."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Canonical key order: the fields people read first come first; the rest follow
# alphabetically. A stable order keeps review diffs to real changes.
KEY_ORDER = [
    "id",
    "category",
    "difficulty",
    "tags",
    "source",
    "question",
    "context",
    "retrieved",
    "expect",
    "checks",
    "reference",
    "known_wrong",
    "mutation_exempt",
    "human",
    "cluster",
    "note",
    "revealed",
]
EXPECT_ORDER = [
    "facts",
    "mentions",
    "must_not_contain",
    "sources",
    "abstain",
    "rubric",
    "max_words",
]


def _ordered(obj: dict[str, Any], order: list[str]) -> dict[str, Any]:
    rank = {k: i for i, k in enumerate(order)}
    return dict(sorted(obj.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def canonical_data(data: dict[str, Any]) -> dict[str, Any]:
    """The case with keys in canonical order (top level and `expect`)."""
    out = _ordered(data, KEY_ORDER)
    if isinstance(out.get("expect"), dict):
        out["expect"] = _ordered(out["expect"], EXPECT_ORDER)
    return out


def canonical_json(data: dict[str, Any]) -> str:
    """The one canonical text of a case: 2-space indent, UTF-8 unescaped, trailing newline."""
    return json.dumps(canonical_data(data), ensure_ascii=False, indent=2) + "\n"


def content_sha(data: dict[str, Any]) -> str:
    """SHA-256 of the canonical text: formatting changes do not change it, content changes do."""
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Case:
    """One validated case and where it came from."""

    data: dict[str, Any]
    path: Path | None = None
    sha: str = field(default="")

    def __post_init__(self) -> None:
        if not self.sha:
            object.__setattr__(self, "sha", content_sha(self.data))

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def question(self) -> str:
        return self.data["question"]

    @property
    def context(self) -> dict[str, Any]:
        return self.data.get("context", {})

    @property
    def retrieved(self) -> list[dict[str, str]]:
        return self.data.get("retrieved", [])

    @property
    def retrieved_refs(self) -> list[str]:
        return [p["ref"] for p in self.retrieved]

    @property
    def expect(self) -> dict[str, Any]:
        return self.data.get("expect", {})

    @property
    def category(self) -> str | None:
        return self.data.get("category")

    @property
    def cluster(self) -> str | None:
        """The cluster key for clustered errors: explicit, else the first expected source."""
        if "cluster" in self.data:
            return self.data["cluster"]
        sources = self.expect.get("sources") or []
        return sources[0] if sources else None


def read_json_file(path: Path) -> Any:
    """Parse a JSON file; raises ValueError with a readable reason (encoding, line, column)."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})"
        ) from None
    if text.startswith("\ufeff"):
        raise ValueError("starts with a byte-order mark; save as UTF-8 without BOM")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
