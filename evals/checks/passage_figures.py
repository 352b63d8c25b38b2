"""What a passage states of a figure (as a value, or computed from its figures, the
customer's and the other cited passages'), and an equation an answer writes out that does
not make its result."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.dates import date_after, date_before, month_end_after
from evals.checks.derived import clock_span, computed
from evals.checks.equations import equation_value, holds
from evals.checks.given import sentence_start
from evals.checks.lexicon import all_lexicons
from evals.checks.stated_otherwise import states_otherwise
from evals.checks.text import SENTENCE_END, phrase_pattern
from evals.checks.values import Figure, parse_figures
from evals.checks.worked import result_sign


def miscounted(answer: str, fig: Figure, lang: str | None) -> str:
    """The equation the answer writes out before the figure and what it makes, when that is
    not the figure ("2 × 17,50 € = 39 €" makes 35); empty when it holds or none is written."""
    sign = result_sign(answer, fig, sentence_start(answer, fig))
    if sign is None:
        return ""
    value = equation_value(answer, fig, sign.start(), lang)
    if value is None or holds(value, fig):
        return ""
    shown = format(value.quantize(Decimal("0.01")), "f")
    return f"the equation before it makes {shown}"


def passage_states(
    text: str,
    fig: Figure,
    factors: tuple[int, ...] = (),
    times: tuple[Figure, ...] = (),
    given: tuple[Figure, ...] = (),
    beside: tuple[Figure, ...] = (),
    percent: bool = True,
) -> bool:
    """Whether a passage states the figure as a value (weeks as days, pm as 24-hour time), or
    derives it from its figures, the customer's (`given`) and, as a second term or a
    percentage, those of passages the answer cites elsewhere (`beside`): a sum ("30 days, then a
    further 14" supports "44 days"), a difference, a product with a count (`factors`), a
    percentage off or on ("45 € less 20 %" supports "36 €"), or the hours between two clock
    times ("22:00 to 06:00" supports "8 hours")."""
    stated = parse_figures(text)
    if any(fig.same(p) for p in stated):
        return True
    if states_otherwise(text, fig):
        return True  # "0 kr." of "gratis", "8 plazas" of "Plazas limitadas: 8"
    if fig.kind == "date":
        # The customer's date moved on by the passage's term ("signed on 10 November", "active
        # 30 days after signing": from 10 December).
        # Or moved back by a term the passage sets before a date ("at least 15 days before").
        before = [t for t in stated if _BEFORE.match(text, t.end)]
        after = [t for t in stated if t not in before]
        # The term may come from a passage the answer cites elsewhere ("10 working days
        # [doc:claims] ... 3 November + 10 working days: 17 November [doc:times]").
        terms = (*after, *given, *(t for t in beside if t.kind == "duration"))
        if date_after(fig, given, terms) or date_before(fig, given, before):
            return True
        # Taken to the end of that month where the passage says the term runs to one ("1
        # mese ... termina alla fine del mese successivo": given on 10 March, 30 April).
        if _runs_to_month_end(text) and month_end_after(fig, given, terms):
            return True
        # A day the passage sets in every month ("a partir do dia 1 do mês escolhido"): the
        # answer's date on that day ("1 de janeiro") applies it to the month asked about.
        day = fig.value[2] if isinstance(fig.value, tuple) else None
        return day is not None and any(p.kind == "day" and p.value == day for p in stated)
    return clock_span(fig, (*stated, *times)) or computed(
        fig, stated, given, factors, beside, percent
    )


@lru_cache(maxsize=1)
def _month_end_words() -> regex.Pattern[str]:
    return phrase_pattern(tuple(sorted({p for lex in all_lexicons() for p in lex.month_end})))


def _runs_to_month_end(text: str) -> bool:
    """Whether the text says a term runs to a month's end, in any language read."""
    return _month_end_words().search(text) is not None


# A term that comes before a date: "15 days before", "15 Tage vor", "15 jours avant".
_BEFORE = regex.compile(
    r"\s+(?:in\s+advance|before|prior\s+to|ahead\s+of|vor(?:her)?|avant|antes|prima|voor(?:af)?|"
    r"før|inden)\b",
    regex.IGNORECASE,
)


def total_first(
    answer: str, fig: Figure, every: list[Figure], stated: Callable[[Figure], bool]
) -> bool:
    """Whether the figure is the sum of two or three figures of its kind that its sentence
    gives after it, each of them `stated` (by a cited passage, as stated or computed): a
    total given before its working ("56,81 € a month in total: the first phone at 29,90 €
    [doc:a] and the second with 10 % off [doc:b], which comes to 26,91 €")."""
    if fig.kind != "money" or not isinstance(fig.value, Decimal):
        return False
    end = SENTENCE_END.search(answer, fig.end)
    stop = end.start() if end is not None else len(answer)
    terms = [
        f
        for f in every
        if fig.end <= f.start < stop
        and (f.kind, f.unit) == (fig.kind, fig.unit)
        and isinstance(f.value, Decimal)
    ]
    for i, a in enumerate(terms):
        for j, b in enumerate(terms[i + 1 :], i + 1):
            pairs = [(a, b)] + [(a, b, c) for c in terms[j + 1 :]]
            for group in pairs:
                total = sum((g.value for g in group), Decimal(0))  # type: ignore[misc]
                if holds(total, fig) and all(stated(g) for g in group):
                    return True
    return False
