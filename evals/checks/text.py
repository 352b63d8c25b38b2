"""Text helpers the checks share: normal form, phrase matching, citations in an answer."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

from evals.checks.language import DEFAULT_LANGUAGES, month_names
from evals.suite import patterns

# Typographic variants mapped to their plain form, and invisible characters dropped:
# an answer typed with smart quotes, a non-breaking hyphen or a soft hyphen says the same.
_PLAIN = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u00ad": None,
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
    }
)
# Most texts hold none of them: a search for one costs less than translating every character.
_TYPOGRAPHIC = regex.compile("[" + "".join(regex.escape(chr(c)) for c in _PLAIN) + "]")
#: A run of letters: a word without its digits, apostrophes or hyphens.
LETTERS = regex.compile(r"\p{L}+")
# "45 €" and "45€", "€ 45" and "€45", "15 %" and "15%" are one figure.
_SYMBOL_GAP = regex.compile(r"(?<=\d) (?=[€$£%])|(?<=[€$£]) (?=\d)")
_SYMBOL_GAPS = (" €", " $", " £", " %", "€ ", "$ ", "£ ")


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """NFKC, case-folded, typographic quotes and dashes unified, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    # Every typographic character is outside ASCII: an ASCII text (most English ones) is
    # not searched for them.
    if not text.isascii() and _TYPOGRAPHIC.search(text) is not None:
        text = text.translate(_PLAIN)
    text = " ".join(text.split())
    # A gap to close is a space beside a symbol: one look for each instead of the pattern's
    # two lookbehinds tried at every character of every text with an amount.
    if any(gap in text for gap in _SYMBOL_GAPS):
        text = _SYMBOL_GAP.sub("", text)
    return text


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether the normalised phrase occurs in the normalised text on word boundaries."""
    t, p = normalise(text), normalise(phrase)
    if not p:
        return False
    start = 0
    while (i := t.find(p, start)) != -1:
        before = t[i - 1] if i else " "
        after = t[i + len(p)] if i + len(p) < len(t) else " "
        if not (p[0].isalnum() and before.isalnum()) and not (p[-1].isalnum() and after.isalnum()):
            return True
        start = i + 1
    return False


# A letter or digit: what a phrase that starts or ends with one may not touch there.
_WORD_CHAR = regex.compile(r"[\p{L}\p{N}]")


@lru_cache(maxsize=64)
def _bounded(phrases: tuple[str, ...]) -> tuple[tuple[str, bool, bool], ...]:
    """The phrases normalised, each once and none empty, with whether each starts and
    whether it ends with a letter or digit (bounded there)."""
    kept = dict.fromkeys(normalise(p) for p in phrases)
    return tuple((p, p[0].isalnum(), p[-1].isalnum()) for p in kept if p)


def contains_any_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """Whether `contains_phrase(text, p)` holds for some phrase: the normalised text read
    once. A plain search for each phrase, its bounds tested where it is found, costs a third
    of one pattern of all the phrases (which took 10 ms to compile per list)."""
    t = normalise(text)
    for phrase, head, tail in _bounded(phrases):
        start = 0
        while (i := t.find(phrase, start)) != -1:
            end = i + len(phrase)
            if not (head and i and _WORD_CHAR.match(t, i - 1)) and not (
                tail and _WORD_CHAR.match(t, end)
            ):
                return True
            start = i + 1
    return False


def cited_refs(answer: str, pattern: str) -> list[str]:
    """Refs cited in the text, in order, without repeats."""
    return list(_cited(answer, pattern))


@lru_cache(maxsize=8192)
def _cited(answer: str, pattern: str) -> tuple[str, ...]:
    # Cached: several checks read the citations of the same answer.
    seen: dict[str, None] = {}
    for m in patterns.compile_pattern(pattern).finditer(answer, timeout=patterns.MATCH_TIMEOUT_S):
        seen.setdefault(m.group(1) if m.groups() else m.group(0), None)
    return tuple(seen)


def quote(items: list[str]) -> str:
    return ", ".join(f'"{s}"' for s in items)


# A full stop after a common abbreviation ("zzgl.", "e.g.", "ca.", "8 a.m.") or inside a
# number ("4.50 €") does not end a sentence. pysbd knows these and many more, but was
# measured at 2.6 ms an answer: too slow for checks run on every answer and labelled one.
_ABBREVIATIONS = (
    r"zzgl|inkl|ca|bzw|usw|z\.b|e\.g|i\.e|etc|approx|vs|nr|incl|excl|env|aprox|p\.ej|a\.m|p\.m|"
    r"pr|bijv|evt|ecc|pag|tel|sig|dott|mwst|ust|ggf|vgl|zw|"
    # weekdays cut short ("Mo. bis Fr.", "Mon. to Fri.", "lun.–ven."); not "do", "so", "di":
    # English words that end sentences
    r"mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|mo|fr|sa|lun|mer|gio|ven|sab|dom"
)
# "No. 5" is a number; "No. The trial ..." is an answer and a sentence. Danish "kr." (kroner)
# and "kl." (o'clock) end nothing before a lower-case word, a citation or a number ("100 kr.
# pr. måned", "kl. 8"); before a capital they may end a sentence ("... 600 kr. Husk ...").
# A day's full stop before a month ("am 10. Mai 2027", "den 14. december") ends nothing.
# English writes no such day: its month names are not read here, and Spanish "may." (mayo)
# would join "step 2. May I ..." into one sentence.
_DAY_MONTHS = {m for lang in DEFAULT_LANGUAGES if lang != "en" for m in month_names(lang)}
_DAY_MONTHS -= {"may"}
_MONTHS = "|".join(regex.escape(m) for m in sorted(_DAY_MONTHS, key=len, reverse=True))
SENTENCE_END = regex.compile(
    rf"(?<!\b(?:{_ABBREVIATIONS}))(?<!\bno(?=\.\s*\d))"
    rf"(?<!(?<![\d.,])\d{{1,2}}(?=\.[^\S\n]+(?:{_MONTHS})(?!\p{{L}})))"
    r"(?<!\b(?:kr|kl)(?=\.\s*(?:(?-i:\p{Ll})|\[|\d)))"
    # A comma or semicolon after the mark (a citation blanked between) continues the sentence,
    # as an operator does ("149 kr. + 2 × 119,20 kr. = 387,40 kr.").
    r"[.!?]+(?=\s|$)(?![^\S\n]*[,;+×*·−=→])|\n",
    regex.IGNORECASE,
)


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[tuple[int, str], ...]:
    """The sentences of `text` with their offsets, each with its closing punctuation; every
    check that asks "which sentence" reads the same boundaries."""
    out: list[tuple[int, str]] = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        if text[start : m.end()].strip():
            out.append((start, text[start : m.end()]))
        start = m.end()
    if text[start:].strip():
        out.append((start, text[start:]))
    return tuple(out)


@lru_cache(maxsize=128)
def phrase_pattern(phrases: tuple[str, ...], hyphen_joins: bool = False) -> regex.Pattern[str]:
    """The phrases as whole words, longest first, in any case (never matching when none).
    `hyphen_joins`: a word a hyphen joins to another is part of it, not a word of its own
    (Portuguese "soma-se" holds no "se")."""
    body = "|".join(regex.escape(w) for w in sorted(phrases, key=len, reverse=True))
    edge = r"\p{L}-" if hyphen_joins else r"\p{L}"
    return regex.compile(rf"(?<![{edge}])(?:{body})(?![{edge}])" if body else r"(?!)", regex.I)
