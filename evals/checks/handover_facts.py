"""A fact that is the hand-over itself ("collega", "a colleague") in a case that expects
one: any hand-over the answer makes states it, in the suite's refusal phrases or the case
language's hand-over phrases ("Ik zet je vraag door naar de klantenservice" hands over to a
colleague as much as "Ik geef je vraag door aan een collega")."""

from __future__ import annotations

from evals.checks.base import CheckInput, is_refusal
from evals.checks.lexicon import lexicon
from evals.checks.matching import content, tokens


def names_the_hand_over(
    phrasings: tuple[str, ...], handovers: tuple[str, ...], lang: str | None
) -> bool:
    """Whether each phrasing's content words stand in one of the hand-over phrases
    ("collega" in "een collega neemt contact", "a colleague" in "a colleague will get back
    to you")."""
    if not phrasings:
        return False
    said = [content(tokens(h, lang), lang) for h in handovers]
    for p in phrasings:
        words = content(tokens(p, lang), lang)
        if not words or not any(words <= h for h in said):
            return False
    return True


def stated_by_hand_over(inp: CheckInput, phrasings: tuple[str, ...]) -> bool:
    """Whether the case expects a hand-over, the fact is the hand-over itself, and the
    answer hands over."""
    if not inp.case.expect.get("abstain"):
        return False
    handovers = (*inp.settings.refusal_phrases, *lexicon(inp.lang).handover)
    return names_the_hand_over(phrasings, handovers, inp.lang) and is_refusal(inp)
