"""What the checks leave undecided, as questions a judge can answer one by one, and how an
answer settles the check.

A check in `review` has found the words of a fact but not the fact, a figure but not what it
is about, or a promise it cannot back. Each such item becomes one yes-or-no question with a
quote as evidence. The quote is checked here, with the checks' own reading of text: it must
occur in what it quotes (the answer, or for a promise the passages and the ticket) and must
not sit in a negated clause. A quote that fails is an error for the check, never a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from evals.checks.answer import fact_states, figure_states
from evals.checks.base import CheckInput, CheckResult, errored, failed, is_refusal, passed
from evals.checks.clauses import clauses, corrects
from evals.checks.grounding import current_passages, known_text, promises, review_claims
from evals.checks.matching import BOUNDARY, NEG, clause_negated_before, content, tokens
from evals.checks.values import contains_value, parse_one

#: Where a question's quote must come from: the answer; the passages and the ticket as a
#: whole; one current passage or one of the customer's turns (a claim's source).
ANSWER, SOURCES, PASSAGES = "answer", "sources", "passages"
#: What a question is about: a fact, figure or promise a case lists or a hand-over makes
#: (the judge per fact), or a sentence of the answer the checks could not ground (per claim).
FACT, CLAIM = "fact", "claim"
# A judge may shorten its quote: "Pro costs ... per seat" is two pieces, each quoted exactly.
_ELLIPSIS = regex.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*")


@dataclass(frozen=True)
class Question:
    """One undecided item of one check, put as "does the text state that ...?"."""

    check: str
    #: The item as the check names it: a fact's label, a figure's label, a promise.
    item: str
    #: What must be stated, in the case's words.
    statement: str
    #: The expectation's accepted phrasings (the same meaning in other words counts too).
    phrasings: tuple[str, ...]
    #: ANSWER: the quote comes from the answer; SOURCES: from the passages or the ticket;
    #: PASSAGES: from one current passage or one customer turn.
    source: str = ANSWER
    kind: str = FACT

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "check": self.check,
            "item": self.item,
            "statement": self.statement,
            "source": self.source,
        }


@dataclass(frozen=True)
class Decision:
    """The judge's answer to one question: stated or not with its quote, or an error."""

    stated: bool | None
    quote: str = ""
    error: str | None = None


def open_questions(inp: CheckInput, results: dict[str, CheckResult]) -> list[Question]:
    """The questions that would decide every check the results leave in review."""
    out: list[Question] = []
    if _in_review(results, "facts_present"):
        for s in fact_states(inp):
            if s.state == "unsure":
                alts = s.item.alternatives
                out.append(Question("facts_present", s.item.label, alts[0], alts))
    if _in_review(results, "figures_expected"):
        states = figure_states(inp)
        for s in states if isinstance(states, list) else []:
            if s.state == "unbound" and s.item.about:
                alts = s.item.alternatives
                said = f"{s.item.about}: {alts[0]}"
                out.append(Question("figures_expected", s.item.label, said, alts))
    if _in_review(results, "claims_grounded"):
        said = promises(inp.answer) if is_refusal(inp) else []
        for sentence in said:
            stmt = f"the promise made in the answer holds: {sentence}"
            out.append(Question("claims_grounded", sentence, stmt, (sentence,), SOURCES))
        # Each sentence the check could not ground is one claim, asked of the passages.
        for sentence in review_claims(inp):
            # The citations were cut from it: "... 18:00 CET ." reads "... 18:00 CET.".
            flat = regex.sub(r"\s+(?=[.,;:!?])", "", " ".join(sentence.split()))
            if not any(flat in " ".join(p.split()) for p in said):
                out.append(Question("claims_grounded", flat, flat, (flat,), PASSAGES, kind=CLAIM))
    return out


def _in_review(results: dict[str, CheckResult], name: str) -> bool:
    r = results.get(name)
    return r is not None and r.status == "review"


def quote_problem(inp: CheckInput, q: Question, quote: str) -> str | None:
    """Why `quote` is no evidence for the question (None: it is evidence).

    It must occur in the text, read as the checks read it (case, accents, punctuation,
    contractions, stems), its pieces in order where it is cut with "...", inside one clause;
    must not be negated (no negation inside it that the statement lacks, none before it in
    its clause); quoting the answer, it must carry the fact: every content word and number
    of one phrasing that the answer holds, and for a negative fact a negation or correction.
    A claim's quote must hold within one passage or one customer turn.
    """
    pieces = [p for p in _ELLIPSIS.split(quote.strip()) if p.strip()]
    if not pieces:
        return "the quote is empty"
    where = {ANSWER: "answer", SOURCES: "passages or the ticket"}.get(
        q.source, "current passages or the customer's turns"
    )
    lang = inp.lang
    # A negative fact ("no refund after 14 days") is quoted with its negation.
    negates = any(NEG in tokens(p, lang) for p in q.phrasings)
    problems = [_in_one_clause(text, pieces, lang, negates) for text in evidences(inp, q)]
    if any(p is None for p in problems):
        return _carries(inp, q, quote, negates) if q.source == ANSWER else None
    # Found but negated somewhere says more than not found elsewhere.
    negated = [p for p in problems if p is not None and "negated" in p]
    chosen = negated[0] if negated else next(p for p in problems if p is not None)
    return chosen.replace("{where}", where)


