"""Expectation items: one phrasing, several accepted phrasings, or an optional point.

In `expect.facts`, `expect.figures` and `expect.mentions` an item is a string, a list of
strings (any one of them will do), or `{"any": [...], "optional": true}`. An optional item
is reported when it is missing but never fails the case. A figure may name its subject:
`{"value": "30 days", "about": "data kept"}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Item:
    """One expectation: its accepted phrasings, and whether a correct answer may leave it out."""

    alternatives: tuple[str, ...]
    optional: bool = False
    # What a figure is about ("data kept"): stated about something else, it does not count.
    about: str | None = None

    @property
    def label(self) -> str:
        first = f'"{self.alternatives[0]}"'
        more = len(self.alternatives) - 1
        return first + (f" (or {more} other phrasing{'s' if more > 1 else ''})" if more else "")


def items(value: Any) -> list[Item]:
    """The items of an expectation list; malformed entries are the schema's to report."""
    out: list[Item] = []
    for entry in value or []:
        if isinstance(entry, str):
            out.append(Item((entry,)))
        elif isinstance(entry, list):
            alts = tuple(a for a in entry if isinstance(a, str))
            if alts:
                out.append(Item(alts))
        elif isinstance(entry, dict):
            raw = entry.get("any", entry.get("value"))
            alts = (
                (raw,)
                if isinstance(raw, str)
                else tuple(a for a in raw or [] if isinstance(a, str))
            )
            about = entry.get("about")
            if alts:
                out.append(
                    Item(
                        alts,
                        bool(entry.get("optional", False)),
                        about if isinstance(about, str) and about.strip() else None,
                    )
                )
    return out


def all_phrasings(value: Any) -> list[str]:
    """Every phrasing of every item (for validation and for mutation anchors)."""
    return [a for it in items(value) for a in it.alternatives]
