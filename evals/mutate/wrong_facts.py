"""Mutants that change what the answer states: a figure, a polarity, a fact's sentence, a
forbidden phrase."""

from __future__ import annotations

import re

import regex

from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import MAX_PER_OPERATOR, NotApplicable, Variant, operator
from evals.mutate.text import Figure, nearby_figure, replace_value, splice, tidy
from evals.mutate.words import NEGATION_LANGUAGES, negate
from evals.suite.case import Case

_YEAR = re.compile(r"(?:19|20)\d\d")
_NAME_BEFORE = regex.compile(r"\p{Lu}[\p{L}\p{N}]*\s?$")


def _inside_name(fig: Figure, text: str) -> bool:
    """A bare number that belongs to a name, not a figure: "listino 2025", "Windows 11".

    Swapping it ("listino 2") makes a variant no writer would produce, and tells nothing of
    the checks; a year inside a date is a date figure and is swapped as one."""
    if fig.kind != "number":
        return False
    if _YEAR.fullmatch(fig.text):
        return True
    return bool(_NAME_BEFORE.search(text[max(0, fig.start - 30) : fig.start]))


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
        if key in done or key in ctx.given_values or _inside_name(fig, ans.text):
            continue
        if not _fact_figure(fig, ans):
            continue
        done.add(key)
        others = [p for p in ctx.passage_figures if p.kind == fig.kind and p.value != fig.value]
        # prefer a value the answer does not already state, like the wrong plan's price
        # and one of the same size: a status code for a status code, not for a year
        others.sort(key=lambda p: ((p.kind, p.value) in in_answer, len(p.value) != len(fig.value)))
        new = replace_value(fig, others[0]) if others else nearby_figure(fig)
        # every occurrence of the value changes, as when the answer quotes the wrong price
        same = [f for f in ans.figures if (f.kind, f.value) == key]
        text = splice(ans.text, [(f.start, f.end, new) for f in same])
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
            # The flipped sentence's opening words make each variant's change its own, so an
            # exemption can name one ("change" matches the start of what the report prints).
            opening = " ".join(flipped.split()[:6])
            note = f'polarity flipped in the sentence with {label}: "{opening}"'
            out.append(Variant("negation", text, note))
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
        text = tidy(splice(ans.text, [(s, e, " ") for s, e in spans]))
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
