"""Figures of an answer that need no citation of their own, though no passage states them:
an example's inputs ("per esempio 3 GB extra = 3 × 2 € = 6 €"), a ratio of two sourced
figures ("500 Mbit/s ... 100 Mbit/s: vijf keer zo snel"), and a result the same sentence
works out right after it ("L'aumento è di 2,00 €: 29,90 € − 27,90 € = 2,00 €")."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache

import regex

from evals.checks.lexicon import FALLBACK, all_lexicons, lexicon
from evals.checks.matching import content, tokens
from evals.checks.text import SENTENCE_END, phrase_pattern
from evals.checks.values import Figure
from evals.checks.worked import term_of_sum

#: Characters between an example's opening words and the figure it supposes.
EXAMPLE_REACH = 30
_WORD_AFTER = regex.compile(r"\s*(\p{L}+)")


def example_input(answer: str, fig: Figure, lang: str | None, seen: Sequence[Figure] = ()) -> bool:
    """Whether the figure is what an example supposes: it follows the language's words for
    "for example" closely in its sentence, or repeats such a figure later in it ("Beispiel:
    Fahren Sie 1.350 km, sind das 1.350 km − 1.250 km"), and is no amount (an example's
    price is still a claim about the price)."""
    if fig.kind == "money":
        return False
    if _supposes(answer, fig, lang):
        return True
    return any(
        g.same(fig)
        and g.end <= fig.start
        and SENTENCE_END.search(answer, g.end, fig.start) is None
        and _supposes(answer, g, lang)
        for g in seen
    )


def supposed_amount(
    answer: str, fig: Figure, lang: str | None, seen: Sequence[Figure], stated: Sequence[Figure]
) -> bool:
    """Whether an amount is what an example supposes and works out: its sentence opens an
    example ("Een voorbeeld: bij een rekening van 300 € krijg je (300 € − 100 €) × 0,80 =
    160 € terug"), the amount is a term of the sentence's own working (it, or it again
    later in the sentence), and no passage states it (`stated`): a price a passage gives,
    said in an example, is still a claim about the price."""
    if fig.kind != "money" or any(fig.same(p) for p in stated):
        return False
    lex = lexicon(lang or FALLBACK)
    ends = [m.end() for m in SENTENCE_END.finditer(answer, 0, fig.start)]
    opened = ends[-1] if ends else 0
    if not lex.examples or phrase_pattern(lex.examples).search(answer, opened, fig.start) is None:
        return False
    stop = SENTENCE_END.search(answer, fig.end)
    close = stop.start() if stop else len(answer)
    return any(
        g.same(fig) and g.start >= fig.start and g.end <= close and term_of_sum(answer, g)
        for g in (fig, *seen)
    )


def _supposes(answer: str, fig: Figure, lang: str | None) -> bool:
    """Whether the language's words for "for example" stand closely before the figure."""
    lex = lexicon(lang or FALLBACK)
    if not lex.examples:
        return False
    start = max(0, fig.start - EXAMPLE_REACH)
    window = answer[start : fig.start]
    ends = [m.end() for m in SENTENCE_END.finditer(window)]
    return phrase_pattern(lex.examples).search(window, ends[-1] if ends else 0) is not None


def ratio_of_sourced(answer: str, fig: Figure, sourced: Sequence[Figure], lang: str | None) -> bool:
    """Whether a count of times said as a comparison ("vijf keer zo snel", "five times as
    fast") is the ratio of two figures of one kind the answer sourced before it."""
    if fig.kind != "count" or fig.unit != "time" or not isinstance(fig.value, Decimal):
        return False
    nxt = _WORD_AFTER.match(answer, fig.end)
    if nxt is None or nxt.group(1).casefold() not in lexicon(lang or FALLBACK).ratio:
        return False
    values = [
        (f.kind, f.unit, f.value)
        for f in sourced
        if f.end <= fig.start and isinstance(f.value, Decimal) and f.value
    ]
    return any(
        (ka, ua) == (kb, ub) and (a / b == fig.value or b / a == fig.value)  # type: ignore[operator]
        for i, (ka, ua, a) in enumerate(values)
        for kb, ub, b in values[i + 1 :]
    )


def shown_after(answer: str, fig: Figure, sourced: Sequence[Figure]) -> bool:
    """Whether the same value stands later in the figure's sentence with a source (cited or
    worked out there): "di 2,00 € al mese: 29,90 € − 27,90 € = 2,00 €"."""
    end = SENTENCE_END.search(answer, fig.end)
    stop = end.start() if end is not None else len(answer)
    return any(fig.end <= g.start < stop and g.same(fig) for g in sourced)


_WORD_BEFORE = regex.compile(r"(\p{L}+)\s*$")


def pointed_back(answer: str, fig: Figure, earlier: Sequence[Figure], lang: str | None) -> bool:
    """Whether the figure restates one given before, pointed back to by its language's word
    ("Na die 3 maanden kun je opzeggen" after "een minimale looptijd van 3 maanden")."""
    m = _WORD_BEFORE.search(answer, 0, fig.start)
    if m is None or m.group(1).casefold() not in lexicon(lang or FALLBACK).back:
        return False
    return any(e.same(fig) and e.end <= fig.start for e in earlier)


# A bracket that closes right after the figure, and the word before its opening.
_LABEL = regex.compile(r"(\p{L}+)\s*\(([^()\n]{1,20})\)")


def restated_label(answer: str, fig: Figure, passages: Sequence[str], lang: str | None) -> bool:
    """Whether the figure stands in a bracket that labels the word before it as a passage
    labels that word ("de groep peuters (1-4 jaar)" of "een peuter (1-4 jaar)"): the
    passage's name for a band restated, no claim of its own."""
    for m in _LABEL.finditer(answer, max(0, fig.start - 40), min(len(answer), fig.end + 2)):
        if not (m.start(2) <= fig.start and fig.end <= m.end(2)):
            continue
        word, inside = _stem(m.group(1), lang), " ".join(m.group(2).split())
        return any(
            " ".join(p.group(2).split()) == inside and _stem(p.group(1), lang) == word
            for text in passages
            for p in _LABEL.finditer(text)
        )
    return False


def _stem(word: str, lang: str | None) -> str:
    got = content(tokens(word, lang or FALLBACK), lang or FALLBACK)
    return next(iter(sorted(got)), word.casefold())


#: Units a started one is charged in (minutes): an hour, a half hour, a quarter, a day.
_STARTED_UNITS = (60, 30, 15, 1440)


@lru_cache(maxsize=1)
def _started_words() -> regex.Pattern[str]:
    return phrase_pattern(tuple(sorted({w for lex in all_lexicons() for w in lex.started})))


def started_units(fig: Figure, given: Sequence[Figure], passages: Sequence[str]) -> bool:
    """Whether a duration is the customer's rounded up to whole units where a passage
    charges per started unit ("20 € per ora iniziata": 2 ore e mezza are 3 ore iniziate)."""
    if fig.kind != "duration" or fig.unit != "minute" or not isinstance(fig.value, Decimal):
        return False
    if not any(_started_words().search(p) for p in passages):
        return False
    for g in given:
        if g.kind != "duration" or g.unit != "minute" or not isinstance(g.value, Decimal):
            continue
        for unit in _STARTED_UNITS:
            whole = (g.value / unit).to_integral_value(rounding=ROUND_CEILING) * unit
            if whole != g.value and whole == fig.value:
                return True
    return False
