"""Mutation operators: small registered functions that turn a good answer into wrong ones.

Each operator is `(case, answer, ctx) -> list[Variant]` and returns nothing when it does not
apply; a variant it could not make is never a survivor. `mutant` operators make answers that
must fail; `invariant` operators make answers that mean the same and must still pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from evals.checks import contains_phrase
from evals.checks.citations import supports
from evals.mutate.answer import Answer, CaseContext
from evals.mutate.text import (
    SEQUENCE,
    Figure,
    make_citation,
    nearby_figure,
    replace_value,
)
from evals.mutate.words import NEGATION_LANGUAGES, negate
from evals.suite.case import Case

Kind = Literal["mutant", "invariant"]
# How many variants one operator makes from one answer at most: enough to cover the facts,
# few enough that a 1,000-case suite stays fast.
MAX_PER_OPERATOR = 4


@dataclass(frozen=True)
class Variant:
    """One altered answer and how it was made."""

    operator: str
    text: str
    note: str
    abstained: bool | None = None


Operator = Callable[[Case, Answer, CaseContext], list[Variant]]


class NotApplicable(Exception):
    """An operator cannot make a variant of this answer, and says why (shown as a note)."""


@dataclass(frozen=True)
class OperatorSpec:
    id: str
    fn: Operator
    kind: Kind
    summary: str


OPERATORS: dict[str, OperatorSpec] = {}


def operator(op_id: str, kind: Kind, summary: str) -> Callable[[Operator], Operator]:
    """Register an operator under a stable id (the id `mutation_exempt` entries name)."""

    def register(fn: Operator) -> Operator:
        OPERATORS[op_id] = OperatorSpec(op_id, fn, kind, summary)
        return fn

    return register


def _tidy(text: str) -> str:
    """Collapse the gaps a deletion leaves behind."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r" +([.,;:!?])", r"\1", text)
    return text.strip()


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


# ---------------------------------------------------------------------------
# Mutants: each must fail at least one of the case's checks.


def _fact_figure(fig: Figure, ans: Answer) -> bool:
    """A figure worth mutating: inside an expected fact, or quoted from the passages."""
    if any(s < fig.end and fig.start < e for _, s, e in ans.fact_spans):
        return True
    return any(p.kind == fig.kind and p.value == fig.value for p in ans.ctx.passage_figures)


