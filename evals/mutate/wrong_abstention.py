"""Mutants that get abstention wrong: a refusal where there is an answer, an answer where
there is none."""

from __future__ import annotations

import re

from evals.checks import contains_phrase
from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import Variant, operator
from evals.mutate.text import make_citation
from evals.suite.case import Case


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
