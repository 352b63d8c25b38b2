"""Checks on what the answer says: facts, figures, patterns, forbidden claims, language,
abstention, length."""

from __future__ import annotations

from dataclasses import dataclass

import regex

from evals.checks.akin import akin_found, opens_with_yes
from evals.checks.bare_no import denies_by_polarity
from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    errored,
    failed,
    is_refusal,
    passed,
    ratio,
    refusal_phrases,
    says_refusal,
    skipped,
    undecided,
)
from evals.checks.binding import about_state
from evals.checks.clauses import clauses, corrects, stated_text
from evals.checks.expectations import Item, items
from evals.checks.given import given_figures
from evals.checks.handover_facts import stated_by_hand_over
from evals.checks.language import DEFAULT_LANGUAGES, detect, language_scores
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import (
    BOUNDARY,
    MARKER,
    NEG,
    NEGATION_REACH,
    content,
    find,
    near,
    states,
    surface_words,
    tokens,
)
from evals.checks.other_words import in_other_words
from evals.checks.passage_units import as_passages_state
from evals.checks.text import sentences
from evals.checks.thing_counts import parse_expected, thing_counts
from evals.checks.values import Figure, contains_value, parse_figures
from evals.suite import patterns


def _graded(results: list[tuple[Item, bool]], noun: str, missing_word: str) -> CheckResult:
    """Pass when every required item is met; optional items are reported, never failed."""
    required = [(it, ok) for it, ok in results if not it.optional]
    missed = [it.label for it, ok in required if not ok]
    optional_missed = [it.label for it, ok in results if it.optional and not ok]
    note = f"; optional, not met: {', '.join(optional_missed)}" if optional_missed else ""
    n = len(required)
    if missed:
        return ratio(n - len(missed), n, f"{missing_word} {', '.join(missed)}{note}")
    if not required:
        return passed(f"only optional {noun}{note or ', all met'}")
    return ratio(n, n, f"all {n} {noun} present{note}")


# A fact none of whose phrasings matches, but with more than this share of its content words
# in the answer, is undecided: the words are there, their relation is not as written.
REVIEW_SHARE = 0.5


@dataclass(frozen=True)
class ItemState:
    """How one expected fact or figure stands in the answer.

    `state`: stated; negated (stated, but denied); unsure (its words are there, not as
    written: a person or the judge decides); missing; for figures also `unbound` (stated, but
    its clause names no subject) and `elsewhere` (stated about a rival subject)."""

    item: Item
    state: str
    note: str = ""


def fact_states(inp: CheckInput) -> list[ItemState]:
    """Each expected fact and whether the answer states it."""
    lang, syn = inp.lang, inp.synonyms
    # What the answer asks, puts under "it is not true that" or supposes counterfactually
    # does not state a fact.
    said = stated_text(inp.answer, lang)
    out: list[ItemState] = []
    for it in items(inp.case.expect.get("facts")):
        hits = [
            (alt, m) for alt in it.alternatives for m in find(said, alt, lang=lang, synonyms=syn)
        ]
        # A denial elsewhere in the answer is for expect.must_not_contain to name: facts are
        # phrased many ways, and "not only X" or "no, not once archived" deny nothing.
        denied = [alt for alt, m in hits if m.negated]
        ok = any(not m.negated for _, m in hits) or any(
            denies_by_polarity(inp.answer, alt, inp.case.question, lang=lang, synonyms=syn)
            for alt in it.alternatives
        )
        # "collega" where a hand-over is expected: any hand-over states it.
        ok = ok or stated_by_hand_over(inp, it.alternatives)
        flipped = [] if ok or hits else _flipped(said, it, lang, syn)
        if ok:
            out.append(ItemState(it, "stated"))
        elif hits or flipped:
            shown = denied[0] if denied else (flipped[0] if flipped else None)
            out.append(ItemState(it, "negated", f'"{shown}"' if shown else it.label))
        else:
            terms = None if it.optional else _key_terms_present(said, it, lang, syn)
            why = (
                None
                if it.optional
                else in_other_words(inp.answer, said, it.alternatives, lang, syn)
            )
            if terms is not None:
                out.append(ItemState(it, "unsure", f"its words {', '.join(terms)} are there"))
            elif why is not None:
                out.append(ItemState(it, "unsure", why))
            else:
                out.append(ItemState(it, "missing"))
    return out


