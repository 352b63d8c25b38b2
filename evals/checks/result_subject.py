"""What a result the answer works out is about: the subject of its terms ("a validade de 60
dias ... 12 de outubro + 60 dias = 11 de dezembro" gives the validity's end)."""

from __future__ import annotations

import regex

from evals.checks.figure_items import subject
from evals.checks.matching import Synonyms
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

_RESULT_SIGN = regex.compile(r"[=→⇒]")


def terms_about(
    answer: str, fig: Figure, want: frozenset[str], lang: str | None, synonyms: Synonyms
) -> bool:
    """Whether a result worked out after a sign is about `want` through its terms: a term
    the answer states elsewhere about that subject ("a validade de 60 dias ... 12 de outubro
    + 60 dias = 11 de dezembro" is the validity's end)."""
    start = next((s for s, p in sentences(answer) if s <= fig.start < s + len(p)), 0)
    signs = [m.start() for m in _RESULT_SIGN.finditer(answer, start, fig.start)]
    if not signs:
        return False
    figs = parse_figures(answer, lang)
    terms = [f for f in figs if start <= f.start and f.end <= signs[-1]]
    return any(
        want & subject(answer, f, lang, synonyms)
        for t in terms
        for f in figs
        if f.same(t) and f.start != fig.start
    )
