"""The figure pattern: every kind of figure as one regular expression per language, and the
unit words, month names and currencies it is built from (CLDR and each language's file).

`figure_matches` finds what the joined pattern finds, by its alternatives searched one by
one: `values` reads a figure from each match.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import DEFAULT_LANGUAGES, month_names, unit_names
from evals.checks.lexicon import DURATION_KINDS, all_lexicons


# Months come from CLDR (Babel) for every language considered; numbers written in words are
# read by text2num in the text's own language (see evals/checks/numerals.py).
# Both are loaded on the first figure read, not on import: a command that reads no figure
# does not load Babel's locale data.
@lru_cache(maxsize=1)
def months() -> dict[str, int]:
    """Month names and abbreviations of every language considered, case-folded."""
    out: dict[str, int] = {}
    for lang in DEFAULT_LANGUAGES:
        for name, num in month_names(lang).items():
            out.setdefault(name, num)
    # "may" and "mar" are English words more often than months without a day beside them;
    # the patterns below only read a month next to a day number, so they stay.
    return out


# Unit words by what they measure, from CLDR (cldr.json) and each language's file (plurals,
# abbreviations, working days, things counted); a duration is compared in days or minutes.
# Units are read in every supported language, since a ticket, its passages and the answer
# may be in different ones, and a unit word only counts right after a number; a language's
# `own_only` words ("time", an hour in Danish) only in that language's text.
@lru_cache(maxsize=16)
def duration_units(lang: str | None) -> dict[str, tuple[str, int]]:
    """Duration unit words -> (unit, factor), as read in `lang`'s text."""
    out: dict[str, tuple[str, int]] = {}
    for lex in all_lexicons():
        cldr = unit_names(lex.lang)
        for kind, (unit, factor) in DURATION_KINDS.items():
            for w in (*lex.units.get(kind, ()), *cldr.get(kind, ())):
                if w in lex.own_only and lex.lang != lang:
                    continue
                out.setdefault(" ".join(w.split()), (unit, factor))
    return out


@lru_cache(maxsize=1)
def count_units() -> dict[str, str]:
    """Words of things counted -> what is counted ("Plätze" -> seat, "volte" -> time)."""
    out: dict[str, str] = {}
    for lex in all_lexicons():
        for what, words in lex.counts.items():
            for w in words:
                out.setdefault(w, what)
    return out


def _union(attr: str) -> list[str]:
    return sorted({w for lex in all_lexicons() for w in getattr(lex, attr)})


