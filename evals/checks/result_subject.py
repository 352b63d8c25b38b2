"""What a result the answer works out is about: the subject of its terms ("a validade de 60
dias ... 12 de outubro + 60 dias = 11 de dezembro" gives the validity's end)."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.figure_items import subject
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures
from evals.checks.worked import RESULT_SIGN, result_sign

_OPERATOR = regex.compile(r"[+×*·−]|\bx\b")


def terms_about(
    answer: str, fig: Figure, want: frozenset[str], lang: str | None, synonyms: Synonyms
) -> bool:
    """Whether a result worked out after a sign is about `want` through its terms: a term
    the answer states elsewhere about that subject ("a validade de 60 dias ... 12 de outubro
    + 60 dias = 11 de dezembro" is the validity's end)."""
    start = next((s for s, p in sentences(answer) if s <= fig.start < s + len(p)), 0)
    signs = [m.start() for m in RESULT_SIGN.finditer(answer, start, fig.start)]
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
    if not want or not want <= _total_stems(lang or FALLBACK):
        return False
    start = next((s for s, p in sentences(answer) if s <= fig.start < s + len(p)), 0)
    sign = result_sign(answer, fig, start)
    return sign is not None and _OPERATOR.search(answer, start, sign.start()) is not None


@lru_cache(maxsize=16)
def _total_stems(lang: str) -> frozenset[str]:
    """The content words of the language's words that total ("i alt", "insgesamt")."""
    return frozenset().union(*(content(tokens(t, lang), lang) for t in lexicon(lang).totals))
