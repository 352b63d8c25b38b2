"""Which name a figure is stated about: in "Basic costs 29 € a month, Plus 39 €" the 29 € is
Basic's and the 39 € is Plus's; in "The deposit is 50 € on Basic and 100 € on Plus" the names
follow their figures.

A name is a capitalised word that is not a glue word (a plan, a product, a city, an
integration). Within one sentence (or list line) the names are shared out among the
figures of one kind: when the sentence names something before its first figure, each name
belongs to the figure after it ("Basic 29 €, Plus 39 €"); otherwise to the figure before it
("29 € for Basic, 39 € for Plus").
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.matching import MARKER, content, tokens
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

# A capitalised word, or one with capitals inside ("DATEV", "eBay"); digits may follow.
_NAME = regex.compile(r"(?<![\p{L}\p{N}])\p{L}*\p{Lu}[\p{L}\p{N}]*(?:[-’'][\p{L}\p{N}]+)*")


@lru_cache(maxsize=4096)
def _names(sentence: str, lang: str | None) -> tuple[tuple[int, str], ...]:
    """The names of a sentence with their offsets, as stems (case-folded, so that the answer's
    "Plus" meets the passage's "Plus" whatever the inflection)."""
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
    out = []
    for m in _NAME.finditer(plain):
        stems = content(tokens(m.group(0), lang), lang)
        # A glue word that opens a sentence ("The", "After", "Wenn") is no name.
        out.extend((m.start(), s) for s in sorted(stems) if not s.isdigit())
    return tuple(out)


def _alike(a: Figure, b: Figure) -> bool:
    return (a.kind, a.unit) == (b.kind, b.unit)


@lru_cache(maxsize=4096)
def owned_names(text: str, fig: Figure, lang: str | None = None) -> frozenset[str]:
    """The names `text` states `fig` about (stems), from the sentence that holds it."""
    for start, sentence in sentences(text):
        if start <= fig.start < start + len(sentence):
            break
    else:
        return frozenset()
    # The figures of the sentence that measure what `fig` measures, in order.
    peers = [
        f
        for f in parse_figures(text, lang)
        if start <= f.start < start + len(sentence) and _alike(f, fig)
    ]
    spans = sorted(
        {(f.start - start, f.end - start) for f in peers} | {(fig.start - start, fig.end - start)}
    )
    names = [
        (pos, n) for pos, n in _names(sentence, lang) if not any(a <= pos < b for a, b in spans)
    ]
    if not names:
        return frozenset()
    mine = spans.index((fig.start - start, fig.end - start))
    lead = names[0][0] < spans[0][0]
    out = set()
    for pos, name in names:
        if lead:
            # The first figure after the name; a name after the last figure is the last one's.
            owner = next((i for i, (a, _) in enumerate(spans) if a > pos), len(spans) - 1)
        else:
            owner = max(i for i, (_, b) in enumerate(spans) if b <= pos)
        if owner == mine:
            out.add(name)
    return frozenset(out)
