"""Why a fact not found as written may still be stated in other words: the answer says it no
longer applies, takes the same thing off, or gives a "no" without saying yes. Each is a
reason to review, never to pass."""

from __future__ import annotations

from evals.checks.akin import bare_negation, opens_with_yes
from evals.checks.matching import Synonyms
from evals.checks.retired import deduction_said, retirement_said


def in_other_words(
    answer: str, said: str, phrasings: tuple[str, ...], lang: str | None, synonyms: Synonyms
) -> str | None:
    """The reason a person should look at a fact the answer does not state as written
    (`said` is the answer with what it does not state blanked), or None."""
    retired = retirement_said(said, phrasings, lang)
    if retired is not None:
        return f'the answer says it no longer applies: "{retired}"'
    taken = deduction_said(said, phrasings, lang, synonyms)
    if taken is not None:
        return f'the answer takes it off in other words: "{taken}"'
    # A "no" the answer may give in other words ("Sabato pomeriggio è chiusa"); one that
    # opens with a yes does not.
    if bare_negation(phrasings, lang) and not opens_with_yes(answer, lang):
        return "the answer does not open with a yes"
    return None