def _in_one_clause(text: str, pieces: list[str], lang: str | None, negates: bool) -> str | None:
    """None when the pieces stand in order inside one clause of `text` and are not negated
    there; else why not ("{where}" stands for the text's name)."""
    wanted = [[w for w in tokens(p, lang) if w != BOUNDARY] for p in pieces]
    if not any(wanted):
        return None
    negated: str | None = None
    for _, piece_text in clauses(text):
        seq = tokens(piece_text, lang)
        words = [(i, w) for i, w in enumerate(seq) if w != BOUNDARY]
        plain = [w for _, w in words]
        at, ok = 0, True
        for piece, want in zip(pieces, wanted, strict=True):
            if not want:
                continue
            hit = _find_run(plain, want, at)
            if hit is None:
                ok = False
                break
            start = words[hit][0]
            if not negates and (NEG in want or clause_negated_before(seq, start)):
                negated = f"the quote {_short(piece)} is negated where it stands"
            at = hit + len(want)
        if ok:
            return negated
    whole = [w for w in tokens(text, lang) if w != BOUNDARY]
    at = 0
    for piece, want in zip(pieces, wanted, strict=True):
        hit = _find_run(whole, want, at) if want else at
        if hit is None:
            return "the quote " + _short(piece) + " is not in the {where}"
        at = hit + len(want)
    return "the quote spans more than one clause of the {where}"


def _carries(inp: CheckInput, q: Question, quote: str, negates: bool) -> str | None:
    """Why the quote does not carry the fact (None: it does): "The" or "Pro and Enterprise"
    is in the answer but says nothing of the fact."""
    lang, syn = inp.lang, inp.synonyms
    said = set(tokens(quote, lang, syn))
    if q.check == "figures_expected":
        figs = [f for f in (parse_one(p) for p in q.phrasings) if f is not None]
        if figs and not any(contains_value(quote, f, lang) for f in figs):
            return f"the quote {_short(quote)} does not state the figure"
        return None
    answer = set(tokens(inp.answer, lang, syn))
    for phrasing in q.phrasings:
        words = content(tokens(phrasing, lang, syn), lang)
        there = words & answer
        numbers = {w for w in words if w.isdigit()}
        if there and there <= said and numbers <= said:
            if negates and NEG not in said and not corrects(quote, lang):
                continue
            return None
    if negates and NEG not in said and not corrects(quote, lang):
        return f"the quote {_short(quote)} does not carry the fact's negation"
    return f"the quote {_short(quote)} does not carry the fact's words"


def _find_run(seq: list[str], want: list[str], start: int) -> int | None:
    n = len(want)
    for i in range(start, len(seq) - n + 1):
        if seq[i : i + n] == want:
            return i
    return None


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return f'"{text}"' if len(text) <= limit else f'"{text[: limit - 1]}…"'


def evidences(inp: CheckInput, q: Question) -> list[str]:
    """The texts a question's quote must come from, one of them whole: the answer; the
    passages and the ticket as one; for a claim, each current passage and each customer
    turn or ticket field apart (an earlier assistant turn or a retired passage backs no
    claim)."""
    if q.source == ANSWER:
        return [inp.answer]
    if q.source == SOURCES:
        return [known_text(inp)]
    case = inp.case
    ticket = [str(v) for v in case.context.values() if v is not None]
    return [*current_passages(inp), *case.user_texts, *ticket]


def settle(
    inp: CheckInput, name: str, asked: list[tuple[Question, Decision]]
) -> CheckResult | None:
    """The check's result once the judge has answered every question of it; None when the
    check had no question (it stays as it was)."""
    mine = [(q, d) for q, d in asked if q.check == name]
    if not mine:
        return None
    errors = [f"{q.item}: {d.error}" for q, d in mine if d.error is not None]
    if errors:
        return errored("the judge could not decide " + "; ".join(errors))
    yes = [f"{q.item} (\u201c{d.quote.strip()}\u201d)" for q, d in mine if d.stated]
    no = [q.item for q, d in mine if not d.stated]
    decided = f"decided by the judge: {', '.join(yes) or 'none stated'}"
    if name == "claims_grounded":
        unbacked = [q.item for q, d in mine if not d.stated and q.kind == FACT]
        unstated = [q.item for q, d in mine if not d.stated and q.kind == CLAIM]
        if unbacked:
            return failed(
                f"the hand-over promises what no passage backs (the judge): {'; '.join(unbacked)}"
            )
        if unstated:
            return failed(f"no passage states (the judge): {'; '.join(unstated)}")
        what = "promise is" if all(q.kind == FACT for q, _ in mine) else "claims are"
        return passed(f"the {what} backed by the sources; {decided}")
    states = fact_states(inp) if name == "facts_present" else figure_states(inp)
    if isinstance(states, CheckResult):
        return states
    required = [s for s in states if not s.item.optional]
    n = len(required) or 1
    # Only unsure (facts) or unbound (figures) items were asked; the rest were already met.
    met = n - len(no)
    noun = "facts" if name == "facts_present" else "figures"
    if no:
        return failed(f"not stated (the judge): {', '.join(no)}; {decided}", met / n)
    return passed(f"all {n} {noun} present; {decided}", 1.0)
