"""Case ids from outside records: the case-id rule, and lists of ids short enough for a report line."""

from __future__ import annotations

import re
import unicodedata

# Letters NFKD does not decompose into ASCII, spelled the way their languages transliterate.
SPELLED = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "đ": "d",
     "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "TH", "ð": "d", "Ð": "D", "ı": "i"}
)  # fmt: skip


def slugify(raw: str) -> str:
    """The case-id rule: lower-case ASCII letters, digits, '.', '_', '-', starting alphanumeric."""
    s = unicodedata.normalize("NFKD", raw.translate(SPELLED))
    s = s.encode("ascii", "ignore").decode("ascii").lower()
    s = re.sub(r"[^a-z0-9._-]+", "-", s)
    s = re.sub(r"^[^a-z0-9]+", "", s)
    return s.rstrip("-")[:120]


def listed(items: list[str], limit: int = 20) -> str:
    """Comma-separated, the first `limit` items and how many more: a report line stays readable."""
    more = f", ... and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def usable_id(raw: str) -> str:
    """The slug of `raw`, or "" when its letters are all lost (an id in a non-Latin script)."""
    cid = slugify(raw)
    if not re.search(r"[a-z]", cid) and re.search(r"[^\W\d_]", raw):
        return ""  # "質問 1" would become "1": a generated id is clearer
    return cid