@check()
def facts_present(inp: CheckInput) -> CheckResult:
    if not items(inp.case.expect.get("facts")):
        return skipped("no expect.facts")
    states_ = fact_states(inp)
    res = _graded([(s.item, s.state == "stated") for s in states_], "facts", "missing")
    negated = [s.note for s in states_ if s.state == "negated"]
    if negated and res.status == "fail":
        return failed(
            res.detail + f" (negated in the answer: {', '.join(negated)})", res.score or 0.0
        )
    missing = [s for s in states_ if s.state != "stated" and not s.item.optional]
    unsure = [f"{s.item.label} ({s.note})" for s in missing if s.state == "unsure"]
    if res.status == "fail" and unsure and len(unsure) == len(missing):
        # Every missing fact has its words in the answer: stated in other words, or not at
        # all. A person (or the judge) decides; a guess either way would be wrong too often.
        return undecided(f"not stated as written, but may be in other words: {'; '.join(unsure)}")
    return res


# The content words a negative fact must keep without its negation before its affirmative in
# the answer counts as a denial of it.
MIN_FLIPPED_WORDS = 3


def _flipped(
    answer: str, it: Item, lang: str | None, syn: tuple[tuple[str, ...], ...]
) -> list[str]:
    """A negative fact's phrasings whose affirmative the answer states: "payroll export is
    part of Starter" against the fact "payroll export is not part of Starter"."""
    out = []
    # After an opening yes, even a short affirmative is the claim: "Ja, uw e-bike is
    # verzekerd" against the fact "niet verzekerd".
    least = 1 if _plain_yes(answer, lang) else MIN_FLIPPED_WORDS
    for alt in it.alternatives:
        words = tokens(alt, lang, syn)
        if NEG not in words:
            continue
        positive = " ".join(w for w in alt.split() if NEG not in tokens(w, lang))
        # "no phone" without its "no" is "phone": too little to be a claim of the opposite.
        if len(content(tokens(positive, lang, syn), lang)) < least:
            continue
        # "comes with Pro rather than Starter" names Starter to set it apart: no flip.
        if any(
            states(piece, positive, lang=lang, synonyms=syn) and not corrects(piece, lang)
            for _, piece in clauses(answer)
        ):
            out.append(alt)
    return out


def _plain_yes(answer: str, lang: str | None) -> bool:
    """Whether the answer opens with a yes that no negation in its first sentence takes back
    ("Goed nieuws: nee." opens with good news, and says no)."""
    if not opens_with_yes(answer, lang):
        return False
    first = next((s for _, s in sentences(answer)), answer)
    return NEG not in tokens(first, lang)[:FIRST_WORDS]


#: The words of an opening sentence read for a negation that takes its yes back.
FIRST_WORDS = 8


def _key_terms_present(
    answer: str, it: Item, lang: str | None, syn: tuple[tuple[str, ...], ...]
) -> list[str] | None:
    """The fact's content words found in the answer, when enough of them are there."""
    best: list[str] | None = None
    for alt in it.alternatives:
        words = content(tokens(alt, lang, syn), lang)
        if not words:
            continue
        # Inflected or inside a compound counts too ("sospensione" for "sospendere").
        hits = akin_found(answer, alt, lang=lang, synonyms=syn)
        found = near(answer, alt, lang=lang, synonyms=syn) | set(hits)
        # A number is the point of a fact that has one: "114 days" is not "14 days" reworded.
        numbers_there = all(w in found for w in words if w.isdigit())
        enough = found and numbers_there and len(found) / len(words) > REVIEW_SHARE
        if enough and (best is None or len(found) > len(best)):
            # Quoted in the answer's own words, never as stems or a synonym group's head.
            theirs = {hits.get(w, w) for w in found}
            best = surface_words(answer, theirs, lang=lang, synonyms=syn) or sorted(found)
    return best


