"""Invariants: the same answer in a different form; a check that fails one is too strict."""

from __future__ import annotations

import re

from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import Variant, operator
from evals.mutate.text import SEQUENCE
from evals.suite.case import Case


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
