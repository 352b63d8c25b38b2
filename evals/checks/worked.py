"""A figure the answer works out in front of the reader from cited inputs: "5 × 2,50 €
[doc:roaming#day] = 12,50 €", "8 € [doc:a] + 5 € [doc:a] = 13 €", "20 November + 7 days
[doc:esim#qr] = 27 November". A prompt that asks to show a computation's inputs with their
sources ("3 × 9,50 € [doc:REF] = 28,50 €") leaves the result uncited: it is sourced by its
inputs when the arithmetic holds, and unsourced when it does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.dates import date_after, date_before, month_end_of
from evals.checks.derived import computed
from evals.checks.equations import (
    BARE_AMOUNT,
    bare_equation,
    bracketed_value,
    compared_in_working,
    equation_value,
    holds,
    share_in_words,
)
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import MARKER
from evals.checks.text import SENTENCE_END, phrase_pattern
from evals.checks.values import Figure, number, parse_figures

# The sign that sets a result after its inputs; an arrow or "about" too ("12,99 € − 20 % →
# 10,39 €", "3 × 19,90 € × 0,85 ≈ 50,75 €").
RESULT_SIGN = regex.compile(r"[=≈→⇒]")
# What may stand between the sign and the result: nothing, or terms joined by operators.
_TERMS = regex.compile(r"[\s*_]*(?:[\d.,\s]+\s*[€$£%]?\p{L}{0,3}\s*[+×*·−]\s*)*")
# A figure followed by an operator and, later in its sentence, a result sign: a term of a
# worked sum ("444 € + 360 € = 804 €"), not what the answer says applies.
_TERM_OF_SUM = regex.compile(r"\s*[+×*·−][^=≈.;\n]*[=≈→⇒]")
# The last term: an operator before it and the result sign after ("28,50 € + 57 € = 85,50 €").
_LAST_TERM = regex.compile(r"[+×*·−]\s*$")
_SIGN_AFTER = regex.compile(r"[^\S\n]*(?:\[[^\]\n]*\][^\S\n]*)*[=≈→⇒]")


def term_of_sum(answer: str, fig: Figure) -> bool:
    """Whether the figure is a term of a computation the answer works out after it."""
    if _TERM_OF_SUM.match(answer, fig.end) is not None:
        return True
    return (
        _LAST_TERM.search(answer, max(0, fig.start - 8), fig.start) is not None
        and _SIGN_AFTER.match(answer, fig.end) is not None
    )


def _phrases(lang: str, key: str) -> regex.Pattern[str]:
    """The language's phrases of one list (`totals`, `month_end`) as whole words."""
    return phrase_pattern(getattr(lexicon(lang), key))


def _totalled(answer: str, fig: Figure, sentence_start: int, lang: str | None) -> bool:
    """Whether a word that totals stands between the figure and the figure (or sentence
    start) before it, or right after it ("12 € in all", "36 € in totaal")."""
    before = [f.end for f in parse_figures(answer, lang) if sentence_start <= f.end <= fig.start]
    words = _phrases(lang or FALLBACK, "totals")
    last = max([sentence_start, *before])
    if words.search(answer, last, fig.start) is not None:
        return True
    # "2 × 14,50 € ... plus 7,90 € [doc:a] is 36,90 €": a verb of being right after the
    # last term of a sum written out before it gives that sum's result.
    gap = MARKER.sub(lambda m: " " * len(m.group(0)), answer[last : fig.start])
    if _OPERATOR_BEFORE.search(answer, sentence_start, last) and _being(lang).match(gap):
        return True
    tail = answer[fig.end :]
    return words.match(answer, fig.end + len(tail) - len(tail.lstrip())) is not None


_AFTER_SIGN = regex.compile(r"[=≈→⇒][\s*_]*$")
# An operator between two terms, symbol or word ("plus", "più", "mais", "más"), before a sum's
# result.
_OPERATOR_BEFORE = regex.compile(r"[×*+]|(?<!\p{L})(?:plus|più|mais|más)(?!\p{L})", regex.I)


@lru_cache(maxsize=16)
def _being(lang: str | None) -> regex.Pattern[str]:
    """The language's verbs of being (its file's `being`) ending the gap between a sum's last
    term and its result, after at most a few of the last term's words ("... voor uw dochter
    [doc:a] is 36,90 €")."""
    words = "|".join(regex.escape(w) for w in lexicon(lang or FALLBACK).being) or "(?!)"
    return regex.compile(rf"^(?:\s*[\p{{L}}'’]+){{0,4}}?\s+(?:{words})\s*$", regex.IGNORECASE)


