"""JSON Lines as the harness reads them: split on `\n` only, depth-limited, finite numbers.

`str.splitlines()` also ends a line at U+2028, U+2029, U+0085 and other characters that
JSON allows raw inside a string, so it would cut a valid record in two; only `\n` ends a
JSONL line. A line nested thousands of levels deep would exhaust the parser's recursion, so
it is refused before it is parsed. `1e999` parses to infinity in Python, which no JSON
number means (and which then prints as "cost: $inf"), so it is refused like `NaN`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Records nest a few levels (settings.provider.generation); a line nested deeper than this
#: is refused before it is parsed, whose recursion it could exhaust.
MAX_DEPTH = 64
# A string as one match (the unrolled form: a run of plain characters at a time, so that a
# megabyte-long answer is scanned in C, not one alternation per character), or a bracket.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text: split on `\n` only (a trailing `\r` is JSON whitespace)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def nested_too_deep(line: str, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text opens more than `limit` arrays/objects inside one another.

    Counting brackets is one pass in C; only a line with more brackets than the limit (in
    strings, say) gets the exact scan that skips over strings.
    """
    if line.count("[") + line.count("{") <= limit:
        return False
    depth = 0
    for m in _STRUCTURE.finditer(line):
        tok = m.group(0)
        if tok[0] == '"':
            continue
        if tok in "[{":
            depth += 1
            if depth > limit:
                return True
        elif tok in "]}":
            depth -= 1
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is too large")
    return value


# Built once: `json.loads` with an argument builds a new decoder for every line.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def parse_record(line: str) -> Any:
    """One JSON value of a JSONL line; ValueError with the reason when it is not JSON (NaN,
    Infinity and numbers too large for a float included) or nested more than MAX_DEPTH deep."""
    if nested_too_deep(line):
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    try:
        return _DECODER.decode(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from None
    except RecursionError:  # pragma: no cover - the depth scan comes first
        raise ValueError("nested too deeply") from None
