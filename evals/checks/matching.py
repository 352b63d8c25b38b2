"""Matching meaning in other words: tokens, contractions, stems, numbers, synonyms, negation.

A fact matches when its words occur within one clause, in order with at most a few words
between them or in any order close together, tolerant of case, punctuation, hyphens,
contractions ("don't" = "do not"), inflection (Snowball stems: "employees" = "employee"),
numbers in words ("thirty days" = "30 days") and the synonyms a suite declares once
("payment card" = "credit card"). A fact found only where the clause negates it does not
count. A forbidden claim named in order to correct it ("no longer", "archived",
"nicht mehr", "ya no") is not a claim.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect, stop_words
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.tokenise import MARKER as MARKER  # read from here too
from evals.checks.tokenise import Synonyms as Synonyms
from evals.checks.tokenise import tokens as tokens
from evals.checks.words import (
    BOUNDARY,
    NEG,
    Match,
    clause_negated_before,
    compound_read,
    windows,
    word_stem,
)
from evals.checks.words import NEGATION_REACH as NEGATION_REACH  # read from here too
from evals.checks.words import expand as expand  # read from here too

# Words between a fact's words within one match: "do not need a credit card" for "no credit card".
MAX_GAP = 3


@lru_cache(maxsize=64)
def _stops(lang: str | None) -> frozenset[str]:
    lex = lexicon(lang or FALLBACK)
    # Glue words: pronouns, prepositions, auxiliaries, conjunctions (each language's file).
    # A stop-words list stands in where a file keeps none, but such lists are too broad for
    # facts: the English one (1,333 words) holds "free", "end", "off", "back" and "need".
    words = set(lex.glue) if lex.glue is not None else stop_words(lex.lang) - lex.restrictive
    return frozenset(word_stem(w, lex, lang or FALLBACK) for w in words)


def content(words: tuple[str, ...] | list[str], lang: str | None) -> set[str]:
    """The words that carry meaning: no negator, clause break, stop word or single letter
    ("only" and its kind stay: they restrict what a fact says)."""
    stops = _stops(lang)
    return {
        w
        for w in words
        if w not in (NEG, BOUNDARY) and (len(w) > 1 or w.isdigit()) and w not in stops
    }


def find(
    answer: str,
    phrase: str,
    *,
    gap: int = MAX_GAP,
    lang: str | None = None,
    synonyms: Synonyms = (),
) -> list[Match]:
    """Where `phrase` occurs in `answer`, each with whether it is negated: its words in order
    with at most `gap` others between, or else (with a gap allowed) in any order close
    together within one clause; read with the suite's synonyms, then without them (a verb
    split by its object, "turn it off", is no longer the synonym "turn off")."""
    # The phrase is read in the answer's language: a fact's few words decide nothing.
    lang = lang or detect(answer) or FALLBACK
    found = _find(answer, phrase, gap, lang, synonyms)
    # (gap 0 is a forbidden claim's reading, which tries its clause without commas itself)
    if not found and gap and "," in answer:
        # A fact that lists items matches the answer's list: "amsterdam utrecht rotterdam" in
        # "Amsterdam, Utrecht and Rotterdam".
        reading = lang or detect(answer) or FALLBACK
        wanted = frozenset(tokens(phrase, reading, synonyms))
        joined = joined_lists(answer, reading, wanted)
        if joined != answer:
            found = _find(joined, phrase, gap, lang, synonyms)
    general_groups = lexicon(lang or detect(answer) or FALLBACK).equivalences
    if (
        not found
        and (synonyms or general_groups)
        and (_groups_change(answer, lang, synonyms) or _groups_change(phrase, lang, synonyms))
    ):
        found = _find(answer, phrase, gap, lang, (), general=False)
    if not found and gap and lexicon(lang).compounds:
        # "mitversichert" states "versichert": a compound's last part is the fact's word.
        found = _find(answer, phrase, gap, lang, synonyms, compound=True)
    return found


def _read(text: str, lang: str | None, synonyms: Synonyms, general: bool) -> tuple[str, ...]:
    """`tokens`, called the way most callers call it: the memo keys a call by how its
    arguments are given, and a text read twice would be read twice."""
    if not general:
        return (
            tokens(text, lang, synonyms, False) if synonyms else tokens(text, lang, general=False)
        )
    return tokens(text, lang, synonyms) if synonyms else tokens(text, lang)


@lru_cache(maxsize=16384)
def _groups_change(text: str, lang: str, synonyms: Synonyms) -> bool:
    """Whether the suite's or the language's groups change how `text` reads (asked of every
    answer and phrase again)."""
    return tokens(text, lang, synonyms) != tokens(text, lang, general=False)


@lru_cache(maxsize=16384)
def token_set(text: str, lang: str | None, synonyms: Synonyms, general: bool) -> frozenset[str]:
    """The tokens of `text`, as a set: every phrase sought in it asks whether its words are
    all there first."""
    return frozenset(_read(text, lang, synonyms, general))


@lru_cache(maxsize=16384)
def _wanted(
    phrase: str, lang: str | None, synonyms: Synonyms, general: bool
) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """A phrase's tokens without clause breaks, its words (no negation), and the words an
    answer needs for the phrase in any order: read once per phrase, not per answer."""
    want = tuple(w for w in _read(phrase, lang, synonyms, general) if w != BOUNDARY)
    need = content(want, lang) | {w for w in want if w.isdigit()}
    return want, frozenset(want) - {NEG}, frozenset(need)


def phrase_words(
    phrase: str, lang: str | None, synonyms: Synonyms, general: bool
) -> frozenset[str]:
    """The words (tokens, no negation or clause break) a text must hold for `phrase` to be
    found in it in order or not (`find` with no gap)."""
    return _wanted(phrase, lang, synonyms, general)[1]


def _find(
    answer: str,
    phrase: str,
    gap: int,
    lang: str | None,
    synonyms: Synonyms,
    general: bool = True,
    compound: bool = False,
) -> list[Match]:
    seq = _read(answer, lang, synonyms, general)
    wanted, words, need = _wanted(phrase, lang, synonyms, general)
    if not wanted:
        return []
    want = list(wanted)
    said = token_set(answer, lang, synonyms, general)
    if compound:
        seq = compound_read(seq, words, lexicon(lang))
        said = frozenset(seq)
    if not words <= said:
        # Some word of the phrase is nowhere in the answer: only its content words, in any
        # order, may still match ("non cumulabile" states "non è cumulabile").
        if not gap or len(want) < 2 or not need or not need <= said:
            return []
        return _unordered(seq, want, gap, lang)
    phrase_negates = NEG in want
    found: list[Match] = []
    for i, w in enumerate(seq):
        if w != want[0]:
            continue
        j, k, used, inserted_neg = i + 1, 1, 0, False
        while k < len(want) and j < len(seq) and seq[j] != BOUNDARY:
            if seq[j] == want[k]:
                k += 1
            else:
                used += 1
                inserted_neg = inserted_neg or seq[j] == NEG
                if used > gap:
                    break
            j += 1
        if k < len(want):
            continue
        negated = (inserted_neg or clause_negated_before(seq, i)) and not phrase_negates
        found.append(Match(i, j, negated))
    if not found and gap and len(want) > 1:
        found = _unordered(seq, want, gap, lang)
    return found


def _unordered(seq: tuple[str, ...], want: list[str], gap: int, lang: str | None) -> list[Match]:
    """The phrase's content words in any order within one clause, spanning at most `gap` more
    words than the phrase has ("30 days of keeping your data" for "data kept for 30 days")."""
    phrase_negates = NEG in want
    keep = content(want, lang) | {w for w in want if w.isdigit()}
    need = [w for w in want if w in keep]
    for start, end in windows(seq, need, len(want) + 2 * gap) if need else ():
        has_neg = NEG in seq[start:end] or clause_negated_before(seq, start)
        if phrase_negates and not has_neg:
            continue
        return [Match(start, end, has_neg and not phrase_negates)]
    return []


def near(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> set[str]:
    """The phrase's content words that occur somewhere in the answer (for an undecided verdict)."""
    lang = lang or detect(answer) or FALLBACK
    said = set(tokens(answer, lang, synonyms))
    return content(tokens(phrase, lang, synonyms), lang) & said


