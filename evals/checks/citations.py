"""Checks on sources: cited, resolvable, retrieved, precise."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import regex

from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    failed,
    is_refusal,
    passed,
    ratio,
    skipped,
    undecided,
)
from evals.checks.clauses import corrects, sentence_at
from evals.checks.given import figures, from_ticket, given_figures
from evals.checks.language import detect
from evals.checks.matching import NEG, content, tokens
from evals.checks.passage_figures import passage_states
from evals.checks.text import SENTENCE_END, quote, sentences
from evals.checks.things import archived
from evals.checks.values import Figure
from evals.suite import patterns


@check()
def sources_cited(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    cited = set(inp.cited)
    missing = [s for s in sources if s not in cited]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not cited: {quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources cited")


@check()
def citations_resolve(inp: CheckInput) -> CheckResult:
    cited = inp.cited
    if not cited:
        # Citing is the prompt's rule for figures: no_unsourced_number holds every figure to it.
        return skipped("the answer cites nothing (its figures are checked by no_unsourced_number)")
    available = set(inp.retrieved)
    unknown = [c for c in cited if c not in available]
    if unknown:
        return failed(f"cited but not retrieved: {quote(unknown)}")
    return passed(f"{len(cited)} citations, all retrieved")


@check()
def retrieval_recall(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    got = set(inp.retrieved)
    missing = [s for s in sources if s not in got]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not retrieved: {quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources retrieved")


def _claims_citing(answer: str, ref: str, cite: regex.Pattern[str]) -> list[str]:
    """The stretch of text each citation of `ref` stands for: back to the previous citation,
    the start of its sentence, or a ';' (a citation right after a full stop closes the
    sentence before it). Citations side by side ("[doc:a] [doc:b]") stand for one stretch."""
    marks = list(cite.finditer(answer, timeout=patterns.MATCH_TIMEOUT_S))
    out = []
    for n, m in enumerate(marks):
        got = m.group(1) if m.groups() else m.group(0)
        if got != ref:
            continue
        first = n
        while first and not answer[marks[first - 1].end() : marks[first].start()].strip():
            first -= 1
        floor = marks[first - 1].end() if first else 0
        before = answer[floor : marks[first].start()].rstrip()
        body = before[:-1] if before.endswith((".", "!", "?")) else before
        # A sentence's end as the checks read one: "zzgl. MwSt." or "excl. btw" ends nothing.
        ends = [e.end() for e in SENTENCE_END.finditer(body)]
        cut = max([*ends, body.rfind(";") + 1, 0])
        out.append(body[cut:].strip())
    return out


def _citing_at(answer: str, ref: str, cite: regex.Pattern[str]) -> list[int]:
    return [
        m.start()
        for m in cite.finditer(answer, timeout=patterns.MATCH_TIMEOUT_S)
        if (m.group(1) if m.groups() else m.group(0)) == ref
    ]


def supports(
    passage: str,
    sentence: str,
    case_figures: Callable[[Figure], bool],
    lang: str | None = None,
    states: Callable[[str, Figure], bool] = passage_states,
    corrected: bool = False,
) -> bool:
    """Whether a passage backs a sentence: it states (`states`: as a value, or computed)
    every figure of the sentence that is not the ticket's own; a sentence with only the
    ticket's figures ("your 59 € a month [doc:plans]") when it states one of them; else
    (no figures) when it shares the sentence's content words. A passage marked ARCHIVED
    backs those two only where the sentence (or, `corrected`, the sentence of the
    citation) says it no longer applies."""
    found = figures(sentence, lang)
    figs = [f for f in found if not case_figures(f)]
    if figs:
        return all(states(passage, f) for f in figs)
    # Beyond figures of its own, a retired passage backs a sentence only when the sentence
    # says it no longer applies: "your contract stays at 39 € [doc:archive-2025]" (the
    # customer's 39 €) presents the archived list as current.
    if archived(passage) and not (corrected or corrects(sentence)):
        return False
    if any(states(passage, f) for f in found):
        return True
    said = {w for w in content(tokens(sentence, lang), lang) if len(w) >= 4}
    if not said:
        return False
    theirs = content(tokens(passage, lang), lang)
    # Stems of one word may differ in their ending ("addebito" addeb, "addebitato" addebit).
    shared = {w for w in said if w in theirs or any(_akin(w, t) for t in theirs)}
    if len(shared) >= 2 and len(shared) / len(said) >= 0.3:
        return True
    # A short denial that a passage sentence denies too ("Ik kan de opzegging zelf niet
    # verwerken" of "Hij kan ... geen polis wijzigen of opzeggen"): one shared word, both
    # negated.
    return len(said) <= _SHORT and len(shared) == 1 and _denied_alike(passage, sentence, lang)


#: Content words of a sentence short enough that one shared word and a shared denial back it.
_SHORT = 3


def _denied_alike(passage: str, sentence: str, lang: str | None) -> bool:
    """Whether the sentence is negated and a passage sentence with its shared word is too."""
    mine = tokens(sentence, lang)
    if NEG not in mine:
        return False
    words = set(content(mine, lang))
    for _, part in sentences(passage):
        theirs = tokens(part, lang)
        if NEG in theirs and words & set(content(theirs, lang)):
            return True
    return False


def _other_language(
    sentence: str, said_in: str | None, passage: str, case_figures: Callable[[Figure], bool]
) -> bool:
    """Whether a sentence without figures of its own (of an answer written in `said_in`) and
    its cited passage are written in two languages (both told)."""
    # A retired passage's verdict needs no words: it backs no sentence that keeps it current.
    if archived(passage) or any(not case_figures(f) for f in figures(sentence)):
        return False
    theirs = detect(passage)
    return said_in is not None and theirs is not None and said_in != theirs


def _akin(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= 5 and long.startswith(short)


def _states(
    passage: str, fig: Figure, given: tuple[Figure, ...], beside: tuple[Figure, ...]
) -> bool:
    return passage_states(passage, fig, given=given, beside=beside)


@check()
def citation_precision(inp: CheckInput) -> CheckResult:
    expect = inp.case.expect
    sources = set(expect.get("sources") or []) | set(expect.get("may_cite") or [])
    cited = inp.cited
    if not cited:
        return skipped("no citations to judge (see citations_resolve)")
    retrieved = set(inp.retrieved)
    passages = {r.get("ref"): str(r.get("text") or "") for r in inp.case.retrieved}
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    off: list[str] = []
    unread: list[str] = []
    # The whole answer tells its language; a short claim alone may not ("a roof rack").
    said_in = detect(inp.answer) or inp.lang
    for ref in cited:
        if ref not in retrieved:
            off.append(ref)
            continue
        if ref in sources:
            continue
        where = _claims_citing(inp.answer, ref, cite) or [inp.answer]
        mine = partial(from_ticket, case=inp.case)
        # A computed figure may take inputs from the ticket and the other cited passages.
        given = given_figures(inp.case)
        beside = tuple(f for r in cited if r != ref for f in figures(passages.get(r, "")))
        states = partial(_states, given=given, beside=beside)
        # A retired passage may back what a sentence names in order to correct it.
        retired_ok = any(
            corrects(sentence_at(inp.answer, i)) for i in _citing_at(inp.answer, ref, cite)
        )
        text = passages.get(ref, "")
        if not any(supports(text, s, mine, inp.lang, states, retired_ok) for s in where):
            # Sentences without figures of their own are read against a passage by its
            # words: one written in another language than the sentence cannot be told.
            if all(_other_language(s, said_in, text, mine) for s in where):
                unread.append(ref)
            else:
                off.append(ref)
    good = len(cited) - len(off)
    if not off and unread:
        return undecided(
            f"cited refs in another language than their sentence, whose words cannot be "
            f"compared: {quote(unread)}"
        )
    if off:
        return ratio(
            good,
            len(cited),
            f"cited refs neither expected nor supporting their sentence: {quote(off)}",
        )
    return ratio(
        good, len(cited), f"all {len(cited)} citations retrieved and expected or supporting"
    )


@check()
def claim_support(inp: CheckInput) -> CheckResult:
    """The share of the answer's annotated claims that a person found a supporting chunk for,
    among the chunks the answer cited or the system retrieved."""
    if not inp.case.expect.get("claim_support"):
        return skipped("no expect.claim_support")
    claims = inp.reply.claims or []
    if not claims:
        if is_refusal(inp):
            return passed("declined: no claim to support")
        # Review work left undone must not pass silently: an answer nobody split into
        # claims has no supported claim to show.
        return failed("no claim annotations for this answer (an answer scores 0 until reviewed)")
    available = set(inp.cited) | set(inp.retrieved)
    bad = [c["claim"] for c in claims if not any(r in available for r in c["support"])]
    n = len(claims)
    if bad:
        shown = quote([b if len(b) <= 80 else b[:79] + "…" for b in bad])
        return ratio(n - len(bad), n, f"no supporting chunk cited or retrieved for {shown}")
    return ratio(n, n, f"all {n} annotated claims supported by a cited or retrieved chunk")
