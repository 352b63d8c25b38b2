"""What a result the answer works out is about: the subject of its terms ("a validade de 60
dias ... 12 de outubro + 60 dias = 11 de dezembro" gives the validity's end)."""

from __future__ import annotations

import regex

from evals.checks.figure_items import subject
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

_RESULT_SIGN = regex.compile(r"[=→⇒]")
# Between the sign and the result: nothing, or further terms joined by operators.
_TERMS = regex.compile(r"[\s*_]*(?:[\d.,\s]+\s*[€$£%]?\p{L}{0,3}\s*[+×*·−]\s*)*")
_OPERATOR = regex.compile(r"[+×*·−]|\bx\b")


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


def totalled_result(answer: str, fig: Figure, want: frozenset[str], lang: str | None) -> bool:
    """Whether `want` asks for a total ("i alt", "in totaal", "insgesamt") and the figure is
    the result of the answer's own sum or product, right after its sign ("90 kr. × 2 = 180
    kr."): the arithmetic says it is the total, though its clause has no word for it."""
    reading = lang or FALLBACK
    totals = set().union(*(content(tokens(t, reading), reading) for t in lexicon(reading).totals))
    if not want or not want <= totals:
        return False
    start = next((s for s, p in sentences(answer) if s <= fig.start < s + len(p)), 0)
    signs = list(_RESULT_SIGN.finditer(answer, start, fig.start))
    if not signs or _TERMS.fullmatch(answer, signs[-1].end(), fig.start) is None:
        return False
    return _OPERATOR.search(answer, start, signs[-1].start()) is not None