def _alt(words: list[str]) -> str:
    """Alternatives for `words` as a prefix tree: "ma(?:r(?:ch|s|zo)|y|i)" for March, mars,
    marzo, May, mai. It matches what the words one by one, longest first, would (the words
    that match at one place are each a prefix of the next, and the tree tries the longer
    first), but compares each character once instead of once per word: the month names
    are tried at every word of every text read."""
    tree: dict[str, dict] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def emit(node: dict[str, dict]) -> str:
        alts = [regex.escape(ch) + emit(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


# Thousands groups ("1.312,50", "2 000", "1,080") or a plain number with decimals.
_NUM = r"\d{1,3}(?:[ \u00a0\u202f.,']\d{3})+(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d+)?"
_CUR_PRE = r"[€$£]|\b(?:eur|usd|gbp|chf|dkk|kr\.)(?![\p{L}])"
_CUR_POST = r"[€$£]|\b(?:eur|euros?|usd|dollars?|gbp|chf|dkk|kr)\b"


def _phrase(words: list[str]) -> str:
    """Alternatives for words or phrases, longest first, any whitespace between words."""
    out = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(regex.escape(p) for p in w.split()) for w in out)


@lru_cache(maxsize=16)
def _alternatives(lang: str | None) -> tuple[str, ...]:
    """The figure pattern's four alternatives: the digit-led kinds, and those led by a
    month, a day word or a currency."""
    _MONTH = _alt(list(months()))  # noqa: N806 - read like the other pattern parts
    _PERCENT = rf"%|\b(?:{_phrase(_union('percent'))})\b"  # noqa: N806
    _DUR = _phrase(list(duration_units(lang)))  # noqa: N806
    _CNT = _phrase(list(count_units()))  # noqa: N806
    _MORE = _phrase(_union("more"))  # noqa: N806
    # Ordinal days: "1st", "1e", "1ste", "1.", "1°", "1º", "1er"; the day word ("day",
    # "giorno", "Tag") and "of each month" in each language.
    _ORD = _phrase(_union("day_suffixes"))  # noqa: N806
    _DAYW = _phrase(_union("day_words"))  # noqa: N806
    _EACH = _phrase(_union("each_month"))  # noqa: N806
    # Every kind but three begins with a digit, and which kind can match at a place is
    # decided by the character there (a digit, a letter or a currency sign): the digit-led
    # kinds, in their order, are tried only where a digit stands, a look instead of a dozen
    # attempts at every other character of every text read.
    return (
        r"(?=\d)(?:"
        rf"(?P<iso>\b(?P<iy>\d{{4}})-(?P<im>\d{{2}})-(?P<id>\d{{2}})\b)"
        rf"|(?P<dmy>\b(?P<nd>\d{{1,2}})[./](?P<nm>\d{{1,2}})[./](?P<ny>\d{{4}})\b)"
        rf"|(?P<dm>\b(?P<dd>\d{{1,2}})(?:st|nd|rd|th|er|e|\.|º|°|ª)?\s(?:de\s|of\s)?(?P<dmo>{_MONTH})\b\.?"
        rf"(?:,?\s(?:de\s)?(?P<dy>\d{{4}})\b)?)"
        # "the 1st of each month", "de 1e van elke maand", "am 1. jedes Monats", "il 1° giorno di
        # ogni mese" (text2num reads "primo" as 1), "the 15th day of the billing month".
        rf"|(?P<dom>\b(?P<od>[12]?\d|3[01])(?:(?:{_ORD})(?:\s+(?:{_DAYW}))?|\s+(?:{_DAYW}))"
        rf"(?=\s+(?:{_EACH})\b))"
        rf"|(?P<clock>\b(?P<ch>[01]?\d|2[0-3])\s?(?::|h)\s?(?P<cm>[0-5]\d)\b"
        rf"(?:\s?(?P<campm>[ap])\.?m\b\.?)?(?:\s?uhr\b)?)"
        rf"|(?P<ampm>\b(?P<ah>1[0-2]|0?\d)\s?(?P<aap>[ap])\.?m\b\.?)"
        rf"|(?P<uhr>\b(?P<uh>[01]?\d|2[0-4])\s?(?:uhr\b|o'clock\b))"
        rf"|(?P<hour>\b(?P<hh>[01]?\d|2[0-4])\s?h\b(?!\s?\d))"
        rf"|(?P<money>\b(?P<n2>{_NUM})(?:\s|-)?(?P<cur2>{_CUR_POST}))"
        rf"|(?P<pct>\b(?P<pn>{_NUM})\s?(?:{_PERCENT}))"
        rf"|(?P<dur>\b(?P<dn>{_NUM})(?:\s|-)(?:(?:{_MORE})\s)?(?P<du>{_DUR})\b)"
        rf"|(?P<cnt>\b(?P<kn>{_NUM})(?:\s|-)(?:(?:{_MORE})\s)?(?P<ku>{_CNT})\b)"
        r")",
        # Led by a month, a day word or a currency.
        rf"(?P<md>\b(?P<mmo>{_MONTH})\.?\s(?P<md_d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s?(?:%|€|\$|£|[.,]\d))(?:,?\s(?P<my>\d{{4}})\b)?)",
        rf"(?P<domw>\b(?:{_DAYW})\s+(?P<odw>[12]?\d|3[01])(?=\s+(?:{_EACH})\b))",
        rf"(?P<money>(?P<cur1>{_CUR_PRE})\s?(?P<n1>{_NUM}))",
    )


@lru_cache(maxsize=16)
def figure_pattern(lang: str | None = None) -> regex.Pattern[str]:
    """The pattern of every figure kind as read in `lang`'s text (compiled once each)."""
    return regex.compile("|".join(_alternatives(lang)), regex.IGNORECASE)


@lru_cache(maxsize=16)
def _alternative_patterns(lang: str | None) -> tuple[regex.Pattern[str], ...]:
    return tuple(regex.compile(a, regex.IGNORECASE) for a in _alternatives(lang))


def figure_matches(text: str, lang: str | None) -> list[regex.Match[str]]:
    """The matches `figure_pattern(lang).finditer(text)` gives, found faster, each by the one
    alternative that made it (`figure_groups` reads its groups as the whole pattern's).

    The four alternatives joined are tried at every character (0.5 µs each); each alone is
    searched quickly. Where several match at one place the first in the pattern's order is
    the joined pattern's match there, and a search goes on after the last match."""
    found: dict[int, regex.Match[str]] = {}
    for pattern in _alternative_patterns(lang):
        for m in pattern.finditer(text, overlapped=True):
            found.setdefault(m.start(), m)
    out: list[regex.Match[str]] = []
    last = 0
    for at in sorted(found):
        if at >= last:
            out.append(found[at])
            last = found[at].end()
    return out


def figure_groups(m: regex.Match[str]) -> dict[str, str | None]:
    """A figure match's named groups, every group of the whole pattern there (None where it
    took no part)."""
    return {**_no_groups(), **m.groupdict()}


@lru_cache(maxsize=1)
def _no_groups() -> dict[str, None]:
    return dict.fromkeys(figure_pattern().groupindex)
