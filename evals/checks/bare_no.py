"""A bare "no": an answer that opens with one ("No.", "Leider nein", "Purtroppo no"), and a
negative fact about what the customer asked that such a "no" states."""

from __future__ import annotations

from functools import lru_cache

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import BOUNDARY, NEG, Synonyms, content, says, states, tokens
from evals.checks.text import sentences
from evals.checks.words import LABEL


def answers_no(answer: str, lang: str | None = None, question: str = "") -> bool:
    """Whether the answer opens with a bare "no": its first clause is a negation and at most
    words of regret ("No.", "Unfortunately not:", "Leider nein", "Purtroppo no"), after a
    clause of regret alone ("Sadly, no."), or after a label that names nothing the
    customer asked about ("Short answer: no."; "Carrinha: não" says no to the van alone).
    "Not quite." and "Not always." are no bare no."""
    lang = lang or detect(answer) or FALLBACK
    # A short label before a colon ("Short answer:", "Kurz gesagt:"), as the tokens read it.
    label = LABEL.match(answer)
    if label is not None and question:
        asked = content(tokens(question, lang), lang)
        if not content(tokens(label.group(1), lang), lang) & asked:
            answer = answer[label.end() :]
    seq = tokens(answer, lang)
    polite = _politeness(lang)
    clauses_: list[list[str]] = [[]]
    for w in seq:
        if w == BOUNDARY:
            clauses_.append([])
        else:
            clauses_[-1].append(w)
    for head in clauses_:
        rest = [w for w in head if w != NEG and w not in polite]
        if rest:
            return False
        if NEG in head:
            return True
    return False


@lru_cache(maxsize=16)
def _politeness(lang: str) -> frozenset[str]:
    return frozenset(w for p in lexicon(lang).politeness for w in tokens(p, lang) if w != NEG)


def denies_by_polarity(
    answer: str, phrase: str, question: str, *, lang: str | None = None, synonyms: Synonyms = ()
) -> bool:
    """A negative fact about what the customer asked, met by a bare "no": "Does it work on
    Starter as well?" answered "Unfortunately not." states "not on Starter". Not when the
    answer goes on to state the fact's affirmative ("No. You do need a card")."""
    want = tokens(phrase, lang, synonyms)
    if NEG not in want:
        return False
    words = content(want, lang)
    asked = set(tokens(question, lang, synonyms))
    if not (words and words <= asked and answers_no(answer, lang, question)):
        return False
    if _reassures(answer, lang or detect(answer) or FALLBACK):
        return False  # "No, don't worry: it is covered" says no to the worry
    positive = " ".join(w for w in phrase.split() if NEG not in tokens(w, lang))
    return not (positive.strip() and states(answer, positive, lang=lang, synonyms=synonyms))


def _reassures(answer: str, lang: str) -> bool:
    """Whether the answer's first sentence says the customer's worry is unfounded."""
    first = next((s for _, s in sentences(answer)), answer)
    return any(says(first, r, lang=lang) for r in lexicon(lang).reassurances)