def figure_states(inp: CheckInput) -> list[ItemState] | CheckResult:
    """Each expected figure and whether (and about what) the answer states it; an error
    result when an expected figure is not one the parser reads."""
    wanted = items(inp.case.expect.get("figures"))
    abouts = [it.about for it in wanted if it.about]
    passages = tuple(str(r.get("text") or "") for r in inp.case.retrieved)
    # What the answer answers: every turn before it (a subject the answer leaves unsaid).
    ticket = "\n".join(str(t.get("content") or "") for t in inp.case.turns)
    cited = tuple(
        str(r.get("text") or "")
        for r in inp.case.retrieved
        if not inp.cited or r.get("ref") in inp.cited
    )
    out: list[ItemState] = []
    for it in wanted:
        figs = [f for f in (parse_expected(a) for a in it.alternatives) if f is not None]
        if not figs:
            return errored(f"expect.figures {it.label}: not a figure the parser reads")
        figs = [g for f in figs for g in as_passages_state(f, passages)]
        # Asked, put under "it is not true that" or supposed: not stated (same offsets).
        said = stated_text(inp.answer, inp.lang, given=given_figures(inp.case))
        stated = [s for f in figs for s in _stated_values(said, f, inp.lang)]
        if not stated:
            out.append(ItemState(it, "missing"))
            continue
        if it.about:
            rivals = [a for a in abouts if a != it.about]
            states_ = [
                about_state(inp.answer, s, it.about, rivals, inp.lang, inp.synonyms, ticket, cited)
                for s in stated
            ]
            if "bound" not in states_:
                state = "elsewhere" if "other" in states_ else "unbound"
                out.append(ItemState(it, state, f'{it.label} (stated, but not about "{it.about}")'))
                continue
        out.append(ItemState(it, "stated"))
    return out


@check()
def figures_expected(inp: CheckInput) -> CheckResult:
    if not items(inp.case.expect.get("figures")):
        return skipped("no expect.figures")
    states_ = figure_states(inp)
    if isinstance(states_, CheckResult):
        return states_
    # A figure stated without its subject still counts as stated here; review says so below.
    results = [(s.item, s.state in ("stated", "unbound")) for s in states_]
    res = _graded(results, "figures", "figure not stated:")
    elsewhere = [s.note for s in states_ if s.state == "elsewhere"]
    unbound = [s.note for s in states_ if s.state == "unbound"]
    if elsewhere and res.status == "fail":
        return failed(
            res.detail + f"; about another subject: {', '.join(elsewhere)}", res.score or 0.0
        )
    if unbound and res.status == "pass":
        # Said, not decided: a clause that names no subject was far likelier a correct
        # answer's than a wrong one's (docs/checks.md).
        return passed(
            res.detail + f"; its clause does not say what it is about: {', '.join(unbound)}"
        )
    return res


def _stated_values(answer: str, want: Figure, lang: str | None) -> list[Figure]:
    """Where the figure is stated, not negated in its clause ("Pro does not cost 45 €")."""
    found = thing_counts(answer, want, lang) or [
        f for f in parse_figures(answer, lang) if f.same(want)
    ]
    return [f for f in found if not _negated(answer, f, lang)]


def _negated(answer: str, fig: Figure, lang: str | None) -> bool:
    """Whether a negation stands before the figure in its clause ("not 300 €", "non i 300 €")."""
    # A colon or a dash ends what a negation before it denies: "Ainda não: nos primeiros
    # 3 meses ..." states the 3 months.
    window = _COLON_OR_DASH.split(MARKER.sub(" ", answer[max(0, fig.start - 60) : fig.start]))[-1]
    before = tokens(window, lang)[-NEGATION_REACH:]
    cut = max((i for i, w in enumerate(before) if w == BOUNDARY), default=-1)
    clause = before[cut + 1 :]
    if NEG not in clause:
        return False
    # A negation in a condition states its term: "if it has not arrived by 12:00", "se non
    # paghi entro 30 giorni" give the deadline. Read in the words as written: a stem of
    # "were" is a stem of "is".
    lex = lexicon(detect(answer) or lang or FALLBACK)
    words = [w.casefold() for w in _LETTERS.findall(_CLAUSE_BREAK.split(window)[-1])]
    first_neg = next((i for i, w in enumerate(words) if w in lex.negators), len(words))
    if any(w in lex.opens_condition for w in words[:first_neg]):
        return False
    # How long a negated state lasts: "kan du ikke booke hold i 14 dage", "you cannot book
    # for 14 days" deny the booking for the span the figure gives ("not for 14 days" denies
    # the span itself: no word of its own between the negation and "for").
    return not (
        fig.kind == "duration"
        and len(words) >= first_neg + 3
        and words[-1] in lex.for_a_span
        and any(w not in lex.negators for w in words[first_neg + 1 : -1])
    )


