"""A text as the matching reads it: its tokens, one pass over its words.

Citation markers left out, list labels joined to their clause, contractions spelled out,
the language's `read_as` phrases replaced, numbers in words as digits; then each word's
token (a clause break, a negation, an article left out, or its stem), and a suite's
synonym groups and the language's equivalences read as their first phrasing.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.values import with_digits
from evals.checks.words import (
    BOUNDARY,
    DROPPED,
    NEG,
    WORDS_KEPT,
    expand,
    read_as,
    unlabelled,
    word_table,
    word_token,
)

#: A suite's synonym groups: each a tuple of phrasings that mean the same.
Synonyms = tuple[tuple[str, ...], ...]

# "22:00" is one word, not a clause break.
_CLOCK = regex.compile(r"(\d):(\d)")
_WORD = regex.compile(r"[\p{L}\p{N}]+|[€$£%]|[.,;:!?()\[\]–—]")
# Citation markers name documents ("archive-2025"), not what the answer says.
# A citation in brackets, or a ref in parentheses ("(pricing#plans)", "(doc: pricing#plans)");
# a parenthesis of prose that holds a bracketed citation is prose, not a marker.
MARKER = regex.compile(r"\[[^\]]*\]|\((?:\w+:\s?)?[^()\s\[\]]*#[^()\s\[\]]*\)")


@lru_cache(maxsize=16384)
def tokens(
    text: str, lang: str | None = None, synonyms: Synonyms = (), general: bool = True
) -> tuple[str, ...]:
    """Normalised, stemmed words with negators as ¬ and clause breaks as |; articles dropped,
    numbers in words as digits, a suite's synonyms as their group's first phrasing, then the
    language's general equivalences ("Arbeitstage" = "Werktage") as theirs (`general`).

    `lang`: the language to read the text in (stems, number words); detected when None.
    """
    lang = lang or detect(text) or FALLBACK
    out = _plain_tokens(text, lang)
    if synonyms:
        out = _with_synonyms(out, lang, synonyms)
    # After the suite's groups: a phrasing in both is read as the suite says, then as the
    # language says, and a fact and an answer go the same way.
    equivalences = lexicon(lang).equivalences
    return _with_synonyms(out, lang, equivalences) if general and equivalences else out


@lru_cache(maxsize=16384)
def _plain_tokens(text: str, lang: str) -> tuple[str, ...]:
    """`tokens` without any synonym group (what a group's phrasings are read as)."""
    # Each text is read with its own language's words only (lexicon.py): Spanish "sin" is no
    # negation in English, Dutch "de" no article in French.
    lex = lexicon(lang)
    # Citation markers name documents ("[doc:billing#invoices]"), not what the text says.
    # Each pattern needs a character most texts lack: a search for it costs a tenth of a
    # substitution that finds nothing.
    if "[" in text or "#" in text:
        text = MARKER.sub(" ", text)
    text = unlabelled(text, lex)
    t, _ = with_digits(read_as(expand(text), lex), lang)
    if ":" in t:
        t = _CLOCK.sub(r"\1h\2", t)
    t = t.replace("-", " ").replace("/", " ")
    table = word_table(lex, lang)
    words = _WORD.findall(t)
    # Each word's token looked up at once; a word read for the first time is read here.
    toks: list[str | None] = [table.get(w) for w in words]
    if None in toks:
        for i, tok in enumerate(toks):
            if tok is None:
                w = words[i]
                tok = table.get(w)
                if tok is None:
                    tok = word_token(w, lex, lang)
                toks[i] = tok
                if len(table) < WORDS_KEPT:
                    table[w] = tok
    asides = lex.asides
    if asides and not asides.isdisjoint(map(str.casefold, words)):
        # "non può però scriverci": inside a clause an adverb of contrast breaks nothing
        # (after a word; left out as an article is).
        for i in range(1, len(words)):
            if toks[i] == BOUNDARY and words[i - 1][:1].isalnum() and words[i].casefold() in asides:
                toks[i] = DROPPED
    # One break for a run of them, none at the start; "ne ... pas" is one negation, not two.
    out: list[str] = []
    last = BOUNDARY
    for tok in toks:
        if tok == DROPPED or (tok == last and tok in (BOUNDARY, NEG)):
            continue
        out.append(tok)
        last = tok
    return tuple(out)


@lru_cache(maxsize=256)
def _synonym_table(
    synonyms: Synonyms, lang: str | None
) -> dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]:
    """Every phrasing of every group as tokens, indexed by its first token, longest first,
    with its group's first phrasing's tokens: what each is read as. Tokens, not one symbol,
    so that a fact and an answer still match with words between ("no card needed" = "no
    credit card"). The first phrasing maps to itself, so that "credit card" is not read as
    "credit" followed by the synonym "card"."""
    index: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for group in synonyms:
        forms = [
            tuple(w for w in _plain_tokens(p, lang or FALLBACK) if w != BOUNDARY) for p in group
        ]
        forms = [f for f in forms if f]
        for toks in forms:
            index.setdefault(toks[0], []).append((toks, forms[0]))
    out: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {}
    for head, entries in index.items():
        ordered = sorted(entries, key=lambda e: len(e[0]), reverse=True)
        # A phrasing of one word always matches where its head stands, so none after the
        # first is ever tried; and one read as itself changes nothing, as no match does.
        # Left out, most words that open a phrasing ("free", "day") are no head at all,
        # and most texts are not walked.
        one = next((n for n, (toks, _) in enumerate(ordered) if len(toks) == 1), None)
        if one is not None:
            toks, canonical = ordered[one]
            ordered = ordered[:one] if toks == canonical else ordered[: one + 1]
        if ordered:
            out[head] = tuple(ordered)
    return out


def _with_synonyms(seq: tuple[str, ...], lang: str | None, synonyms: Synonyms) -> tuple[str, ...]:
    table = _synonym_table(synonyms, lang)
    if table.keys().isdisjoint(seq):
        return seq  # most texts hold no phrasing of a group: no walk through them
    # Only where a phrasing can begin is a match tried, and nothing is copied until one
    # matches: most texts walked hold a head but no phrasing (seven in ten), and come back
    # as they are.
    out: list[str] | None = None
    i = 0
    entries_of = table.get
    for j, w in enumerate(seq):
        if j < i:
            continue  # inside a phrasing read already
        entries = entries_of(w)
        if entries is None:
            continue
        for toks, canonical in entries:
            if seq[j : j + len(toks)] == toks:
                if out is None:
                    out = list(seq[:j])
                else:
                    out.extend(seq[i:j])
                out.extend(canonical)
                i = j + len(toks)
                break
    if out is None:
        return seq
    out.extend(seq[i:])
    return tuple(out)
