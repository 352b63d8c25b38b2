"""Strings from run files made safe to show: ids checked against their rule, text escaped.

A run file is input: a case id, run id, check name, category, label or model id in it may
hold Markdown or HTML meant to break out of a table cell or a code span (a pasted report
is rendered by GitHub). Ids must match their rule or are shown as a placeholder derived
from their hash (stable, distinct, and itself a valid id); every other string is one line
with each markup character escaped.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

# The case-id rule of schemas/case.schema.json; run ids are run-file stems.
CASE_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
CASE_ID_MAX, RUN_ID_MAX = 120, 200

# Characters GitHub Markdown reads as markup: a table cell split (|), emphasis, code spans,
# links and images (with `[` escaped, `![t](u)` is no image), raw HTML (`<!--` in a
# question would hide the rest of the report) and entities.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
# `@name` and `#123` would notify people and link issues; as code they do not.
_GH_REFS = re.compile(r"(?<![\w/])([@#][A-Za-z0-9][\w-]*)")
# Bare URLs and www. names become links on GitHub; an escaped colon or dot keeps them text.
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto)(:)|\b(www)(\.)")
# Bidirectional overrides can make text read differently from what it is.
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), "?")


def _placeholder(kind: str, value: object) -> str:
    digest = hashlib.sha256(str(value).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"invalid-{kind}-{digest}"


def shown_case_id(value: object) -> str:
    """The case id itself when it follows the case-id rule, else `invalid-id-<hash>`."""
    if isinstance(value, str) and len(value) <= CASE_ID_MAX and CASE_ID.fullmatch(value):
        return value
    return _placeholder("id", value)


def shown_run_id(value: object) -> str:
    """The run id itself when it is a plain file stem, else `invalid-run-id-<hash>`."""
    if isinstance(value, str) and len(value) <= RUN_ID_MAX and RUN_ID.fullmatch(value):
        return value
    return _placeholder("run-id", value)


def _control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def one_line(text: object, width: int | None = None) -> str:
    """One line: whitespace runs collapsed, control and bidi-override characters replaced,
    long text shortened to `width` with an ellipsis."""
    text = str(text)
    if not text.isprintable():  # rare: keep the common path to one C-level check
        text = "".join(" " if ch.isspace() else "?" if _control(ch) else ch for ch in text)
    line = " ".join(text.translate(_BIDI).split())
    if width is not None and len(line) > width:
        return line[: width - 1] + "…"
    return line


def md_text(text: object, width: int | None = None) -> str:
    """Text for any Markdown position (heading, table cell, list item): one line, shortened,
    then every markup character escaped, mentions made code and bare URLs unlinked."""
    escaped = _MD_SPECIAL.sub(r"\\\1", one_line(text, width))
    escaped = _AUTOLINK.sub(lambda m: f"{m[1] or m[3]}\\{m[2] or m[4]}", escaped)
    return _GH_REFS.sub(r"`\1`", escaped)


def md_id(value: str) -> str:
    """An id (already shown_*_id'd) as a code span; anything else is escaped text instead."""
    if RUN_ID.fullmatch(value):
        return f"`{value}`"
    return md_text(value)