_COLON_OR_DASH = regex.compile(r"(?<!\d):(?!\d)|\s[–—-]\s")
_CLAUSE_BREAK = regex.compile(r"[,;.!?()]")
_LETTERS = regex.compile(r"\p{L}+")


@check()
def mentions_expected(inp: CheckInput) -> CheckResult:
    wanted = items(inp.case.expect.get("mentions"))
    if not wanted:
        return skipped("no expect.mentions")
    results = []
    for it in wanted:
        try:
            ok = any(patterns.search(p, inp.answer) for p in it.alternatives)
        except TimeoutError:
            return errored(f"pattern {it.label} timed out (catastrophic backtracking)")
        results.append((it, ok))
    return _graded(results, "patterns", "pattern not found:")


@check()
def answer_language(inp: CheckInput) -> CheckResult:
    want = inp.case.expect.get("language")
    if not want:
        return skipped("no expect.language")
    candidates = tuple(dict.fromkeys((*DEFAULT_LANGUAGES, want)))
    got = detect(inp.answer, candidates)
    if got is None:
        return passed(f"language not decidable from its words; expected {want}")
    if got != want:
        scores = language_scores(inp.answer, candidates)
        shown = ", ".join(f"{k} {v:.1f}" for k, v in scores.items() if v >= 0.05)
        return failed(f"answer reads as {got}, the ticket is in {want} (its words: {shown})")
    return passed(f"answer in {want}")


def _gives_expected_content(inp: CheckInput) -> bool:
    """Whether the answer states a required fact or figure of the case (so it did answer)."""
    expect = inp.case.expect
    for it in items(expect.get("facts")):
        if not it.optional and any(
            states(inp.answer, a, lang=inp.lang, synonyms=inp.synonyms) for a in it.alternatives
        ):
            return True
    for it in items(expect.get("figures")):
        figs = [f for f in (parse_expected(a) for a in it.alternatives) if f is not None]
        if not it.optional and any(
            contains_value(inp.answer, f, inp.lang) or thing_counts(inp.answer, f, inp.lang)
            for f in figs
        ):
            return True
    return False


@check()
def abstention(inp: CheckInput) -> CheckResult:
    should = bool(inp.case.expect.get("abstain", False))
    did = is_refusal(inp)
    how = "flag" if inp.reply.abstained is not None else "refusal phrases"
    if did == should:
        return passed(f"{'declined' if did else 'answered'} as expected ({how})")
    if should:
        return failed(f"answered, but should decline or hand over ({how})")
    if inp.reply.abstained is None and (_gives_expected_content(inp) or _handover_if(inp)):
        # "Enterprise is priced on request ...; I'll hand this over to sales for a quote"
        # answers the question and offers more: that is not declining; nor is a hand-over
        # offered under a condition ("Se era già assicurato ..., passo la Sua richiesta").
        return passed("answered, and offered a hand-over as well (refusal phrases)")
    return failed(f"declined, but the question is answerable ({how})")


def _handover_if(inp: CheckInput) -> bool:
    """Whether every sentence that hands over opens with a condition ("if", "se", "als")."""
    phrases = refusal_phrases(inp)
    opens = lexicon(inp.lang).opens_condition
    handing = [s for _, s in sentences(inp.answer) if says_refusal(s, phrases, inp.lang)]
    return bool(handing) and all(
        (s.split() or [""])[0].strip(",").casefold() in opens for s in handing
    )


@check()
def max_words(inp: CheckInput) -> CheckResult:
    limit = inp.case.expect.get("max_words")
    if not limit:
        return skipped("no expect.max_words")
    n = len(inp.answer.split())
    if n > limit:
        return failed(f"{n} words, limit {limit}")
    return passed(f"{n} words, limit {limit}")
