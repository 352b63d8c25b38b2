"""The figures of a text outside its citation markers, read once per text: a check that
reads a sentence or the whole answer with its markers blanked takes them from here rather
than parsing the blanked copy again (the same figures, at the same offsets: the markers'
blanks end no figure and start none)."""

from __future__ import annotations

from functools import lru_cache

from evals.checks.language import detect
from evals.checks.matching import MARKER
from evals.checks.values import Figure, parse_figures


@lru_cache(maxsize=4096)
def unmarked_figures(text: str, lang: str | None) -> tuple[Figure, ...]:
    """`parse_figures` of `text` with its citation markers blanked."""
    spans = [(m.start(), m.end()) for m in MARKER.finditer(text)]
    if not spans:
        return tuple(parse_figures(text, lang))
    reading = lang or detect(MARKER.sub(lambda m: " " * len(m.group(0)), text))
    return tuple(
        f
        for f in parse_figures(text, reading)
        if not any(a < f.end and f.start < b for a, b in spans)
    )


def figures_between(text: str, lang: str | None, start: int, end: int) -> list[Figure]:
    """The unmarked figures of `text` inside [start, end), at their offsets in `text`."""
    return [f for f in unmarked_figures(text, lang) if start <= f.start and f.end <= end]
