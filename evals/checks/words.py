"""A word as the matching reads it: contractions spelled out ("isn't" = "is not"), and each
word's token (a clause break, a negation, an article left out, or its stem), kept per
language once read; and where in a text's tokens a negation reaches and a phrase's words
stand close together."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.language import stem
from evals.checks.lexicon import Lexicon
from evals.checks.text import normalise

NEG = "¬"
BOUNDARY = "|"
# Words before a match, within its clause, that may negate it: "you will not pay the full month".
NEGATION_REACH = 4
_PUNCT = set(".,;:!?()[]–—")

_CONTRACTIONS = [
    (r"\bcan't\b|\bcannot\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"n't\b", " not"),
    (r"'ll\b", " will"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'d\b", " would"),
    (r"\bi'm\b", "i am"),
    (r"\b(it|that|there|what|here|he|she|who|this)'s\b", r"\1 is"),
    (r"'s\b", ""),
    (r"\banymore\b", "any more"),
    # French elision: "n'est" = "ne est", "l'application" = "le application".
    (r"\b([nldjcsmt]|qu)'(?=\w)", r"\1e "),
]
_CONTRACTION_RE = [(regex.compile(p, regex.IGNORECASE), r) for p, r in _CONTRACTIONS]
# Most texts hold no apostrophe: then only the spellings without one can apply (the others
# need it, and no replacement writes one).
_WITHOUT_APOSTROPHE = [
    (pat, rep)
    for pat, rep in _CONTRACTION_RE
    if "cannot" in pat.pattern or "anymore" in pat.pattern
]


@lru_cache(maxsize=8192)
def expand(text: str) -> str:
    """Normalised text with contractions spelled out: "isn't" -> "is not", "l'app" -> "le app"."""
    t = unicodedata.normalize("NFC", normalise(text))
    for pat, rep in _CONTRACTION_RE if "'" in t else _WITHOUT_APOSTROPHE:
        t = pat.sub(rep, t)
    return t


#: An article, read and left out (no word holds the character).
DROPPED = "\x00"
#: Words whose reading each language's table keeps (a few MB at most).
WORDS_KEPT = 100_000
_TABLES: dict[int, tuple[Lexicon, str, dict[str, str]]] = {}


def word_table(lex: Lexicon, lang: str) -> dict[str, str]:
    """What each word has been read as (`word_token`) with these words of `lang`: a text's
    words are looked up once each, instead of in four word lists and the stemmer's memo."""
    entry = _TABLES.get(id(lex))
    if entry is None or entry[0] is not lex or entry[1] != lang:
        entry = _TABLES[id(lex)] = (lex, lang, {})
    return entry[2]


def word_token(w: str, lex: Lexicon, lang: str) -> str:
    """A word as `_plain_tokens` reads it: a clause break, a negation, an article (dropped)
    or its stem."""
    if w in _PUNCT or w in lex.conjunctions:
        return BOUNDARY
    if w in lex.negators:
        return NEG
    if w in lex.articles:
        return DROPPED
    return stem(lex.same_word.get(w, w), lang)


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    negated: bool


def clause_negated_before(seq: tuple[str, ...], start: int) -> bool:
    """Whether a negation stands before `start` in its clause, within NEGATION_REACH words."""
    for i in range(start - 1, max(-1, start - 1 - NEGATION_REACH), -1):
        if seq[i] == BOUNDARY:
            return False
        if seq[i] == NEG:
            return True
    return False


def windows(seq: tuple[str, ...], need: list[str], width: int) -> Iterator[tuple[int, int]]:
    """Each stretch of one clause, at most `width` words from a needed word on, that holds
    every needed word (as often as it is needed)."""
    wanted = set(need)
    for i, w in enumerate(seq):
        if w not in wanted:
            continue
        window = []
        for j in range(i, min(len(seq), i + width)):
            if seq[j] == BOUNDARY:
                break
            window.append(seq[j])
        if all(window.count(x) >= need.count(x) for x in wanted):
            yield i, i + len(window)