def worked_input(answer: str, fig: Figure, figs: Sequence[Figure], lang: str | None = None) -> bool:
    """Whether the figure is an input of the answer's own arithmetic: a term of a worked sum,
    or a result worked out ("6,50 € + 5,80 € = 12,30 € a month") that a later sum takes as
    its term ("12,30 € × 12 = 147,60 €") or a word that totals gathers in its sentence ("3 ×
    19 € = 57 €, making 85,50 €")."""
    if term_of_sum(answer, fig) or compared_in_working(answer, fig, list(figs), lang):
        return True
    if _AFTER_SIGN.search(answer, 0, fig.start) is None:
        return False
    if any(f.start > fig.start and f.same(fig) and term_of_sum(answer, f) for f in figs):
        return True
    later = [f for f in figs if f.start >= fig.end and f.kind == fig.kind]
    if not later or SENTENCE_END.search(answer, fig.end, later[0].start) is not None:
        return False
    return _phrases(lang or FALLBACK, "totals").search(answer, fig.end, later[0].start) is not None


def step_of_later(
    answer: str,
    fig: Figure,
    figs: Sequence[Figure],
    counts: Callable[[Figure], Sequence[int]],
    results: Sequence[Figure],
    lang: str | None = None,
) -> bool:
    """Whether a later figure of the answer that is one of the expected `results` is worked
    out from `fig` (a sum with a figure before it, or a product with a count of its sentence
    or the ticket, `counts`): 12 € a parcel that three parcels make the 36 € asked for, the
    electricity's 78 € a year that the gas's 69,60 € make 147,60 €. Such a figure is a step
    to the right result; a step to any other result is still the answer's claim."""
    for later in figs:
        if later.start < fig.end or (later.kind, later.unit) != (fig.kind, fig.unit):
            continue
        if later.same(fig) or not any(later.same(r) for r in results):
            continue
        if fig.kind == "date":
            # A date the notice then takes to its month's end ("14 December, so 31 December").
            if says_month_end(answer, 0, later.start, lang) and month_end_of(later, [fig]):
                return True
            continue
        before = [f for f in figs if f.end <= later.start and f.start != fig.start]
        if computed(later, [fig], (), counts(later), before):
            return True
    return False


def says_month_end(answer: str, start: int, end: int, lang: str | None) -> bool:
    """Whether the answer says, between `start` and `end`, that something runs to the end of
    a month ("til udgangen af måneden", "to the end of the month")."""
    return _phrases(lang or FALLBACK, "month_end").search(answer, start, end) is not None


def result_sign(answer: str, fig: Figure, sentence_start: int) -> regex.Match[str] | None:
    """The result sign the figure follows in its sentence, right after it or after other
    terms of the same equation ("= 444 € + 360 €"); None when it follows none."""
    sign = None
    for m in RESULT_SIGN.finditer(answer, sentence_start, fig.start):
        sign = m
    if sign is None or _TERMS.fullmatch(answer, sign.end(), fig.start) is None:
        return None
    return sign


