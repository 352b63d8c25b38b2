"""Figures bound to what they are about: "data kept 30 days" and "backups within 30 days" are
different claims, though both contain 30 days.

A figure's subject is the content words of the clause it stands in, less the figure itself.
An expected figure may name its subject (`{"any": "30 days", "about": "data kept"}`); a cited
figure is held to the passage clause that states the same value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from evals.checks.clauses import clauses
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.values import Figure, parse_figures


# Memoised: the same answer and passages are bound figure by figure, check by check.
@lru_cache(maxsize=4096)
def clause_of(text: str, pos: int) -> str:
    """The clause of `text` (cut at sentence ends, ';', ':', 'but' and commas) holding `pos`."""
    for start, piece in clauses(text):
        if start <= pos < start + len(piece):
            offset = pos - start
            # Commas part subjects too: "data kept 14 days, backups within 30".
            lo = piece.rfind(",", 0, offset) + 1
            hi = piece.find(",", offset)
            return piece[lo : hi if hi != -1 else len(piece)]
    return text


@lru_cache(maxsize=4096)
def subject(text: str, fig: Figure, lang: str | None, synonyms: Synonyms = ()) -> frozenset[str]:
    """The content words of the clause the figure stands in, the figure's own words left out."""
    clause = clause_of(text, fig.start)
    own = set(tokens(fig.text, lang, synonyms))
    return frozenset(
        content(tokens(clause, lang, synonyms), lang)
        - own
        - {w for w in tokens(clause, lang) if any(ch.isdigit() for ch in w)}
    )


@dataclass(frozen=True)
class Binding:
    """How a figure in an answer relates to what a passage says about that value."""

    bound: bool  # the passage states the value about (some of) the same words
    other: str | None  # the passage clause whose subject the answer's words match instead


@lru_cache(maxsize=4096)
def bind(
    answer: str, fig: Figure, passage: str, lang: str | None, synonyms: Synonyms = ()
) -> Binding:
    """Whether the passage states `fig` about what the answer's clause is about, or states it
    about something else while another value of the same kind belongs to the answer's subject
    (two figures swapped between their subjects)."""
    mine = subject(answer, fig, lang, synonyms)
    if not mine:
        return Binding(True, None)
    stated = parse_figures(passage)
    same = [p for p in stated if p.same(fig)]
    others = [p for p in stated if (p.kind, p.unit) == (fig.kind, fig.unit) and not p.same(fig)]
    if not same:
        return Binding(True, None)  # derived (a sum, a product, a span): no clause to bind to
    best_same = max((len(mine & subject(passage, p, lang, synonyms)) for p in same), default=0)
    if best_same or not others:
        return Binding(True, None)
    for p in others:
        theirs = subject(passage, p, lang, synonyms)
        if len(mine & theirs) > best_same:
            return Binding(False, clause_of(passage, p.start).strip())
    return Binding(True, None)


def about_state(
    answer: str,
    fig: Figure,
    about: str,
    rivals: list[str],
    lang: str | None,
    synonyms: Synonyms = (),
) -> str:
    """`bound` when the figure's clause names its subject (or its sentence does, and no rival
    subject stands in the clause); `other` when the clause names a rival subject (another
    expected figure's) instead; `unknown` when nothing says what the figure is about."""
    want = content(tokens(about, lang, synonyms), lang)
    mine = subject(answer, fig, lang, synonyms)
    if want & mine:
        return "bound"
    for rival in rivals:
        if content(tokens(rival, lang, synonyms), lang) - want & mine:
            return "other"
    sentence = next((p for s, p in clauses(answer) if s <= fig.start < s + len(p)), "")
    if want & content(tokens(sentence, lang, synonyms), lang):
        return "bound"
    return "unknown"
