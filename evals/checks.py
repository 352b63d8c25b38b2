"""CheckResult, the `@check` registry and the built-in deterministic checks."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import regex

from evals import patterns
from evals.case import Case
from evals.reply import Reply
from evals.suite import SuiteSettings

Status = Literal["pass", "fail", "error", "skip"]


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict: `error` and `skip` carry no score."""

    status: Status
    score: float | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "score": self.score, "detail": self.detail}


def passed(detail: str, score: float = 1.0) -> CheckResult:
    return CheckResult("pass", score, detail)


def failed(detail: str, score: float = 0.0) -> CheckResult:
    return CheckResult("fail", score, detail)


def skipped(detail: str) -> CheckResult:
    return CheckResult("skip", None, detail)


def errored(detail: str) -> CheckResult:
    return CheckResult("error", None, detail)


def ratio(found: int, total: int, detail: str) -> CheckResult:
    """Pass when everything was found; the score is the share found either way."""
    score = found / total if total else 1.0
    return passed(detail, score) if found == total else failed(detail, score)


@dataclass
class CheckInput:
    """Everything a check may read: the case, the reply and the suite's settings."""

    case: Case
    reply: Reply
    settings: SuiteSettings = field(default_factory=SuiteSettings)

    @property
    def answer(self) -> str:
        return self.reply.answer

    @property
    def cited(self) -> list[str]:
        """Refs cited: what the system reported, else what the citation pattern finds."""
        if self.reply.cited is not None:
            return list(self.reply.cited)
        return cited_refs(self.reply.answer, self.settings.citation_pattern)

    @property
    def retrieved(self) -> list[str]:
        """Refs retrieved: what the system reported, else the case's frozen retrieval."""
        if self.reply.retrieved is not None:
            return list(self.reply.retrieved)
        return self.case.retrieved_refs


CheckFn = Callable[[CheckInput], CheckResult]


@dataclass(frozen=True)
class CheckSpec:
    name: str
    fn: CheckFn


REGISTRY: dict[str, CheckSpec] = {}


def check(name: str | None = None) -> Callable[[CheckFn], CheckFn]:
    """Register a check under `name` (default: the function's name).

    Which checks a case runs when it lists none is decided in `grading.implied_checks`.
    """

    def register(fn: CheckFn) -> CheckFn:
        REGISTRY[name or fn.__name__] = CheckSpec(name or fn.__name__, fn)
        return fn

    return register


# Typographic variants mapped to their plain form, and invisible characters dropped:
# an answer typed with smart quotes, a non-breaking hyphen or a soft hyphen says the same.
_PLAIN = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u00ad": None,
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
    }
)
# "45 €" and "45€", "€ 45" and "€45", "15 %" and "15%" are one figure.
_SYMBOL_GAP = regex.compile(r"(?<=\d) (?=[€$£%])|(?<=[€$£]) (?=\d)")


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """NFKC, case-folded, typographic quotes and dashes unified, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_PLAIN)
    return _SYMBOL_GAP.sub("", " ".join(text.split()))


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether the normalised phrase occurs in the normalised text on word boundaries."""
    t, p = normalise(text), normalise(phrase)
    if not p:
        return False
    start = 0
    while (i := t.find(p, start)) != -1:
        before = t[i - 1] if i else " "
        after = t[i + len(p)] if i + len(p) < len(t) else " "
        if not (p[0].isalnum() and before.isalnum()) and not (p[-1].isalnum() and after.isalnum()):
            return True
        start = i + 1
    return False


def cited_refs(answer: str, pattern: str) -> list[str]:
    """Refs cited in the text, in order, without repeats."""
    return list(_cited(answer, pattern))


@lru_cache(maxsize=8192)
def _cited(answer: str, pattern: str) -> tuple[str, ...]:
    # Cached: several checks read the citations of the same answer.
    seen: dict[str, None] = {}
    for m in patterns.compile_pattern(pattern).finditer(answer, timeout=patterns.MATCH_TIMEOUT_S):
        seen.setdefault(m.group(1) if m.groups() else m.group(0), None)
    return tuple(seen)


