"""A thing said to be free that the passages give a price: "the front basket, included free
on every plan" where the passage lists "front basket at 3 € a month, D-lock included free".

A sentence's free claim is about the words before its free marker; a passage item (a list
item or clause) with a price is about the words before its figure, and one with a free
marker about the words before that marker. The claim contradicts the passages when it
names a priced item's thing and no free item's thing.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import MARKER, NEG, content, tokens
from evals.checks.text import phrase_pattern, sentences
from evals.checks.values import Figure, parse_figures

# "Free" in the languages read. No library lists it; it is kept to the unambiguous forms
# (not "included", which a price includes too).
_FREE = regex.compile(
    r"\b(?:free(?:\s+of\s+charge)?|at\s+no\s+(?:extra\s+|additional\s+)?cost|no\s+(?:extra\s+)?charge|"
    r"gratis|gratuit\w*|kostenlos\w*|kostenfrei\w*|ohne\s+aufpreis|sans\s+frais|sin\s+cost[eo]|"
    r"senza\s+cost[io]|sem\s+custos?|kosteloos)\b",
    regex.IGNORECASE,
)


def says_free(text: str) -> bool:
    """Whether the text calls something free, in any language read."""
    return _FREE.search(text) is not None


_FREE_THEN_COLON = regex.compile(
    rf"(?:{_FREE.pattern})(?:\s+\p{{L}}+){{0,2}}\s*:", regex.IGNORECASE
)

# The stems of "price", "cost" and "fee" in the languages read: what a free claim is said of
# must be a thing, not its price.
_PRICE_WORDS = frozenset(
    {"kos", "kost", "cost", "preis", "prezz", "prix", "preci", "prec", "pris", "fee", "gebuhr"}
    | {"prijs", "tarief", "tarif", "tariff", "costo", "cust"}
)

# One item of a passage's list: cut at sentence ends, ';' and ','.
_ITEM = regex.compile(r"[;,]")


def _words(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(w for w in content(tokens(text, lang), lang) if not w.isdigit())


@lru_cache(maxsize=1024)
def _items(passage: str, lang: str | None) -> tuple[tuple[frozenset[str], str, str], ...]:
    """Each priced or free item of a passage: the words of its subject, its kind and text."""
    out = []
    for _, sentence in sentences(passage):
        # "... senza costi aggiuntivi: Mobile Start include 8 GB, Mobile Plus 15 GB": a free
        # marker before a colon makes free what the colon introduces, item by item.
        opened = _FREE_THEN_COLON.search(sentence)
        if opened is not None:
            for piece in _ITEM.split(sentence[opened.end() :]):
                out.append((_words(piece, lang), "free", piece.strip()))
            sentence = sentence[: opened.end()]
        for piece in _ITEM.split(sentence):
            free = _FREE.search(piece)
            money = [f for f in parse_figures(piece, lang) if f.kind == "money" and f.value]
            if free is not None:
                out.append((_words(piece[: free.start()], lang), "free", piece.strip()))
            elif money:
                out.append((_words(piece[: money[0].start], lang), "priced", piece.strip()))
    return tuple(out)


def _scope(sentence: str, at: int) -> str:
    """What a free marker at `at` is said of: its clause up to the marker and the clause
    before it ("you can have the front basket, included free on every plan")."""
    cuts = [0, *(m.end() for m in _ITEM.finditer(sentence, 0, at))]
    return sentence[cuts[-2] if len(cuts) > 1 else 0 : at]


def priced_as_free(answer: str, passages: tuple[str, ...], lang: str | None) -> list[str]:
    """The answer's sentences that call free a thing a passage gives a price, each with the
    passage item that prices it: the claim's words meet that item's thing (two words, or
    its one) more than any free item's thing."""
    items = [i for p in passages for i in _items(p, lang)]
    free_things = [w for w, kind, _ in items if kind == "free"]
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        for m in _FREE.finditer(sentence):
            scope = _scope(sentence, m.start())
            if NEG in tokens(scope, lang)[-4:]:
                continue  # "not free", "non è gratuito": no free claim
            if any(f.kind == "money" for f in parse_figures(scope, lang)):
                continue  # the sentence gives its thing a price: "free" is about another
            # "Kosten: gratis bij normale slijtage": the word for price names no thing.
            said = _words(scope, lang) - _PRICE_WORDS
            if not said:
                continue
            best_free = max((len(said & w) for w in free_things), default=0)
            # The sentence that gives the item's price itself sets it apart from what it
            # calls free: "after the minimum term it is free; the 49 € fee is only for
            # cancelling within it".
            named = _priced_apart(sentence, scope, lang)
            for words, kind, text in items:
                shared = len(said & words)
                meets = kind == "priced" and shared >= min(2, len(words)) > 0
                if meets and any(f.same(p) for f in named for p in parse_figures(text)):
                    continue
                if meets and shared > best_free:
                    out.append(f'{sentence.strip()} (the passage prices it: "{text}")')
                    break
    return out


