"""Numbers in words that are no figure, or no claim: an indefinite article before a thing
counted ("ein Mitarbeiter"), an ordinal before a unit of time ("im ersten Jahr"), the "one"
of a per-year phrase ("336 € in un anno", the period of the amount). text2num reads all
three as the number one."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon


def not_a_count(text: str, start: int, end: int, lang: str | None) -> bool:
    """Whether the number read from words at `start` is the language's indefinite article
    ("ein Mitarbeiter", "un tecnico", "een medewerker", "en medarbejder"): it says what
    kind of thing, not how many, so it is no count to source. Before a duration or an amount
    it stays a figure ("een maand opzegtermijn" is one month)."""
    word = text[start:end].strip().casefold()
    return word in lexicon(lang or FALLBACK).articles


_NEXT_WORD = regex.compile(r"\s*(\p{L}+)")


def kind_of_day(text: str, start: int, end: int, lang: str | None) -> bool:
    """Whether the article-and-day read as one day at `start`..`end` names a kind of day
    ("un jour férié", "un giorno festivo": a public holiday), not a span of one day."""
    lex = lexicon(lang or FALLBACK)
    if not lex.day_kinds or text[start:end].split()[0].casefold() not in lex.articles:
        return False
    nxt = _NEXT_WORD.match(text, end)
    return nxt is not None and nxt.group(1).casefold() in lex.day_kinds


# An ordinal as text2num writes it: "1st", "1.", "1e", "1ère", "2ème", "1º", "1.ᵉʳ".
_ORDINAL_DIGITS = regex.compile(r"\d+\s*(?:\.|st|nd|rd|th|e|er|re|ère|ème|º|ª|°|\.?ᵉʳ?)$")


@lru_cache(maxsize=4096)
def is_ordinal(words: str, lang: str | None) -> bool:
    """Whether a number in words is an ordinal ("first", "ersten", "première", "primo")."""
    if lang is None:
        return False
    from text_to_num import alpha2digit

    return _ORDINAL_DIGITS.search(alpha2digit(words.strip(), lang, threshold=0)) is not None


def in_rate_period(text: str, start: int, lang: str | None) -> bool:
    """Whether the number in words at `start` is inside one of the language's phrases for
    "per year" ("in un anno", "voor een jaar", "für ein Jahr", "pour un an")."""
    folded = text.casefold()
    for phrase in lexicon(lang or detect(text) or FALLBACK).per_year:
        at = folded.find(phrase, max(0, start - len(phrase)))
        while at != -1 and at <= start:
            if start < at + len(phrase):
                return True
            at = folded.find(phrase, at + 1)
    return False
