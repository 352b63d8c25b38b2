"""The figures an answer's sentence may lean on without a source: the customer's own (in
any turn of theirs or the ticket's context), the days between two of their dates, and the
counts a figure may be a product of."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.dates import days_between, month_ends, weekday_spans
from evals.checks.language import detect
from evals.checks.lexicon import lexicon
from evals.checks.text import SENTENCE_END
from evals.checks.values import Figure, parse_figures, with_digits
from evals.suite.case import Case

# A span ("for a week"), not a rate ("charges a year"): a word of duration before it.
_ONE_UNIT = regex.compile(
    r"\b(?:for|in|within|over|during)\s+(?:a|an|one)\s+(?:whole\s+|full\s+)?(day|week|month|year)\b",
    regex.IGNORECASE,
)
# Thousands grouped with a space ("1 700 €") are one number, not a "1" and a "700".
_BARE_NUMBER = regex.compile(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d(?:[\d.,':]*\d)?")
_ZERO_DECIMALS = regex.compile(r"[.,]0{1,2}$")


def figures(text: str, lang: str | None = None) -> list[Figure]:
    """Money, percentages, durations, times, dates and counts found in `text`, one per place."""
    seen: set[int] = set()
    out = []
    for f in parse_figures(text, lang):
        if f.start not in seen:
            seen.add(f.start)
            out.append(f)
    return out


def _digits(s: str) -> str:
    """A number's bare digits, zero decimals dropped: "45,00" and "45" agree."""
    return "".join(ch for ch in _ZERO_DECIMALS.sub("", s) if ch.isdigit())


def _given(case: Case) -> tuple[frozenset[str], tuple[Figure, ...]]:
    """The ticket's numbers and figures: the customer's own figures need no source.

    In a conversation that is every turn the customer wrote; an earlier assistant turn is
    not among them, since a figure the assistant stated before is no source for itself.
    """
    sha = case.sha
    known = _GIVEN.get(sha) if len(sha) == _SHA_LENGTH else None
    if known is None:
        texts = (*case.user_texts, *(str(v) for v in case.context.values() if v is not None))
        known = _given_in(texts)
        if len(sha) == _SHA_LENGTH:
            if len(_GIVEN) >= _GIVEN_KEPT:
                _GIVEN.clear()
            _GIVEN[sha] = known
    return known


# A case's given numbers and figures by its content hash (which covers the turns and the
# context they are read from): asked for every figure of every answer, where gathering the
# texts again and hashing them for `_given_in`'s memo cost more than the look-up.
_GIVEN: dict[str, tuple[frozenset[str], tuple[Figure, ...]]] = {}
_GIVEN_KEPT = 4096
_SHA_LENGTH = 64


@lru_cache(maxsize=4096)
def _given_in(texts: tuple[str, ...]) -> tuple[frozenset[str], tuple[Figure, ...]]:
    # "ten seats" in the ticket backs "10 seats" too: numbers in words are read as digits.
    plain = [with_digits(t, detect(t) or "en")[0] for t in texts]
    nums = {_digits(m.group(0)) for t in plain for m in _BARE_NUMBER.finditer(t)}
    figs = tuple(f for t in texts for f in parse_figures(t))
    # "going to London for a week": one of a unit, said with the English article, is the
    # customer's span too (7 days); other languages read "una settimana" as a number already.
    figs += tuple(
        f
        for t in texts
        for m in _ONE_UNIT.finditer(t)
        for f in parse_figures(f"1 {m.group(1)}", "en")
    )
    # The spans between two weekdays with their times the customer writes are theirs too.
    figs += tuple(f for t in texts for f in weekday_spans(t, None))
    # "We stop at the end of March": the month's last day is their date.
    figs += tuple(f for t in texts for f in month_ends(t, None))
    return frozenset(nums), figs


def given_numbers(case: Case) -> frozenset[str]:
    """The bare numbers the customer writes, in digits ("ten seats" as 10)."""
    return _given(case)[0]


def given_figures(case: Case) -> tuple[Figure, ...]:
    """The figures the customer states, in any of their turns or the ticket's context."""
    return _given(case)[1]


def from_ticket(fig: Figure, case: Case) -> bool:
    """The figure repeats one the customer states, in any of their turns (as a value, or as
    the same bare number)."""
    nums, figs = _given(case)
    if any(fig.same(g) for g in figs):
        return True
    # A figure in words ("ten seats") is its value's digits.
    value = format(fig.value, "f") if isinstance(fig.value, Decimal) else ""
    m = _BARE_NUMBER.search(fig.text) or _BARE_NUMBER.search(value)
    # A bare number in the ticket ("4 ppl", "39 per seat") backs the same number with a unit,
    # but a time's digits ("21:45") never back an amount ("45 €").
    return bool(m) and fig.kind not in ("time", "date", "day") and _digits(m.group(0)) in nums


def between(fig: Figure, given: tuple[Figure, ...], text: str) -> bool:
    """Whether a number of days is the span between two of the customer's dates whose days
    its sentence names ("from 18 to 30 October it is 12 days"); the answer's own dates are
    claims, not inputs."""
    if fig.kind != "duration":
        return False
    start = sentence_start(text, fig)
    stop = SENTENCE_END.search(text, fig.end)
    sentence = text[start : stop.end() if stop else len(text)]
    return days_between(fig, given, sentence)


_INTEGER = regex.compile(r"(?<![\d.,:])\d{1,4}(?![\d.,:]\d)")


MONTHS_A_YEAR = 12


def sentence_start(answer: str, fig: Figure) -> int:
    """Where the figure's sentence starts: after the last sentence end before it."""
    return max((m.end() for m in SENTENCE_END.finditer(answer, 0, fig.start)), default=0)


def counts_of(answer: str, fig: Figure, case: Case) -> tuple[int, ...]:
    """The counts a figure may be a product of: the other numbers of its sentence ("10 more
    seats would be 450 €", "72 € (3 × 24 €)") and the customer's own ("a team of four":
    4 × 29 €)."""
    # The sentence's start: the last sentence end before the figure ("2 a 7.95 EUR cada":
    # the point of 7.95 ends nothing).
    start = sentence_start(answer, fig)
    end = SENTENCE_END.search(answer, fig.end)
    stop = end.start() if end is not None else len(answer)
    lang = detect(answer) or "en"
    raw = answer[start : fig.start] + " " + answer[fig.end : stop]
    sentence = with_digits(raw, lang)[0]
    said = {int(m.group(0)) for m in _INTEGER.finditer(sentence)}
    said |= {int(n) for n in _given(case)[0] if n.isdigit() and len(n) <= 4}
    # "78 € per year" of a passage's "6,50 € per month": a year is twelve months.
    # Read in the words as written: "in un anno" is "in  1 anno" once numbers are digits.
    folded = f" {raw.casefold()} "
    if any(f" {p} " in folded or f" {p}," in folded for p in lexicon(lang).per_year):
        said.add(MONTHS_A_YEAR)
    return tuple(sorted(k for k in said if k > 1))