@operator(
    "number_swap", "mutant", "a figure replaced by another of its kind, from the passages if any"
)
def number_swap(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    out: list[Variant] = []
    done: set[tuple[str, str]] = set()
    in_answer = {(f.kind, f.value) for f in ans.figures}
    for fig in ans.figures:
        key = (fig.kind, fig.value)
        if key in done or key in ctx.given_values or not _fact_figure(fig, ans):
            continue
        done.add(key)
        others = [p for p in ctx.passage_figures if p.kind == fig.kind and p.value != fig.value]
        # prefer a value the answer does not already state, like the wrong plan's price
        # and one of the same size: a status code for a status code, not for a year
        others.sort(key=lambda p: ((p.kind, p.value) in in_answer, len(p.value) != len(fig.value)))
        new = replace_value(fig, others[0]) if others else nearby_figure(fig)
        # every occurrence of the value changes, as when the answer quotes the wrong price
        same = [f for f in ans.figures if (f.kind, f.value) == key]
        text = _splice(ans.text, [(f.start, f.end, new) for f in same])
        where = "from the passages" if others else "nearby value"
        out.append(Variant("number_swap", text, f"{fig.text} -> {new} ({fig.kind}, {where})"))
        if len(out) >= MAX_PER_OPERATOR:
            break
    return out


@operator("negation", "mutant", "a negation added to or removed from a sentence carrying a fact")
def negation(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if ctx.should_abstain:
        return []  # a hand-over has no claim to flip; confident_answer covers these cases
    out = []
    targets = ans.fact_sentences()
    if not targets:
        # no expected fact to anchor on: the sentence carrying the first quoted figure
        figs = [f for f in ans.figures if _fact_figure(f, ans)]
        span = ans.sentence_at(figs[0].start) if figs else None
        if span:
            targets = [("figure " + figs[0].text, span, figs[0].start)]
    lang = ctx.language
    if lang not in NEGATION_LANGUAGES:
        raise NotApplicable(
            f"no negation rule for the case's language {lang!r} "
            f"(known: {', '.join(NEGATION_LANGUAGES)})"
        )
    for label, (s, e), pos in targets[:MAX_PER_OPERATOR]:
        flipped = negate(ans.text[s:e], pos - s, lang)
        if flipped and flipped != ans.text[s:e]:
            text = ans.text[:s] + flipped + ans.text[e:]
            out.append(Variant("negation", text, f"polarity flipped in the sentence with {label}"))
    if targets and not out:
        raise NotApplicable(
            f"no place for a negation in the sentence with {targets[0][0]} that the {lang!r} "
            "rules know (a variant no speaker would write is not made)"
        )
    return out


@operator("fact_sentence_deleted", "mutant", "every sentence carrying one expected fact deleted")
def fact_sentence_deleted(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    out = []
    by_label: dict[str, set[tuple[int, int]]] = {}
    for label, start, _ in ans.fact_spans:
        span = ans.sentence_at(start)
        if span:
            by_label.setdefault(label, set()).add(span)
    seen: set[frozenset[tuple[int, int]]] = set()
    for label, spans in by_label.items():
        key = frozenset(spans)
        if key in seen:
            continue
        seen.add(key)
        text = _tidy(_splice(ans.text, [(s, e, " ") for s, e in spans]))
        out.append(Variant("fact_sentence_deleted", text, f"deleted the sentence(s) with {label}"))
        if len(out) >= MAX_PER_OPERATOR:
            break
    return out


@operator("forbidden_inserted", "mutant", "a must_not_contain phrase inserted")
def forbidden_inserted(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    out = []
    for phrase in (case.expect.get("must_not_contain") or [])[:MAX_PER_OPERATOR]:
        sep = "" if ans.text.rstrip().endswith((".", "!", "?")) else "."
        text = f"{ans.text.rstrip()}{sep} {phrase}."
        out.append(Variant("forbidden_inserted", text, f'inserted "{phrase}"'))
    return out


@operator("citations_removed", "mutant", "every citation removed")
def citations_removed(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    # The rule is a source after every figure: an answer without figures of its own may
    # stand uncited, so taking its citations away does not make it wrong.
    own = [f for f in ans.figures if (f.kind, f.value) not in ctx.given_values]
    if not ans.cites or not any(f.kind != "number" for f in own):
        return []
    text = _tidy(_splice(ans.text, [(c.start, c.end, "") for c in ans.cites]))
    return [Variant("citations_removed", text, f"removed {len(ans.cites)} citation(s)")]


def _never(_: object) -> bool:
    return False


@operator("citation_moved", "mutant", "one citation moved to another retrieved ref")
def citation_moved(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if not ans.cites:
        return []
    sources = set(case.expect.get("sources") or []) | set(case.expect.get("may_cite") or [])
    cited = {c.ref for c in ans.cites}
    # moving to another expected source would not make the answer wrong
    targets = [r for r in ctx.retrieved_refs if r not in sources and r not in cited]
    targets += [r for r in ctx.retrieved_refs if r not in sources and r in cited]
    # move a citation of an expected source first: that is where a wrong attribution hurts
    order = sorted(ans.cites, key=lambda c: c.ref not in sources)
    passages = {r.get("ref"): str(r.get("text") or "") for r in case.retrieved}
    for c in order:
        # A wrong attribution: a passage that does not back the cited sentence (moving to
        # one that does, "SSO is Enterprise-only [pricing#plans]", is no mistake).
        claim = ans.text[max(0, ans.text.rfind(". ", 0, c.start) + 1) : c.start]
        target = next(
            (r for r in targets if r != c.ref and not supports(passages.get(r, ""), claim, _never)),
            None,
        )
        if target is None:
            continue
        text = ans.text[: c.ref_start] + target + ans.text[c.ref_end :]
        if ctx.cite.fullmatch(text[c.start : c.end + len(target) - len(c.ref)]) is None:
            continue  # the target ref cannot be written in the suite's citation format
        return [Variant("citation_moved", text, f"citation {c.ref} -> {target}")]
    return []


@operator(
    "citation_unretrieved", "mutant", "one citation pointing to a ref that was never retrieved"
)
def citation_unretrieved(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if not ans.cites:
        return []
    c = ans.cites[0]
    known = set(ctx.retrieved_refs)
    # the first made-up ref that the suite's citation pattern still reads as a citation
    for fake in (f"{c.ref}-archived", f"{c.ref}-old", f"{c.ref}x", f"{c.ref}9", "x" + c.ref):
        if fake in known:
            continue
        marker = ans.text[c.start : c.ref_start] + fake + ans.text[c.ref_end : c.end]
        m = ctx.cite.fullmatch(marker)
        if m and (m.group(1) if m.re.groups else m.group(0)) == fake:
            text = ans.text[: c.start] + marker + ans.text[c.end :]
            note = f"citation {c.ref} -> {fake} (never retrieved)"
            return [Variant("citation_unretrieved", text, note)]
    return []


@operator("refusal", "mutant", "the answer replaced by a refusal (answerable cases)")
def refusal(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if ctx.should_abstain:
        return []
    phrases = ctx.settings.refusal_phrases or ("i don't know",)
    phrase = phrases[0]
    text = phrase[:1].upper() + phrase[1:] + "."
    # abstained=None: the checks must recognise the refusal from its words
    return [Variant("refusal", text, f'replaced by a refusal ("{phrase}")', abstained=None)]


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@operator(
    "confident_answer", "mutant", "a confident answer from the passages (cases that must abstain)"
)
def confident_answer(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if not ctx.should_abstain:
        return []
    parts = []
    for p in case.retrieved[:2]:
        sentence = next(
            (
                s.strip()
                for s in _SENTENCE.findall(p["text"])
                if s.strip()
                and not any(contains_phrase(s, r) for r in ctx.settings.refusal_phrases)
            ),
            None,
        )
        if sentence:
            cite = make_citation(p["ref"], ans.cites, ans.text, ctx.template, ctx.cite)
            end = "" if sentence.endswith((".", "!", "?")) else "."
            parts.append(f"{sentence}{end}" + (f" {cite}" if cite else ""))
    text = " ".join(parts) if parts else "Yes, you can do that; it is all set for you."
    return [Variant("confident_answer", text, "answered from the passages instead of declining")]


@lru_cache(maxsize=4096)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")


@lru_cache(maxsize=4096)
def _doubled(name: str) -> re.Pattern[str]:
    """The name listed beside itself: what swapping one list member for another leaves."""
    w = re.escape(name)
    gap = r"\s*(?:,|/|&|\b(?:and|or|und|oder|y|o|et|ou)\b)\s*"
    return re.compile(rf"(?<![\w-]){w}{gap}{w}(?![\w-])", re.IGNORECASE)


@operator("entity_swap", "mutant", "a name (plan, product, place) swapped for a similar one")
def entity_swap(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    names = ctx.names
    taken = [(c.start, c.end) for c in ans.cites]
    present: dict[str, list[tuple[int, int]]] = {}
    # longest names first, so "Microsoft Teams" is one name and not "Teams" inside it
    for word in sorted(names.contexts, key=len, reverse=True):
        hits = []
        for m in _whole_word(word).finditer(ans.text):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                hits.append((m.start(), m.end()))
        if hits:
            present[word] = hits
            taken += hits
    out = []
    for word in sorted(present, key=lambda w: present[w][0]):
        # a name seen in the same place or the same list: "Pro plan" / "Business plan"
        new = names.closest(word, avoid=set(present))
        if new is None:
            continue
        text = _splice(ans.text, [(s, e, new) for s, e in present[word]])
        if _doubled(new).search(text) and not _doubled(new).search(ans.text):
            continue  # "pro Platz und Monat" -> "pro Monat und Monat" says nothing wrong
        out.append(Variant("entity_swap", text, f"{word} -> {new}"))
        if len(out) >= MAX_PER_OPERATOR:
            break
    return out


# ---------------------------------------------------------------------------
# Invariants: the same answer in a different form; a check that fails one is too strict.


@operator("whitespace", "invariant", "sentences on their own lines, blank space around the answer")
def whitespace(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    body = "\n".join(ans.text[s:e].strip() for s, e in ans.sentences)
    text = f"\n  {body}  \n"
    return [Variant("whitespace", text, "line breaks between sentences, padding around")]


@operator("punctuation", "invariant", "the final full stop dropped (or added)")
def punctuation(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    text = ans.text.rstrip()
    if not text:
        return []
    if text[-1] in ".!":
        new, note = text[:-1], "final punctuation dropped"
    elif text[-1] == "?":
        return []
    else:
        new, note = text + ".", "final full stop added"
    return [Variant("punctuation", new, note)]


@operator("letter_case", "invariant", "the answer in lower case (citations untouched)")
def letter_case(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    pieces, last = [], 0
    for c in ans.cites:
        pieces.append(ans.text[last : c.start].lower())
        pieces.append(ans.text[c.start : c.end])
        last = c.end
    pieces.append(ans.text[last:].lower())
    text = "".join(pieces)
    if text == ans.text:
        return []
    return [Variant("letter_case", text, "lower-cased outside citations")]


@operator("sentence_order", "invariant", "sentences in reverse order (when order does not matter)")
def sentence_order(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if len(ans.sentences) < 2 or SEQUENCE.search(ans.text):
        return []  # steps and lists: their order is part of the answer
    cite_starts = [c.start for c in ans.cites]
    for fig in ans.figures:
        if (fig.kind, fig.value) in ctx.given_values:
            continue
        span = ans.sentence_at(fig.start)
        # a figure whose citation sits in a later sentence would lose it when sentences move
        if span and cite_starts and not any(fig.end <= c < span[1] for c in cite_starts):
            return []
    parts = [ans.text[s:e].strip() for s, e in ans.sentences]
    if not re.search(r"[.!?]$", ctx.cite.sub("", parts[-1]).strip()):
        parts[-1] += "."
    text = " ".join(reversed(parts))
    return [Variant("sentence_order", text, f"{len(parts)} sentences reversed")]


def mutant_ids() -> list[str]:
    """Operators whose variants every check set should catch."""
    return [k for k, v in OPERATORS.items() if v.kind == "mutant"]


def invariant_ids() -> list[str]:
    """Operators whose variants should still pass (harmless rewordings)."""
    return [k for k, v in OPERATORS.items() if v.kind == "invariant"]


@dataclass
class AnswerVariants:
    """Every operator's variants for one good answer; an empty list means not applicable."""

    by_operator: dict[str, list[Variant]] = field(default_factory=dict)
    #: Operators that did not apply and said why.
    skipped: dict[str, str] = field(default_factory=dict)


def make_variants(case: Case, answer: str, ctx: CaseContext) -> AnswerVariants:
    """Run every operator on one good answer; a variant identical to the answer is dropped."""
    ans = Answer(answer, ctx)
    out = AnswerVariants()
    for op_id, spec in OPERATORS.items():
        try:
            variants = [v for v in spec.fn(case, ans, ctx) if v.text != answer]
        except NotApplicable as why:
            variants = []
            out.skipped[op_id] = str(why)
        out.by_operator[op_id] = variants
    return out
