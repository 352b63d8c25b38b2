"""What an amount is paid per: the period a text says right after it ("25 € al mese", "59 €
one-off", "120 € per year"). A passage's monthly 25 € said as a one-off, or its yearly
deductible said per month, is another figure with the same digits."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import regex

from evals.checks.lexicon import all_lexicons
from evals.checks.matching import MARKER
from evals.checks.values import Figure, parse_figures

#: Characters after an amount searched for its period.
REACH = 40
#: Words that may stand between an amount and its period ("25 € per device per month").
BETWEEN = 3
# What ends the amount's clause before its period: punctuation or another figure.
_STOP = regex.compile(r"[\d.;:!?()\n,–—=+×]")


@cache
def _periods() -> regex.Pattern[str]:
    # Every language's words at once: an answer in German may cite an English passage.
    named: dict[str, set[str]] = {}
    for lex in all_lexicons():
        for period, phrases in lex.periods.items():
            named.setdefault(period, set()).update(phrases)
    groups = [
        rf"(?P<{period}>{'|'.join(regex.escape(p) for p in sorted(ps, key=len, reverse=True))})"
        for period, ps in sorted(named.items())
        if ps
    ]
    body = "|".join(groups) or "(?!)"
    return regex.compile(rf"(?<![\p{{L}}'’])(?:{body})(?![\p{{L}}])", regex.IGNORECASE)


def period_after(text: str, fig: Figure) -> str | None:
    """The period the text says an amount is paid per, right after it (at most a few words
    on, in its clause), or None. A period word just before the next figure is that figure's
    ("39,50 € plus einmalig 59 €")."""
    found = _period(text, fig)
    return found[0] if found else None


def _period(text: str, fig: Figure) -> tuple[str, int] | None:
    """The period after the amount and where its words end in the text."""
    if fig.kind != "money":
        return None
    window = MARKER.sub(lambda m: " " * len(m.group()), text[fig.end : fig.end + REACH])
    m = _periods().search(window)
    if m is None or m.lastgroup is None:
        return None
    before = window[: m.start()]
    if _STOP.search(before) or len(before.split()) > BETWEEN:
        return None
    if window[m.end() :].lstrip()[:1].isdigit():
        return None
    return m.lastgroup, fig.end + m.end()


def other_period(answer: str, fig: Figure, passages: Iterable[str]) -> str:
    """The passage's words for the amount when the answer gives it per another period than
    every place the passages state it with one ("25 € una tantum" of "25 € al mese"); ""
    when they agree, or when the answer or a passage states it with no period."""
    said = period_after(answer, fig)
    if said is None:
        return ""
    quoted = ""
    for text in passages:
        for g in parse_figures(text):
            if g.kind != "money" or g.unit != fig.unit or g.value != fig.value:
                continue
            found = _period(text, g)
            if found is None or found[0] == said:
                return ""
            quoted = quoted or text[g.start : found[1]].strip()
    return quoted
