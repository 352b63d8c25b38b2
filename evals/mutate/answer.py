"""A case and a good answer taken apart once, for the mutation operators to read."""

from __future__ import annotations

from functools import cached_property

import regex

from evals.checks.expectations import Item, items
from evals.checks.matching import find
from evals.checks.values import Figure as ValueFigure
from evals.checks.values import parse_figures, parse_one
from evals.mutate.text import (
    Citation,
    Figure,
    citation_template,
    find_citations,
    find_figures,
    passage_figures,
    split_sentences,
)
from evals.mutate.words import Names, guess_language, name_candidates
from evals.suite import patterns
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

#: Tags that name a case's language.
LANGUAGE_TAGS = {
    "english": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "français": "fr",
    "spanish": "es",
    "español": "es",
    "italian": "it",
    "italiano": "it",
    "portuguese": "pt",
    "português": "pt",
    "dutch": "nl",
    "nederlands": "nl",
    "danish": "da",
    "dansk": "da",
    **{code: code for code in ("en", "de", "fr", "es", "it", "pt", "nl", "da")},
}


def case_language(case: Case) -> str:
    """The case's language: `expect.language`, else `context.locale` ("de-DE" is "de"), else
    a language tag, else a guess from the question and the reference."""
    declared = case.expect.get("language")
    if isinstance(declared, str) and declared.strip():
        return declared.strip().lower()
    locale = case.context.get("locale")
    if isinstance(locale, str) and locale.strip():
        return regex.split(r"[-_]", locale.strip().lower())[0]
    for tag in case.data.get("tags") or []:
        if isinstance(tag, str) and tag.lower() in LANGUAGE_TAGS:
            return LANGUAGE_TAGS[tag.lower()]
    return guess_language(f"{case.question} {case.data.get('reference') or ''}")


class CaseContext:
    """What operators read about a case beyond the answer: computed once per case."""

    def __init__(self, case: Case, settings: SuiteSettings, retrieved: list[str] | None = None):
        self.case = case
        self.settings = settings
        self.cite = patterns.compile_pattern(settings.citation_pattern)
        self.retrieved_refs = list(retrieved) if retrieved is not None else case.retrieved_refs
        self.passages = [p["text"] for p in case.retrieved]

    @cached_property
    def template(self) -> str | None:
        return citation_template(self.settings.citation_pattern)

    @cached_property
    def passage_figures(self) -> list[Figure]:
        return [f for text in self.passages for f in passage_figures(text)]

    @cached_property
    def given_values(self) -> set[tuple[str, str]]:
        """Figures the user supplied (every turn they wrote, context): echoing them is not a
        fact to mutate."""
        found = {(f.kind, f.value) for t in self.case.user_texts for f in find_figures(t)}
        for v in self.case.context.values():
            if v is not None:
                found |= {(f.kind, f.value) for f in find_figures(str(v))}
        return found

    @cached_property
    def names(self) -> Names:
        return name_candidates(tuple(self.passages))

    @cached_property
    def facts(self) -> list[Item]:
        """Required facts; an optional point is not a fact a mutant must remove."""
        return [it for it in items(self.case.expect.get("facts")) if not it.optional]

    @cached_property
    def figures(self) -> list[tuple[str, ValueFigure]]:
        out = []
        for it in items(self.case.expect.get("figures")):
            if it.optional:
                continue
            for alt in it.alternatives:
                fig = parse_one(alt)
                if fig is not None:
                    out.append((alt, fig))
        return out

    @cached_property
    def mentions(self) -> list[regex.Pattern[str]]:
        return [
            patterns.compile_pattern(p)
            for it in items(self.case.expect.get("mentions"))
            if not it.optional
            for p in it.alternatives
        ]

    @cached_property
    def language(self) -> str:
        return case_language(self.case)

    @property
    def should_abstain(self) -> bool:
        return bool(self.case.expect.get("abstain", False))


class Answer:
    """A good answer taken apart once: citations, sentences, figures, fact locations."""

    def __init__(self, text: str, ctx: CaseContext):
        self.text = text
        self.ctx = ctx
        self.cites: list[Citation] = find_citations(text, ctx.cite)
        self.sentences = split_sentences(text, self.cites)
        self.figures = find_figures(text, [(c.start, c.end) for c in self.cites])

    @cached_property
    def fact_spans(self) -> list[tuple[str, int, int]]:
        """(label, start, end) of every expected fact or mention match in the answer.

        A match inside a figure the ticket gave (the `45` of the customer's 21:45) is not
        where the fact is stated, so it is left out.
        """
        echoes = [
            (f.start, f.end) for f in self.figures if (f.kind, f.value) in self.ctx.given_values
        ]
        out = []
        for s, e in self.sentences:
            sentence = self.text[s:e]
            for it in self.ctx.facts:
                if any(find(sentence, alt) for alt in it.alternatives):
                    out.append((f"fact {it.label}", s, e))
        for f in parse_figures(self.text):
            for label, want in self.ctx.figures:
                if f.same(want):
                    out.append((f'figure "{label}"', f.start, f.end))
        for pat in self.ctx.mentions:
            try:
                for m in pat.finditer(self.text, timeout=patterns.MATCH_TIMEOUT_S):
                    if m.end() > m.start():
                        out.append((f"mention /{pat.pattern}/", m.start(), m.end()))
            except TimeoutError:
                continue
        return [t for t in out if not any(s <= t[1] and t[2] <= e for s, e in echoes)]

    def sentence_at(self, pos: int) -> tuple[int, int] | None:
        for s, e in self.sentences:
            if s <= pos < e:
                return s, e
        return None

    def fact_sentences(self) -> list[tuple[str, tuple[int, int], int]]:
        """Sentences that carry an expected fact: (label, span, fact start), first per sentence."""
        seen: dict[tuple[int, int], tuple[str, int]] = {}
        for label, start, _ in self.fact_spans:
            span = self.sentence_at(start)
            if span and span not in seen:
                seen[span] = (label, start)
        return [(label, span, pos) for span, (label, pos) in sorted(seen.items())]
