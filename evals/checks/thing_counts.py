"""A count of any thing a case expects ("10 amici", "14 allergens", "5 friends"): the figure
parser reads counts of the things each language file lists (seats, times, parcels); a case
may expect a count of anything else, found where the answer gives that number (in digits or
words) with the thing's word right after it, in any inflection."""

from __future__ import annotations

from decimal import Decimal

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK
from evals.checks.matching import BOUNDARY, NEG, tokens
from evals.checks.values import Figure, parse_one, with_digits

#: The unit of a count of a thing no language file lists: "thing:" and its words.
THING = "thing:"
_EXPECTED = regex.compile(r"\s*(\d{1,6})\s+(\p{L}[\p{L}'’-]*(?:\s+\p{L}[\p{L}'’-]*){0,2})\s*")
# Words between the number and its thing: "10 nuovi amici", "14 allergeni".
REACH = 2


def parse_expected(text: str) -> Figure | None:
    """The figure a case expects: one the parser reads, or a count of a thing."""
    fig = parse_one(text)
    if fig is not None:
        return fig
    m = _EXPECTED.fullmatch(text)
    if m is None:
        return None
    return Figure("count", THING + " ".join(m.group(2).casefold().split()), Decimal(m.group(1)))


def thing_counts(answer: str, want: Figure, lang: str | None) -> list[Figure]:
    """Where the answer gives the count `want` of its thing: the number, then the thing's
    first word within a few words ("10 amici", "dieci nuovi amici")."""
    if not want.unit.startswith(THING) or not isinstance(want.value, Decimal):
        return []
    reading = lang or detect(answer) or FALLBACK
    thing = [w for w in tokens(want.unit[len(THING) :], reading, general=False) if w != NEG]
    if not thing:
        return []
    plain, spans = with_digits(answer, reading)
    out = []
    number = regex.compile(rf"(?<![\d.,])0*{int(want.value)}(?![\d.,]*\d)")
    for m in number.finditer(plain):
        # A number in words keeps its words' place: "dieci" is where "10" was written.
        start, end = next(((a, b) for a, b in spans if a <= m.start() < b), m.span())
        after = [w for w in tokens(answer[end : end + 60], reading) if w != NEG]
        head = after[: after.index(BOUNDARY)] if BOUNDARY in after else after
        if thing[0] in head[: REACH + 1]:
            out.append(Figure("count", want.unit, want.value, start, end, answer[start:end]))
    return out
