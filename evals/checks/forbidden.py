"""A forbidden figure that the answer names without claiming it: to correct it ("archived",
"no longer"), to contrast it ("anders als die sonst üblichen 150 €", "invece dei 200 GB"), or
to deny it ("50 €, not 300 €", "krijg je die 150 € niet")."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.clauses import clauses, corrects, excused
from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import BOUNDARY, MARKER, NEG, tokens
from evals.checks.text import phrase_pattern, sentences
from evals.checks.values import Figure, parse_figures


def named_to_correct(answer: str, pos: int, lang: str | None) -> bool:
    """Whether the figure at `pos` is named to correct or compare it: its clause says so, or
    the part of its sentence a colon joins to it ("Ter vergelijking: Variabel 1,35 €", "Falls
    Sie 0,24 € gesehen haben: Das ist der archivierte Tarif und gilt nicht mehr")."""
    for start, piece in clauses(answer):
        if start <= pos < start + len(piece) + 1:
            if excused(piece, pos - start, lang):
                return True
            break
    for start, sentence in sentences(answer):
        if not start <= pos < start + len(sentence):
            continue
        # Citations blanked first: the colon of "[doc:ref]" joins nothing.
        parts = MARKER.sub(lambda m: " " * len(m.group(0)), sentence).split(":")
        at, offset = 0, start
        for i, part in enumerate(parts):
            if offset + len(part) >= pos:
                at = i
                break
            offset += len(part) + 1
        near = [parts[j] for j in (at - 1, at + 1) if 0 <= j < len(parts)]
        return any(corrects(p, lang) for p in near)
    return False


#: Languages that put the sentence's negation after the object: "je krijgt die 150 € niet",
#: "Sie bekommen die 150 € nicht", "du får ikke" comes before, but "får de 150 € ikke" too.
_NEGATION_LAST = ("nl", "de", "da")


def denied(answer: str, fig: Figure, lang: str | None) -> bool:
    """Whether the figure itself is denied: a negation right before it ("50 €, not 300 €",
    "non i 300 €"), or, in Dutch, German and Danish, closing its clause right after it
    ("krijg je die 150 € niet"); "not refunded before 5 days" still states 5 days."""
    before = tokens(answer[max(0, fig.start - 40) : fig.start], lang)
    if before and before[-1] == NEG:
        return True
    if _not_owed(answer, fig, lang):
        return True
    if lang not in _NEGATION_LAST:
        return False
    after = tokens(answer[fig.end : fig.end + 40], lang)
    cut = next((i for i, w in enumerate(after) if w == BOUNDARY), len(after))
    # The negation follows the figure within two words and closes the clause, at most a
    # particle after it ("niet", "niet terug", "nicht mehr"; not "niet meer dan één keer").
    at = next((i for i, w in enumerate(after[: min(cut, 2)]) if w == NEG), None)
    return at is not None and cut <= at + 2


#: Words between a negation and the verb of owing it negates: "do not have to pay".
OWED_REACH = 3


@lru_cache(maxsize=16)
def _owed_stems(lang: str) -> frozenset[str]:
    return frozenset(w for p in lexicon(lang).owed for w in tokens(p, lang, general=False))


def _not_owed(answer: str, fig: Figure, lang: str | None) -> bool:
    """Whether the figure's clause says it is not owed: a negation within a few words of a
    verb of paying or owing ("you do not have to pay the 240 €", "non devi pagare i 240 €",
    "die 240 € müssen Sie nicht bezahlen", "the 240 € quote does not apply to you")."""
    lang = detect(answer) or lang or FALLBACK
    owed = _owed_stems(lang)
    for start, piece in clauses(answer):
        if not start <= fig.start < start + len(piece):
            continue
        words = [w for w in tokens(piece, lang) if w != BOUNDARY]
        at = len([w for w in tokens(piece[: fig.start - start], lang) if w != BOUNDARY])
        negs = [i for i, w in enumerate(words) if w == NEG]
        # Outside Dutch, German and Danish the negation stands before the figure, or right
        # after the thing it names ("the 240 € quote does not apply"): "725 € a year, ...,
        # not counting the standing charge" denies the charge, not the 725 €.
        if lang not in _NEGATION_LAST:
            negs = [i for i in negs if i < at or i - at <= OWED_REACH + 1]
        pays = [i for i, w in enumerate(words) if w in owed]
        return any(abs(i - j) <= OWED_REACH for i in negs for j in pays)
    return False


#: Words before a figure within which a limit word makes it a limit ("con un minimo di 3,00 €").
LIMIT_REACH = 4
_WORDS_BEFORE = regex.compile(r"[\p{L}.]+")
_DIGIT = regex.compile(r"\d")


def _limit_before(text: str, fig: Figure, lang: str | None) -> str | None:
    """The limit word (each language file's `figures.limits`) among the few words before the
    figure, if any."""
    limits = lexicon(lang or detect(text) or FALLBACK).limits
    window = text[max(0, fig.start - 40) : fig.start]
    # Only what follows the last number before it: in "9,50 € up to 10 kg" the limit is the
    # weight's, and "até 10 kg são 9,50 €" gives no limit of the price.
    digits = list(_DIGIT.finditer(window))
    if digits:
        window = window[digits[-1].end() :]
    near = " ".join(_WORDS_BEFORE.findall(window)[-LIMIT_REACH:])
    m = phrase_pattern(limits).search(near)
    return m.group(0) if m is not None else None


def passage_limit(answer: str, fig: Figure, passages: list[str], lang: str | None) -> bool:
    """Whether the answer gives the figure as a limit ("with a minimum of 3,00 €") that one of
    its cited passages gives it as too: the passage's floor or cap restated, not the figure
    claimed as what applies."""
    if _limit_before(answer, fig, lang) is None:
        return False
    for text in passages:
        for p in parse_figures(text):
            if p.same(fig) and _limit_before(text, p, detect(text) or lang) is not None:
                return True
    return False