def worked_out(
    fig: Figure,
    sentence_start: int,
    answer: str,
    inputs: Sequence[Figure],
    given: Sequence[Figure],
    factors: Sequence[int],
    lang: str | None = None,
) -> bool:
    """Whether `fig` follows a result sign in its sentence and is computed from `inputs`
    (figures before it in the answer with a source: cited, the customer's, or worked out
    before), the customer's figures `given` and the sentence's counts `factors`."""
    if fig.kind == "date":
        # A date is exact: moved on or back by a term the answer gives before it ("24 Monate
        # [doc:a] ab dem 10. Mai 2025, also bis zum 10. Mai 2027"), it is worked out with
        # or without a sign; or taken to the end of its month ("14 December, and then to
        # the end of the month: 31 December") by a notice the answer says runs to one.
        before = [f for f in inputs if f.end <= fig.start]
        dates = [f for f in (*before, *given) if f.kind == "date"]
        terms = [f for f in before if f.kind == "duration"]
        terms += [f for f in given if f.kind == "duration"]
        if date_after(fig, dates, terms) or date_before(fig, dates, terms):
            return True
        return says_month_end(answer, 0, fig.start, lang) and month_end_of(fig, dates)
    sign = result_sign(answer, fig, sentence_start)
    # A result given first, its working in brackets after it: "204,40 € (4 × 51,10 €)".
    working = bracketed_value(answer, fig, lang)
    if working is not None:
        return holds(working, fig) and _inputs_sourced(answer, fig, inputs)
    share = share_in_words(answer, fig, sentence_start, lang) if sign is None else None
    if share is not None:
        # "10 % van 49,50 € is 4,95 €": worked out in words, from what the answer sourced.
        return all(any(s.same(f) for s in (*inputs, *given)) for f in share)
    if sign is None:
        # Or an amount after a word that totals ("Samen: 33,50 €", "in all 36 €"): the sum of
        # what the answer sourced before it.
        if fig.kind != "money" or not _totalled(answer, fig, sentence_start, lang):
            return False
        before = [f for f in inputs if f.end <= fig.start]
        return computed(fig, before, given, factors)
    # An equation written out is worked out as written: "39 € − 20 % = 19,50 €" is wrong
    # though 19,50 € is half of 39 €.
    value = equation_value(answer, fig, sign.start(), lang)
    if value is not None:
        return holds(value, fig)
    # Bare numbers that are the customer's and the answer's sourced figures, of the result's
    # kind ("you used 46 hours ... 40 hours [doc:a] ... 46 − 40 = 6 hours").
    plain = bare_equation(answer, fig, sign.start(), lang)
    if plain is not None and _as_written(fig) == plain[0]:
        # Compared as written: "46 hours" is 46, whatever unit a duration is counted in.
        known = {_as_written(f) for f in (*inputs, *given) if f.kind == fig.kind}
        if all(t in known for t in plain[1]):
            return True
    # The inputs are the sentence's figures before the sign (the last equation's terms) and
    # what the answer sourced before it: a result restates nothing a passage must hold.
    before = [f for f in inputs if f.end <= sign.start()]
    own = [f for f in before if f.start >= sentence_start]
    if not own:
        return False
    return computed(fig, own, [*given, *before], factors)


def _as_written(fig: Figure) -> Decimal | None:
    """The number a figure is written with ("46 hours": 46)."""
    m = _NUMBER.search(fig.text)
    return number(m.group(0)) if m else None


def _inputs_sourced(answer: str, fig: Figure, inputs: Sequence[Figure]) -> bool:
    """Whether the terms of the working in brackets after `fig` are sourced: cited in it,
    or figures the answer sourced before ("51,10 € [doc:a] ... 204,40 € (4 × 51,10 €)";
    a bare amount, "(18 − 2,50)", as one of those)."""
    close = answer.find(")", fig.end)
    inside = answer[fig.end : close]
    if "[" in inside:
        return True
    figs = [f for f in parse_figures(inside, None) if f.kind != "percent"]
    if not all(any(s.same(f) for s in inputs) for f in figs):
        return False
    taken = [(f.start, f.end) for f in figs]
    values = {s.value for s in inputs if (s.kind, s.unit) == (fig.kind, fig.unit)}
    bare = [
        number(m.group(0))
        for m in BARE_AMOUNT.finditer(inside)
        if not any(a <= m.start() < b for a, b in taken)
    ]
    # A bare count multiplies ("4 × 51,10 €"); a bare amount is one sourced before, or one
    # worked out from those ("(19,50 + 3,90)" after "39,00 € ... 50 %").
    return all(
        v is not None
        and (
            v in values
            or (v == v.to_integral() and v < 100)
            or computed(Figure(fig.kind, fig.unit, v), inputs)
        )
        for v in bare
    )


_NUMBER = regex.compile(r"\d+(?:[.,]\d+)?")


def bracketed_from(
    answer: str, fig: Figure, texts: str, given: frozenset[str], lang: str | None
) -> bool:
    """Whether the working in brackets after the figure holds and every number in it is one
    the passages `texts` write or the customer gave (`given`): "un margine di 6 giorni
    (16 − 10 = 6)" from the passage's 16th day and the customer's 10 days."""
    value = bracketed_value(answer, fig, lang)
    if value is None or not holds(value, fig):
        return False
    close = answer.find(")", fig.end)
    inside = answer[answer.find("(", fig.end) + 1 : close]
    theirs = {number(m.group(0)) for m in _NUMBER.finditer(texts)}
    return all(
        number(m.group(0)) in theirs or m.group(0) in given or number(m.group(0)) == fig.value
        for m in _NUMBER.finditer(inside)
    )