_SURFACE_WORD = regex.compile(r"[\p{L}\p{N}]+(?:['’][\p{L}]+)?")


def surface_words(
    text: str, wanted: set[str], *, lang: str | None = None, synonyms: Synonyms = ()
) -> list[str]:
    """The text's own words for tokens the checks found ("Enterprise-only" for "enterpris",
    "onli"), in the order they stand, each once: what a detail quotes instead of stems or a
    synonym group's first phrasing."""
    lang = lang or detect(text) or FALLBACK
    out: dict[str, None] = {}
    left = set(wanted)
    for m in _SURFACE_WORD.finditer(MARKER.sub(" ", text)):
        toks = set(tokens(m.group(0), lang)) & left
        if toks:
            out.setdefault(m.group(0), None)
            left -= toks
    # A token that stands for a synonym group: quote the group's phrasing the text uses.
    for group in (*synonyms, *lexicon(lang).equivalences):
        head = set(tokens(group[0], lang, synonyms))
        if head & left:
            # The phrasing the text itself uses ("comes with"), not the group's first.
            said = next(
                (p for p in group if _find(text, p, MAX_GAP, lang, (), general=False)),
                next((p for p in group if says(text, p, lang=lang)), None),
            )
            if said is not None:
                out.setdefault(_own_words(text, said, lang), None)
                left -= head
    return list(out)


