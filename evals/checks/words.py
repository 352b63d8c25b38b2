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
from evals.checks.lexicon import Lexicon, lexicon
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
# Each spelling with what it cannot match without (the text is case-folded first): a pattern
# whose needle the text lacks is not searched, and no replacement writes a needle.
_NEEDLES = (
    "can",
    "won't",
    "shan't",
    "n't",
    "'ll",
    "'re",
    "'ve",
    "'d",
    "i'm",
    "'s",
    "'s",
    "anymore",
    "'",
)
_CONTRACTION_RE = [
    (regex.compile(p, regex.IGNORECASE), r, needle)
    for (p, r), needle in zip(_CONTRACTIONS, _NEEDLES, strict=True)
]


@lru_cache(maxsize=8192)
def expand(text: str) -> str:
    """Normalised text with contractions spelled out: "isn't" -> "is not", "l'app" -> "le app"."""
    t = unicodedata.normalize("NFC", normalise(text))
    for pat, rep, needle in _CONTRACTION_RE:
        if needle in t:
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
    return word_stem(lex.same_word.get(w, w), lex, lang)


#: The shortest stem a verb ending is cut from ("telt" -> "tel", not "wat" -> "wa").
MIN_VERB_STEM = 4


def word_stem(w: str, lex: Lexicon, lang: str) -> str:
    """The word's Snowball stem, less a person ending the stemmer leaves on a verb: Dutch and
    German "telt", "zählt", "houdt" read as "tellen", "zählen", "houden" do (Snowball joins
    the infinitive and the participle, not the third person); then the language's
    `stem_rewrites`, where the stemmer cuts an infinitive further than its other forms
    (Dutch "meld", "gemeld" read as "melden")."""
    s = stem(w, lang)
    for end in lex.verb_endings:
        if len(s) >= MIN_VERB_STEM and s.endswith(end):
            s = s[: -len(end)]
            break
    for end, instead in lex.stem_rewrites:
        if len(s) >= MIN_VERB_STEM and s.endswith(end):
            return s[: -len(end)] + instead
    return s


@lru_cache(maxsize=16)
def _read_as(lang: str) -> tuple[tuple[regex.Pattern[str], str], ...]:
    lex = lexicon(lang)
    return tuple(
        (regex.compile(rf"(?<![\p{{L}}\p{{N}}])(?:{p})(?![\p{{L}}\p{{N}}])"), r)
        for p, r in lex.read_as
    )


@lru_cache(maxsize=16)
def _any_read_as(lang: str) -> regex.Pattern[str]:
    """Every `read_as` phrase of `lang` in one pattern: a text none of them is in (most
    texts) is not read again phrase by phrase."""
    parts = "|".join(f"(?:{p})" for p, _ in lexicon(lang).read_as) or "(?!)"
    return regex.compile(rf"(?<![\p{{L}}\p{{N}}])(?:{parts})(?![\p{{L}}\p{{N}}])")


def read_as(text: str, lex: Lexicon) -> str:
    """The (normalised) text with the language's `read_as` phrases replaced, before its
    negations are read: "costs nothing" is "free of charge", "kost niets" is "gratis"."""
    if not lex.read_as or _any_read_as(lex.lang).search(text) is None:
        return text
    for pattern, phrase in _read_as(lex.lang):
        text = pattern.sub(phrase, text)
    return text


def compound_read(seq: tuple[str, ...], wanted: frozenset[str], lex: Lexicon) -> tuple[str, ...]:
    """`seq` with a compound read as its last part where that part is a wanted word:
    "mitversichert" as "versichert", "opzegvergoeding" as "vergoeding" (Dutch, German and
    Danish put a compound's head last). Not where the first part negates it
    ("unversichert", "onverzekerd"), nor for a short word (a stem of fewer than
    MIN_COMPOUND_PART letters ends too many words)."""
    if not lex.compounds:
        return seq
    heads = [w for w in wanted if len(w) >= MIN_COMPOUND_PART and not w.isdigit()]
    if not heads:
        return seq
    out = list(seq)
    # "einde van dat jaar" after "het eerste contractjaar": a fact's compound whose first part
    # the answer names elsewhere is stated by its last part alone.
    wholes = {w for w in wanted if len(w) >= MIN_COMPOUND_PART + MIN_FIRST_PART}
    for i, tok in enumerate(seq):
        if tok in wanted or tok in (NEG, BOUNDARY):
            continue
        whole = next(
            (
                w
                for w in sorted(wholes)
                if len(tok) >= MIN_HEAD_ALONE
                and w.endswith(tok)
                and len(w) - len(tok) >= MIN_FIRST_PART
                and any(t != tok and t.startswith(w[: -len(tok)]) for t in seq)
            ),
            None,
        )
        if whole is not None:
            out[i] = whole
            continue
        for head in heads:
            first = tok[: -len(head)]
            if (
                len(first) >= MIN_FIRST_PART
                and tok.endswith(head)
                and not any(first.startswith(p) for p in lex.negating_prefixes)
            ):
                out[i] = head
                break
    return tuple(out)


#: A compound's last part read as a fact's word has at least this many letters, its first
#: part at least MIN_FIRST_PART ("mit" in "mitversichert").
MIN_COMPOUND_PART = 5
MIN_FIRST_PART = 3
#: A compound's last part standing alone for it, where the answer names its first part.
MIN_HEAD_ALONE = 4


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


# A list line's short label and what follows it are one clause: "- Carrinha: não é possível".
LABEL = regex.compile(r"(?m)^(\s*(?:[-•*]|\d+[.)])?\s*\p{L}[\p{L}\s]{0,24}?):(?=\s)")


def unlabelled(text: str, lex: Lexicon) -> str:
    """Each list line's label joined to its clause; a label that is a bare negation ("Nada:
    la congelación médica es gratuita") answers a question and negates nothing after it."""
    if ":" not in text:
        return text

    def join(m: regex.Match[str]) -> str:
        words = m.group(1).strip(" \t\n-•*").casefold().split()
        # "Purtroppo no:", "Unfortunately not:": a no with its regret is still a bare no.
        bare_no = words[-1:] and words[-1] in lex.negators
        bare_no = bare_no and all(w in lex.politeness or w in lex.negators for w in words)
        return m.group(0) if bare_no else m.group(1) + " "

    # Each pattern needs a colon its match holds, found by a search for the colon itself:
    # a clock time's ("22:00") is neither, and neither pattern is tried at every letter.
    if _LETTER_COLON.search(text) is not None:
        text = _label_denied(lex.lang).sub(r"\2 \1", text)
    if _COLON_SPACE.search(text) is None:
        return text
    return LABEL.sub(join, text)


# What a label denied needs (a letter, maybe spaces, then its colon) and what a list line's
# label needs (its colon before a space), each found from the colon.
_LETTER_COLON = regex.compile(r":(?<=\p{L}\s*:)")
_COLON_SPACE = regex.compile(r":(?=\s)")


@lru_cache(maxsize=16)
def _label_denied(lang: str) -> regex.Pattern[str]:
    """A label answered by a bare negation: "Cancellation fee: none", "Kosten: keine" say
    "no cancellation fee" (read so, the negation before what it denies)."""
    negators = lexicon(lang).negators
    body = "|".join(regex.escape(w) for w in sorted(negators, key=len, reverse=True))
    return regex.compile(
        rf"(\p{{L}}+)\s*:\s*({body or '(?!)'})(?=\s*(?:[–—.,;(]|-\s|$))",
        regex.IGNORECASE | regex.MULTILINE,
    )
