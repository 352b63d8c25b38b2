"""Figures in an answer: each needs a citation in its sentence, and the cited passage must
state it (claim support). The ticket's own figures need neither."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.base import CheckInput, CheckResult, check, passed, ratio, skipped
from evals.checks.binding import bind
from evals.checks.language import detect
from evals.checks.text import SENTENCE_END, quote
from evals.checks.values import Figure, parse_figures, with_digits
from evals.suite import patterns
from evals.suite.case import Case

_BARE_NUMBER = regex.compile(r"\d(?:[\d.,':]*\d)?")
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
    texts = (*case.user_texts, *(str(v) for v in case.context.values() if v is not None))
    return _given_in(texts)


@lru_cache(maxsize=4096)
def _given_in(texts: tuple[str, ...]) -> tuple[frozenset[str], tuple[Figure, ...]]:
    # "ten seats" in the ticket backs "10 seats" too: numbers in words are read as digits.
    plain = [with_digits(t, detect(t) or "en")[0] for t in texts]
    nums = {_digits(m.group(0)) for t in plain for m in _BARE_NUMBER.finditer(t)}
    figs = tuple(f for t in texts for f in parse_figures(t))
    return frozenset(nums), figs


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


def sentence_citations(
    answer: str, fig: Figure, cite: regex.Pattern[str], window: int
) -> list[str]:
    """Refs cited after the figure before its sentence ends, or right after its full stop."""
    text = answer[fig.end : fig.end + window]
    end = SENTENCE_END.search(text)
    head = text if end is None else text[: end.start()]
    found = [
        m.group(1) if m.groups() else m.group(0)
        for m in cite.finditer(head, timeout=patterns.MATCH_TIMEOUT_S)
    ]
    if end is not None:
        rest = text[end.end() :]
        lead = len(rest) - len(rest.lstrip())
        while (m := cite.match(rest, lead, timeout=patterns.MATCH_TIMEOUT_S)) is not None:
            found.append(m.group(1) if m.groups() else m.group(0))
            lead = m.end() + (len(rest[m.end() :]) - len(rest[m.end() :].lstrip()))
    return found


@check()
def no_unsourced_number(inp: CheckInput) -> CheckResult:
    found = figures(inp.answer, inp.lang)
    if not found:
        return passed("no figures to source")
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    reported = inp.reply.cited
    if reported and cite.search(inp.answer, timeout=patterns.MATCH_TIMEOUT_S) is None:
        # A system that reports its citations beside the answer and marks none inline: its
        # figures are sourced by what it cites, and figures_supported checks each figure
        # against those passages.
        n = len(found)
        return ratio(
            n,
            n,
            f"{n} figures, no inline markers: sourced by the {len(reported)} reported citation(s)",
        )
    unsourced = []
    for fig in found:
        if from_ticket(fig, inp.case):
            continue
        if not sentence_citations(inp.answer, fig, cite, inp.settings.figure_window):
            unsourced.append(fig.text.strip())
    n = len(found)
    if unsourced:
        return ratio(n - len(unsourced), n, f"no citation after {quote(unsourced)}")
    return ratio(n, n, f"{n} figures, each sourced or from the question")


# "10 × 45 €", "4 seats at 29 €": a product of a stated figure and a count in the answer.
_TIMES = regex.compile(
    r"(?<![\d.,])(\d{1,4})\s*(?:×|x|\*|times|mal|fois|veces)\s", regex.IGNORECASE
)


_INTEGER = regex.compile(r"(?<![\d.,:])\d{1,4}(?![\d.,:]\d)")


def _factors(answer: str, fig: Figure, case: Case) -> tuple[int, ...]:
    """The counts a figure may be a product of: the numbers in its sentence ("10 more seats
    would be 450 €", "10 × 45 €") and the customer's own ("a team of four": 4 × 29 €)."""
    start = max(answer.rfind(".", 0, fig.start), answer.rfind("\n", 0, fig.start)) + 1
    sentence = with_digits(answer[start : fig.start], detect(answer) or "en")[0]
    said = {int(m.group(0)) for m in _INTEGER.finditer(sentence)}
    said |= {int(n) for n in _given(case)[0] if n.isdigit() and len(n) <= 4}
    return tuple(sorted(k for k in said if k > 1))


def _ticket_times(case: Case) -> tuple[Figure, ...]:
    """Clock times the customer gives: "from 21:45 to 22:00" spans one of theirs and a
    passage's."""
    return tuple(f for f in _given(case)[1] if f.kind == "time")


def passage_states(
    text: str, fig: Figure, factors: tuple[int, ...] = (), times: tuple[Figure, ...] = ()
) -> bool:
    """Whether a passage states the figure as a value (weeks as days, pm as 24-hour time), or
    derives it from two of its figures: a sum ("30 days, then a further 14" supports
    "44 days"), or the hours between two clock times ("22:00 to 06:00" supports "8 hours")."""
    stated = parse_figures(text)
    if any(fig.same(p) for p in stated):
        return True
    if fig.kind == "duration" and fig.unit == "minute":
        clock = [p.value for p in (*stated, *times) if p.kind == "time"]
        # Decimal's % keeps the dividend's sign: add a day first ("22:00 to 06:00" is 480).
        spans = {(b - a + 1440) % 1440 for a in clock for b in clock if a != b}  # type: ignore[operator]
        if fig.value in spans:
            return True
    if fig.kind not in ("duration", "money", "count"):
        return False
    alike = [p for p in stated if (p.kind, p.unit) == (fig.kind, fig.unit)]
    if any(a.value * k == fig.value for a in alike for k in factors):  # type: ignore[operator]
        return True
    return any(
        a.value + b.value == fig.value  # type: ignore[operator]
        for i, a in enumerate(alike)
        for b in alike[i + 1 :]
    )


@check()
def figures_supported(inp: CheckInput) -> CheckResult:
    found = [f for f in figures(inp.answer, inp.lang) if not from_ticket(f, inp.case)]
    if not found:
        return skipped("no figures beyond the ticket's own")
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    passages = {r.get("ref"): str(r.get("text") or "") for r in inp.case.retrieved}
    reported = inp.reply.cited
    judged = unsupported = 0
    bad: list[str] = []
    for fig in found:
        refs = sentence_citations(inp.answer, fig, cite, inp.settings.figure_window)
        if not refs and reported:
            # A system that reports its citations without inline markers: any cited passage.
            refs = list(reported)
        if not refs:
            continue  # no_unsourced_number reports it
        judged += 1
        factors, times = _factors(inp.answer, fig, inp.case), _ticket_times(inp.case)
        backing = [r for r in refs if passage_states(passages.get(r, ""), fig, factors, times)]
        if not backing:
            unsupported += 1
            bad.append(f"{fig.text.strip()} (cited {', '.join(refs)})")
            continue
        # Stated by the passage, but about what? Two figures swapped between their subjects
        # both occur in the passage, each about the other thing.
        binds = [
            bind(inp.answer, fig, passages.get(r, ""), inp.lang, inp.synonyms) for r in backing
        ]
        if not any(b.bound for b in binds):
            unsupported += 1
            other = next(b.other for b in binds if b.other)
            bad.append(f'{fig.text.strip()} (the passage says it about something else; "{other}")')
    if not judged:
        return skipped("no cited figures to check against their passages")
    if bad:
        return ratio(
            judged - unsupported, judged, f"not stated by the cited passage: {'; '.join(bad)}"
        )
    return ratio(judged, judged, f"{judged} cited figures, each stated by its passage")