def _priced_apart(sentence: str, scope: str, lang: str | None) -> list[Figure]:
    """The amounts the sentence gives outside the free claim's scope in a stretch that limits
    them to a case ("the 49 € fee is only for cancelling within it"; its `restrictive` or
    `provided` words); a bare other price ("the lock costs 3 €") limits nothing."""
    at = sentence.find(scope)
    rest = sentence[at + len(scope) :] if at >= 0 else ""
    lex = lexicon(lang or detect(sentence) or FALLBACK)
    if phrase_pattern((*lex.restrictive, *lex.provided)).search(rest) is None:
        return []
    return [f for f in parse_figures(rest, lang) if f.kind == "money"]


@lru_cache(maxsize=64)
def _always(lang: str | None) -> regex.Pattern[str]:
    """The language's words that claim no condition ("always", "altijd", "sempre") or a
    thing for every one of its kind ("all", "tutte le")."""
    words = (*lexicon(lang).unconditional, *lexicon(lang).universal)
    body = "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}})" if body else r"(?!)", regex.I)


def _says_so(cue: str, said: frozenset[str], passages: tuple[str, ...]) -> bool:
    """Whether a passage sentence calls the thing free with the same word of no condition
    and two of the answer's words: the answer restates it."""
    folded = cue.casefold()
    return any(
        folded in sentence.casefold()
        and _FREE.search(sentence)
        and len(said & _words(sentence, None)) >= 2
        for p in passages
        for _, sentence in sentences(p)
    )


@lru_cache(maxsize=1024)
def _priced_sentences(passage: str, lang: str | None) -> tuple[tuple[frozenset[str], str], ...]:
    """Each passage sentence that gives a price, with its words."""
    out = []
    for _, sentence in sentences(passage):
        if any(f.kind == "money" and f.value for f in parse_figures(sentence, lang)):
            out.append((_words(sentence, lang), sentence.strip()))
    return tuple(out)


def always_free(answer: str, passages: tuple[str, ...], lang: str | None) -> list[tuple[str, str]]:
    """The answer's sentences that call a thing free without condition ("a technician's
    visit is always free", "è sempre gratuito") where a passage sentence about that thing
    gives it a price (in some case: "if the cause is your own equipment, we charge 75 €
    per visit"): each with that passage sentence. Measured before it was kept: on every
    labelled answer of the five suites, one wrong answer and no correct one."""
    always = _always(lang)
    priced = [i for p in passages for i in _priced_sentences(p, lang)]
    if not priced:
        return []
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        for m in _FREE.finditer(sentence):
            scope = _scope(sentence, m.start())
            cue = always.search(scope)
            if cue is None or NEG in tokens(scope, lang)[-4:]:
                continue
            said = _words(scope[: cue.start()] + " " + scope[cue.end() :], lang)
            if _says_so(cue.group(0), said, passages):
                continue  # "Every parcel is insured ... at no extra cost": the passage's own words
            hit = next((text for words, text in priced if said & words), None)
            if hit is not None:
                out.append((sentence.strip(), hit))
                break
    return out
