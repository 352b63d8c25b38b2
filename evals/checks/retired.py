"""A figure named as retired: cited to a passage marked ARCHIVED in a sentence that says the
thing no longer applies ("De warmtepomp voor 39 € per maand boden we aan tot 1 september
[doc:warmtepomp#archief]; dat product is stopgezet")."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.base import CheckInput
from evals.checks.clauses import clauses, corrects
from evals.checks.figure_citations import own_citations
from evals.checks.matching import MARKER, Synonyms, content, tokens
from evals.checks.text import cited_refs, sentences
from evals.checks.things import archived
from evals.checks.values import Figure
from evals.suite import patterns

_JOIN = regex.compile(r";|(?<!\d):(?!\d)")
# A contrast parts what is retired from what is not: "The free plan was discontinued, but
# Starter is 25 €" says nothing retired about the 25 €.
_CONTRAST = regex.compile(
    r"\b(?:but|however|aber|sondern|jedoch|mais|pero|sino|ma|però|maar|echter|mas|men)\b",
    regex.IGNORECASE,
)


def retired_by_its_source(inp: CheckInput, fig: Figure) -> bool:
    """Whether the figure's own citation is an ARCHIVED passage and its clause, or the part
    of its sentence a ';' or ':' joins to it (up to a 'but'), marks it retired. Both are
    needed: '; the old price is no longer valid' beside a current figure excuses nothing,
    and an archived figure cited as current stays a claim."""
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    refs = own_citations(inp.answer, fig, cite, inp.settings.figure_window)
    passages = {r.get("ref"): str(r.get("text") or "") for r in inp.case.retrieved}
    if not refs or not all(archived(passages.get(r, "")) for r in refs):
        return False
    if any(corrects(part, inp.lang) for part in _joined_parts(inp.answer, fig.start)):
        return True
    # Or an earlier sentence citing the same archived passage said it no longer applies
    # ("Der Flyer stammt aus der Preisliste 2025 [doc:archive]; er gilt nicht mehr. ...
    # Gegenüber den 12,90 € vom Flyer [doc:archive] ..."): the answer has named its source
    # retired, and cites the figure to it.
    for start, sentence in sentences(inp.answer):
        if start + len(sentence) > fig.start:
            break
        if set(refs) & set(cited_refs(sentence, inp.settings.citation_pattern)) and corrects(
            MARKER.sub(" ", sentence), inp.lang
        ):
            return True
    return False


def _joined_parts(text: str, pos: int) -> list[str]:
    """The stretch of its sentence holding `pos`, and those a ';' or ':' joins to it, each
    cut at a contrast on the side away from `pos`."""
    for start, sentence in sentences(text):
        if start <= pos < start + len(sentence):
            break
    else:
        return []
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
    cuts = [0, *(m.end() for m in _JOIN.finditer(plain)), len(plain) + 1]
    parts = [
        (a, plain[a : b - 1 if b <= len(plain) else b])
        for a, b in zip(cuts, cuts[1:], strict=False)
    ]
    at = next(i for i, (a, p) in enumerate(parts) if a <= pos - start <= a + len(p))
    out = []
    for i in (at - 1, at, at + 1):
        if not 0 <= i < len(parts):
            continue
        a, part = parts[i]
        pieces = _CONTRAST.split(part)
        if i < at:
            out.append(pieces[-1])
        elif i > at:
            out.append(pieces[0])
        else:
            offset = pos - start - a
            lo = max((m.end() for m in _CONTRAST.finditer(part) if m.end() <= offset), default=0)
            hi = min(
                (m.start() for m in _CONTRAST.finditer(part) if m.start() >= offset),
                default=len(part),
            )
            out.append(part[lo:hi])
    return out


def retirement_said(answer: str, phrasings: tuple[str, ...], lang: str | None) -> str | None:
    """For a fact that itself says something no longer applies ("discontinued", "no longer
    valid", "non è più possibile"), the answer's clause that says so in its own words ("ended
    on 1 June", "valid until 28 February", "non è più prevista"), if any: the fact may be
    stated in other words. Only ever a reason to review, never to pass."""
    if not any(corrects(p, lang) for p in phrasings):
        return None
    for _, piece in clauses(answer):
        if corrects(piece, lang):
            return quoted(piece)
    return None


_GAP_BEFORE_MARK = regex.compile(r"\s+([.,;:!?])")


def quoted(piece: str) -> str:
    """A clause as a detail quotes it: the answer's words, without the gaps its blanked
    citations leave ("for all plans ." is "for all plans.") or a trailing comma."""
    text = _GAP_BEFORE_MARK.sub(r"\1", " ".join(piece.split()))
    return text.rstrip(" ,;:")


@lru_cache(maxsize=16)
def _deduction(lang: str | None) -> regex.Pattern[str]:
    from evals.checks.lexicon import FALLBACK, lexicon

    parts = "|".join(f"(?:{p})" for p in lexicon(lang or FALLBACK).deductions) or "(?!)"
    return regex.compile(rf"(?<![\p{{L}}])(?:{parts})(?![\p{{L}}])", regex.IGNORECASE)


def deduction_said(
    answer: str, phrasings: tuple[str, ...], lang: str | None, synonyms: Synonyms = ()
) -> str | None:
    """For a fact that takes something off ("al netto di eventuali danni", "minus the
    deductible"), the answer's clause that takes the same thing off in its own words
    ("può essere ridotto solo se ci sono danni"): a deduction marker and a content word
    of the fact's beside it. Only ever a reason to review, never to pass."""
    cue = _deduction(lang)
    wanted: set[str] = set()
    for p in phrasings:
        if cue.search(p) is None:
            continue
        wanted |= content(tokens(cue.sub(" ", p), lang, synonyms), lang)
    if not wanted:
        return None
    for _, piece in clauses(answer):
        if cue.search(piece) and wanted & content(tokens(piece, lang, synonyms), lang):
            return quoted(piece)
    return None
