"""The Case type: reading one case file, its canonical form and its content hash."""

from __future__ import annotations

import hashlib
import json
import re
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
    "messages",
    "question",
    "context",
    "retrieved",
    "expect",
    "checks",
    "reference",
    "known_wrong",
    "known_right",
    "mutation_exempt",
    "human",
    "cluster",
    "note",
    "revealed",
]
EXPECT_ORDER = [
    "facts",
    "figures",
    "mentions",
    "must_not_contain",
    "forbidden_figures",
    "sources",
    "may_cite",
    "abstain",
    "claim_support",
    "language",
    "rubric",
    "max_words",
    "register",
    "dropped_condition",
    "own_action",
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


#: What grading reads of a case: the content sha covers these fields and nothing else.
GRADED_FIELDS = ("question", "messages", "context", "retrieved", "expect", "checks")


def content_sha(data: dict[str, Any]) -> str:
    """SHA-256 of the canonical text of what grading reads (GRADED_FIELDS): formatting
    changes do not change it, and neither does metadata no check reads (`category`, `tags`,
    `difficulty`, `note`, `source`, `cluster`, the reference and drafts, `revealed`), so
    editing those keeps a case's comparisons and labels; any change to what is graded does."""
    test = {k: data[k] for k in GRADED_FIELDS if k in data}
    return hashlib.sha256(canonical_json(test).encode("utf-8")).hexdigest()


def whole_case_sha(data: dict[str, Any]) -> str:
    """SHA-256 of the canonical text of every field but `revealed`: the content sha of
    manifests written before the content sha covered only GRADED_FIELDS, and the key of a
    suite's own checks, which may read any field."""
    test = {k: v for k, v in data.items() if k != "revealed"}
    return hashlib.sha256(canonical_json(test).encode("utf-8")).hexdigest()


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
    def messages(self) -> list[dict[str, str]]:
        """The turns before the final user message (`question`), oldest first; empty for a
        single ticket."""
        return self.data.get("messages", [])

    @property
    def turns(self) -> list[dict[str, str]]:
        """Every turn of the conversation, ending with the final user message."""
        return [*self.messages, {"role": "user", "content": self.question}]

    @property
    def user_texts(self) -> tuple[str, ...]:
        """What the customer wrote, in every turn: their own figures need no citation."""
        earlier = (m["content"] for m in self.messages if m.get("role") == "user")
        return (*earlier, self.question)

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


# Byte-order marks of the encodings people most often save JSON in by mistake.
_BOMS = [
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"),
    (b"\xff\xfe", "UTF-16"),
]
# A `\uD800`-style escape: JSON allows it, but it is no character and cannot be saved as UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object hook that refuses a repeated key: the first copy would be silently lost."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    pass


def parse_json_text(raw: bytes) -> Any:
    """Parse the bytes of a JSON file; raises ValueError with a readable reason."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise ValueError(f"{name} text (byte-order mark); save it as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})"
        ) from None
    if text.startswith("\ufeff"):
        raise ValueError("starts with a byte-order mark; save as UTF-8 without BOM")
    if not text.strip():
        raise ValueError("empty file: expected a JSON object")
    return parse_json_value(text)


def parse_json_value(text: str) -> Any:
    """Parse JSON text strictly: no NaN, no repeated key, no half characters, no crash."""
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except _DuplicateKey as exc:
        raise ValueError(f"invalid JSON: key {exc.args[0]!r} appears twice in one object") from None
    except ValueError as exc:  # NaN, or an integer with thousands of digits
        reason = str(exc).split(";")[0].split(":")[0]
        raise ValueError(f"invalid JSON: {reason}") from None
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        raise ValueError("invalid JSON: a \\u escape encodes half a character (lone surrogate)")
    return data


def read_json_file(path: Path) -> Any:
    """Parse a JSON file; raises ValueError with a readable reason (encoding, line, column)."""
    if path.is_dir():
        raise ValueError("is a directory, not a case file")
    return parse_json_text(path.read_bytes())
