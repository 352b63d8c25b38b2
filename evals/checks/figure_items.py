"""The words a figure is stated about: its clause, its own item of a list of figures of its
kind, and the head of that list ("The yearly premium is 120 € for Base, 180 € for Comfort")."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.clauses import clauses
from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.values import Figure, parse_figures

# A comma between digits is a thousands or decimal separator ("2,000 €"), not a clause break.
_COMMA = regex.compile(r"(?<!\d),|,(?!\d)")


# Memoised: the same answer and passages are bound figure by figure, check by check.
@lru_cache(maxsize=4096)
def clause_of(text: str, pos: int) -> str:
    """The clause of `text` (cut at sentence ends, ';', ':', 'but' and commas) holding `pos`."""
    for start, piece in clauses(text):
        if start <= pos < start + len(piece):
            lo, hi = _cut(piece, pos - start, _COMMA)
            return piece[lo:hi]
    return text


def _cut(piece: str, offset: int, breaks: regex.Pattern[str]) -> tuple[int, int]:
    """The span of `piece` between the breaks either side of `offset`."""
    lo, hi = 0, len(piece)
    for m in breaks.finditer(piece):
        if m.end() <= offset:
            lo = m.end()
        elif m.start() >= offset:
            hi = m.start()
            break
    return lo, hi


# Where one item of a list of figures ends: a comma (not in a number), or a word that joins
# a list in the text's language (each file's `list_joiners`: "10 % with two policies and 7 %
# with an alarm", "180 € l'anno oppure 15,75 € al mese"). Read in that language only: Dutch
# "of" (or) is no break in "30 days of retention".
@lru_cache(maxsize=64)
def _item_breaks(lang: str | None, written: str | None) -> regex.Pattern[str]:
    """The item breaks of the case's language and of the language the text is written in
    (an answer in English to a Spanish ticket joins its list with "and")."""
    joiners = lexicon(lang or FALLBACK).list_joiners | lexicon(written or FALLBACK).list_joiners
    words = sorted(joiners, key=len, reverse=True)
    joined = "|".join(regex.escape(w) for w in words) or "(?!)"
    return regex.compile(
        rf"(?<!\d),|,(?!\d)|(?<![\p{{L}}])(?:{joined})(?![\p{{L}}])", regex.IGNORECASE
    )


def _peers(text: str, fig: Figure, lang: str | None) -> list[Figure]:
    """The other figures of `fig`'s kind and unit in its clause."""
    for start, piece in clauses(text):
        if start <= fig.start < start + len(piece):
            return [
                p
                for p in parse_figures(text, lang)
                if (p.kind, p.unit) == (fig.kind, fig.unit)
                and p.start != fig.start
                and start <= p.start < start + len(piece)
            ]
    return []


@lru_cache(maxsize=4096)
def subject_clause(text: str, fig: Figure, lang: str | None, whole: bool = False) -> str:
    """The words a figure is stated about: its own item of a list of figures of its kind
    ("data kept 14 days, backups within 30"; "10 % with two policies and 7 % with an alarm"),
    else the part of its clause between commas, or with `whole` (a passage's figure) its
    whole clause ("With Totale, sheds, fences and plants are covered up to 2,000 € per
    claim"). An answer's figure keeps to its commas: "Deposit: 100 €, returned within 14
    days" says nothing of the 100 € after the comma."""
    for start, piece in clauses(text):
        if start <= fig.start < start + len(piece):
            peers = _peers(text, fig, lang)
            if not peers and whole:
                return piece
            at = fig.start - start
            lo, hi = _cut(piece, at, _item_breaks(lang, detect(text)) if peers else _COMMA)
            if not whole:
                # An answer's words after a peer figure are the peer's: "van de 50 € borg gaat
                # 20 € af omdat de modem beschadigd is" says the damage of the 20 €.
                for p in peers:
                    if at < p.start - start < hi:
                        hi = p.start - start
            return piece[lo:hi]
    return text


@lru_cache(maxsize=4096)
def subject(
    text: str, fig: Figure, lang: str | None, synonyms: Synonyms = (), whole: bool = False
) -> frozenset[str]:
    """The content words of the clause the figure stands in, the figure's own words left out
    (`whole`: a passage's figure alone of its kind in its clause has all of it)."""
    clause = subject_clause(text, fig, lang, whole)
    own = set(tokens(fig.text, lang, synonyms))
    return frozenset(
        content(tokens(clause, lang, synonyms), lang)
        - own
        - {w for w in tokens(clause, lang) if any(ch.isdigit() for ch in w)}
    )


@lru_cache(maxsize=4096)
def own_item(text: str, fig: Figure, lang: str | None, synonyms: Synonyms = ()) -> frozenset[str]:
    """The content words of the figure's own item among all the figures of its clause, of
    any kind: in "a new SIM costs 7,50 € and you have it within 2 working days" the SIM is
    the 7,50 €'s subject, not the 2 days'."""
    for start, piece in clauses(text):
        if start <= fig.start < start + len(piece):
            lo, hi = _cut(piece, fig.start - start, _item_breaks(lang, detect(text)))
            item = list(piece[lo:hi])
            # Other figures' words are theirs: "over 24 months is 804 €" says nothing of a
            # month about the 804 €.
            for f in parse_figures(text, lang):
                if f.start != fig.start and start + lo <= f.start < start + hi:
                    a, b = f.start - start - lo, min(f.end - start - lo, len(item))
                    item[a:b] = " " * (b - a)
            own = set(tokens(fig.text, lang, synonyms))
            return frozenset(content(tokens("".join(item), lang, synonyms), lang) - own)
    return frozenset()


@lru_cache(maxsize=4096)
def list_head(text: str, fig: Figure, lang: str | None, synonyms: Synonyms = ()) -> frozenset[str]:
    """The content words before the first figure of a list that `fig` belongs to: in "The
    yearly premium is 120 € for Base, 180 € for Comfort and 264 € for Totale" the premium is
    what every item is about, so it binds none of them more than another."""
    peers = _peers(text, fig, lang)
    for start, piece in clauses(text):
        if start <= fig.start < start + len(piece):
            # A range ("from 9:30 to 19:30") is one item, not a list: its head is its own.
            lo, hi = _cut(piece, fig.start - start, _item_breaks(lang, detect(text)))
            if all(start + lo <= p.start < start + hi for p in peers):
                return frozenset()
            head = piece[: min(p.start for p in (*peers, fig)) - start]
            return frozenset(content(tokens(head, lang, synonyms), lang))
    return frozenset()


@lru_cache(maxsize=4096)
def subject_words(about: str, lang: str | None, synonyms: Synonyms = ()) -> frozenset[str]:
    """The content words of a figure's stated subject, and the head of each of the
    language's general groups a phrasing of which holds one of them: "Jahr" is named by "im
    Jahr", which reads as the group's "jährlich"."""
    reading = lang or FALLBACK
    want = set(content(tokens(about, lang, synonyms), lang))
    for group in lexicon(reading).equivalences:
        forms = [content(tokens(p, reading, general=False), reading) for p in group]
        if any(len(f) > 1 and f & want for f in forms[1:]):
            want |= content(tokens(group[0], reading, general=False), reading)
    return frozenset(want)