def is_refusal(inp: CheckInput) -> bool:
    """The explicit flag when the system gave one, else the suite's refusal phrases."""
    if inp.reply.abstained is not None:
        return inp.reply.abstained
    return any(contains_phrase(inp.answer, p) for p in inp.settings.refusal_phrases)


def _quote(items: list[str]) -> str:
    return ", ".join(f'"{s}"' for s in items)


@check()
def facts_present(inp: CheckInput) -> CheckResult:
    facts = inp.case.expect.get("facts") or []
    if not facts:
        return skipped("no expect.facts")
    missing = [f for f in facts if not contains_phrase(inp.answer, f)]
    if missing:
        return ratio(len(facts) - len(missing), len(facts), f"missing {_quote(missing)}")
    return ratio(len(facts), len(facts), f"all {len(facts)} facts present")


@check()
def mentions_expected(inp: CheckInput) -> CheckResult:
    pats = inp.case.expect.get("mentions") or []
    if not pats:
        return skipped("no expect.mentions")
    missing = []
    for p in pats:
        try:
            if not patterns.search(p, inp.answer):
                missing.append(p)
        except TimeoutError:
            return errored(f"pattern {p!r} timed out (catastrophic backtracking)")
    if missing:
        return ratio(len(pats) - len(missing), len(pats), f"pattern not found: {_quote(missing)}")
    return ratio(len(pats), len(pats), f"all {len(pats)} patterns match")


@check()
def no_forbidden(inp: CheckInput) -> CheckResult:
    phrases = inp.case.expect.get("must_not_contain") or []
    if not phrases:
        return skipped("no expect.must_not_contain")
    hits = [p for p in phrases if contains_phrase(inp.answer, p)]
    if hits:
        return failed(f"forbidden phrase present: {_quote(hits)}")
    return passed(f"none of {len(phrases)} forbidden phrases")


@check()
def sources_cited(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    cited = set(inp.cited)
    missing = [s for s in sources if s not in cited]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not cited: {_quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources cited")


@check()
def citations_resolve(inp: CheckInput) -> CheckResult:
    cited = inp.cited
    if not cited:
        return failed("the answer cites nothing")
    available = set(inp.retrieved)
    unknown = [c for c in cited if c not in available]
    if unknown:
        return failed(f"cited but not retrieved: {_quote(unknown)}")
    return passed(f"{len(cited)} citations, all retrieved")


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
        return ratio(n - len(unsourced), n, f"no citation after {_quote(unsourced)}")
    return ratio(n, n, f"{n} figures, each sourced or from the question")


@check()
def retrieval_recall(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    got = set(inp.retrieved)
    missing = [s for s in sources if s not in got]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not retrieved: {_quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources retrieved")


@check()
def citation_precision(inp: CheckInput) -> CheckResult:
    sources = set(inp.case.expect.get("sources") or [])
    cited = inp.cited
    if not cited:
        return skipped("no citations to judge (see citations_resolve)")
    retrieved = set(inp.retrieved)
    off = [c for c in cited if c not in retrieved or c not in sources]
    good = len(cited) - len(off)
    if off:
        return ratio(good, len(cited), f"cited refs not both retrieved and expected: {_quote(off)}")
    return ratio(good, len(cited), f"all {len(cited)} citations expected and retrieved")


@check()
def abstention(inp: CheckInput) -> CheckResult:
    should = bool(inp.case.expect.get("abstain", False))
    did = is_refusal(inp)
    how = "flag" if inp.reply.abstained is not None else "refusal phrases"
    if did == should:
        return passed(f"{'declined' if did else 'answered'} as expected ({how})")
    if should:
        return failed(f"answered, but should decline or hand over ({how})")
    return failed(f"declined, but the question is answerable ({how})")


@check()
def max_words(inp: CheckInput) -> CheckResult:
    limit = inp.case.expect.get("max_words")
    if not limit:
        return skipped("no expect.max_words")
    n = len(inp.answer.split())
    if n > limit:
        return failed(f"{n} words, limit {limit}")
    return passed(f"{n} words, limit {limit}")