def _own_words(text: str, phrasing: str, lang: str) -> str:
    """The text's words for a phrasing it uses: "comes with" for "come with"."""
    plain = [w for w in tokens(phrasing, lang, general=False) if w not in (NEG, BOUNDARY)]
    words: dict[str, str] = {}
    for m in _SURFACE_WORD.finditer(MARKER.sub(" ", text)):
        for tok in tokens(m.group(0), lang, general=False):
            words.setdefault(tok, m.group(0))
    if all(w in words for w in plain):
        return " ".join(words[w] for w in plain)
    return phrasing


# "Amsterdam, Utrecht and Rotterdam": a comma between two words of a fact that lists items
# does not end the clause there.
_COMMA_BETWEEN = regex.compile(r"([\p{L}\p{N}]+)(\s*,)(?=\s*([\p{L}\p{N}]+))")


def joined_lists(text: str, lang: str, wanted: frozenset[str]) -> str:
    """`text` with a comma as a space (same length) where the words on both sides are words
    of the phrase sought."""
    if not any(left in wanted and right in wanted for left, right in _comma_sites(text, lang)):
        return text  # no comma stands between two of its words: nothing to join

    def join(m: regex.Match[str]) -> str:
        left, right = tokens(m.group(1), lang), tokens(m.group(3), lang)
        if left and right and left[-1] in wanted and right[0] in wanted:
            return m.group(1) + " " * len(m.group(2))
        return m.group(0)

    return _COMMA_BETWEEN.sub(join, text)


@lru_cache(maxsize=4096)
def _comma_sites(text: str, lang: str) -> tuple[tuple[str, str], ...]:
    """The tokens on both sides of each comma `joined_lists` may join (asked per fact)."""
    out = []
    for m in _COMMA_BETWEEN.finditer(text):
        left, right = tokens(m.group(1), lang), tokens(m.group(3), lang)
        if left and right:
            out.append((left[-1], right[0]))
    return tuple(out)


def says(answer: str, phrase: str, *, lang: str | None = None) -> bool:
    """Whether every word of `phrase` stands in one clause of the answer, in order or close
    together in any order ("leite ich Ihre Anfrage weiter" says "ich leite Ihre Anfrage")."""
    wanted, words, _ = _wanted(phrase, lang, (), True)
    said = token_set(answer, lang, (), True)
    if not wanted or not words <= said or (NEG in wanted and NEG not in said):
        return False
    seq, want = tokens(answer, lang), list(wanted)
    return next(windows(seq, want, len(want) + 2 * MAX_GAP), None) is not None


def states(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> bool:
    """Whether the answer states `phrase` (somewhere not negated)."""
    return any(not m.negated for m in find(answer, phrase, lang=lang, synonyms=synonyms))
