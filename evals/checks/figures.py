"""Figures in an answer (money, percentages, times, quantities) and whether each is sourced."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.base import CheckInput, CheckResult, check, passed, ratio
from evals.checks.text import quote
from evals.suite import patterns
from evals.suite.case import Case

# An amount of money, a percentage, a time of day, or a number with a unit, in the
# languages the suites are written in. Money may lead with its symbol or code ("€45",
# "EUR 45") or trail it ("45,00 €"); a unit may be joined by a hyphen ("30-day trial").
_UNITS = (
    r"€|eur|euros?|usd|dollars?|\$|£|gbp|chf|%|percent|per ?cent|prozent|pour ?cent|"
    r"por ?ciento|days?|hours?|hrs?|h|minutes?|mins?|seconds?|secs?|weeks?|months?|years?|"
    r"seats?|users?|licen[cs]es?|gb|mb|tb|kb|km|kg|items?|shifts?|employees?|locations?|"
    r"tage?n?|stunden?|minuten?|monate?n?|jahre?n?|wochen?|plätze?n?|mitarbeiter(?:innen)?|"
    r"jours?|heures?|mois|ans|semaines?|días?|dias?|horas?|meses|mes|años?|semanas?"
)
# Digits with thousands or decimal separators; a group of three after a space ("2 000")
# belongs to the same number.
_NUM = r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?!\d)|\d(?:[\d.,']*\d)?"
FIGURE = regex.compile(
    rf"(?:[€$£]\s?(?:{_NUM}))"
    rf"|(?:\b(?:eur|usd|gbp|chf)\s?(?:{_NUM}))"
    rf"|(?:\b\d{{1,2}}:\d{{2}}\b)"
    rf"|(?:\b(?:{_NUM})(?:\s?|-)(?:{_UNITS})(?!\w))",
    regex.IGNORECASE,
)


def figures(text: str) -> list[regex.Match[str]]:
    """Money, percentages, times and quantities with a unit found in `text`."""
    return list(FIGURE.finditer(text))


_NUMBER = regex.compile(r"\d(?:[\d.,':\u00a0\u202f ]*\d)?")
_BARE_NUMBER = regex.compile(r"\d(?:[\d.,':]*\d)?")
_ZERO_DECIMALS = regex.compile(r"[.,]0{1,2}$")


def _value(s: str) -> str:
    """A figure's number as bare digits, zero decimals dropped: "45,00 €" and "€45" agree."""
    m = _NUMBER.search(s)
    return "".join(ch for ch in _ZERO_DECIMALS.sub("", m.group(0)) if ch.isdigit()) if m else ""


def _given_values(case: Case) -> frozenset[str]:
    """Every number the ticket or its context states: the customer's own figures need no source."""
    return _numbers_in((case.question, *(str(v) for v in case.context.values() if v is not None)))


@lru_cache(maxsize=4096)
def _numbers_in(texts: tuple[str, ...]) -> frozenset[str]:
    out: set[str] = set()
    for text in texts:
        out |= {_value(m.group(0)) for m in figures(text)}
        out |= {_value(m.group(0)) for m in _BARE_NUMBER.finditer(text)}
    return frozenset(out)


_SENTENCE_END = regex.compile(r"[.!?](?=\s|$)|\n")


def _cited_in_sentence(window: str, cite: regex.Pattern[str]) -> bool:
    """A citation before the sentence ends, or standing right after its full stop.

    A citation two sentences later belongs to another claim and does not count.
    """
    end = _SENTENCE_END.search(window)
    head = window if end is None else window[: end.start()]
    if cite.search(head, timeout=patterns.MATCH_TIMEOUT_S):
        return True
    if end is None:
        return False
    return cite.match(window[end.end() :].lstrip(), timeout=patterns.MATCH_TIMEOUT_S) is not None


@check()
def no_unsourced_number(inp: CheckInput) -> CheckResult:
    found = figures(inp.answer)
    if not found:
        return passed("no figures to source")
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    given = _given_values(inp.case)
    unsourced = []
    for m in found:
        if _value(m.group(0)) in given:
            continue
        window = inp.answer[m.end() : m.end() + inp.settings.figure_window]
        if not _cited_in_sentence(window, cite):
            unsourced.append(m.group(0).strip())
    n = len(found)
    if unsourced:
        return ratio(n - len(unsourced), n, f"no citation after {quote(unsourced)}")
    return ratio(n, n, f"{n} figures, each sourced or from the question")
