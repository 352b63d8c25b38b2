"""A scope the answer widens: "Bellen en sms'en is onbeperkt, ook naar het buitenland" where
the passage says "bellen en sms'en in België onbeperkt". The sentence restates a passage
sentence that limits its claim (to a place, "in België", "in Italia", or with "only",
"alleen", "solo") and adds, after a word that widens it ("also", "ook", "anche", "auch",
"aussi", "también"; each language file's `[scope]`), words that no passage, ticket or turn
holds, without naming the place the passage limits it to.

Measured before it was kept: without the passage's limit, the widening words flagged more
correct answers than wrong ones ("a Saturday would also be possible"); with it, see
docs/checks.md.
"""

from __future__ import annotations

from functools import cache, lru_cache

import regex

from evals.checks.lexicon import FALLBACK, SUPPORTED, lexicon
from evals.checks.matching import MARKER, NEG, content, tokens
from evals.checks.text import LETTERS, sentences
from evals.checks.values import parse_figures

#: Content words an answer sentence must share with the passage sentence it restates.
MIN_SHARED = 2
# The widening reaches to the end of its clause.
_CLAUSE_END = regex.compile(r"[.!?;:,]|\s[–—-]\s")


# A place is a capitalised word, not an all-capital one ("in CSV" is a format).
_PLACE_WORD = r"(\p{Lu}\p{Ll}{2,}[\p{L}-]*)"


@cache
def _place(lang: str | None) -> regex.Pattern[str]:
    """ "in België", "binnen de EU" is no place (all capitals), "entro l'Italia": a place
    after one of the language's `within` words and an optional article."""
    lex = lexicon(lang)
    within = "|".join(r"\s+".join(map(regex.escape, w.split())) for w in lex.within) or "(?!)"
    arts = "|".join(regex.escape(a) for a in lex.articles) or "(?!)"
    return regex.compile(rf"(?<!\p{{L}})(?:{within})\s+(?:(?:{arts})\s+|l['’])?{_PLACE_WORD}")


@cache
def _also(lang: str | None) -> regex.Pattern[str]:
    words = lexicon(lang).also
    body = "|".join(
        r"\s+".join(map(regex.escape, w.split())) for w in sorted(words, key=len, reverse=True)
    )
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}})" if body else r"(?!)", regex.I)


def _words(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(w for w in content(tokens(text, lang), lang) if not w.isdigit())


@lru_cache(maxsize=256)
def _known(known: str, lang: str | None) -> frozenset[str]:
    return _words(known, lang)


@lru_cache(maxsize=1024)
def _limited_sentences(
    passage: str, lang: str | None
) -> tuple[tuple[frozenset[str], tuple[str, ...], str], ...]:
    """The passage sentences that limit their claim: their words, the places they limit
    it to (none for an "only") and their text."""
    only = frozenset(lexicon(lang).restrictive)
    out = []
    for _, s in sentences(passage):
        places = tuple(m.group(1) for m in _place(lang).finditer(s))
        limited = places or only & {w.casefold() for w in LETTERS.findall(s)}
        if limited:
            out.append((_words(s, lang), places, s.strip()))
    return tuple(out)


def widened(
    answer: str, passages: tuple[str, ...], known: str, lang: str | None
) -> list[tuple[str, str]]:
    """The answer's sentences that restate a passage sentence and widen it with words that
    nothing the answer draws on (`known`: passages, ticket, turns) holds; each with the
    passage sentence."""
    also = _also(lang)
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        m = also.search(sentence)
        if m is None:
            continue
        rest = sentence[m.end() :]
        if rest.split()[:1] and rest.split()[0].casefold() in lexicon(lang).concessive:
            continue  # "ook al heeft ze nog 2 jaar": a concession, not a wider scope
        if NEG in tokens(rest.split(",")[0], lang)[:2]:
            continue  # "ik kan je declaratie ook niet inzien": "not either" widens nothing
        cut = _CLAUSE_END.search(rest)
        added = _words(rest[: cut.start()] if cut else rest, lang) - _known(known, lang)
        if not added:
            continue
        said = _words(sentence[: m.start()], lang)
        only = frozenset(lexicon(lang).restrictive)
        if only & {w.casefold() for w in LETTERS.findall(sentence[: m.start()])}:
            continue  # "only part of Enterprise, and also ...": it keeps the limit
        theirs = next(
            (
                text
                for p in passages
                for words, places, text in _limited_sentences(p, lang)
                if len(said & words) >= MIN_SHARED
                and not any(place.casefold() in sentence.casefold() for place in places)
            ),
            None,
        )
        if theirs is not None:
            out.append((sentence.strip(), theirs))
    return out


@cache
def _only(lang: str | None) -> regex.Pattern[str]:
    """The language's words that limit a claim to what follows ("only", "reserved for")."""
    lex = lexicon(lang)
    words = (*lex.restrictive, *lex.only)
    body = "|".join(
        r"\s+".join(map(regex.escape, w.split())) for w in sorted(words, key=len, reverse=True)
    )
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}})" if body else r"(?!)", regex.I)


_NAME = r"\p{Lu}[\p{L}\p{N}]*"
# A name of several capitalised words is one item: "Tegola Comfort", "Lumo Plus".
_ITEM = rf"{_NAME}(?:\s+{_NAME})*"


def _items(text: str, lang: str | None) -> set[str]:
    """The names in the text, each without the function words a capital may open ("On Pro
    and Enterprise": "Pro")."""
    out = set()
    for m in regex.findall(_ITEM, text):
        words = m.split()
        while words and not content(tokens(words[0], lang), lang):
            words = words[1:]
        if words:
            out.add(" ".join(words).casefold())
    return out


@cache
def _name_list(lang: str | None) -> regex.Pattern[str]:
    """Names listed together: "Pro and Enterprise", "Basic, Plus e Cargo"."""
    joiners = "|".join(map(regex.escape, lexicon(lang).list_joiners)) or "(?!)"
    return regex.compile(rf"{_ITEM}(?:\s*,\s*{_ITEM})*\s*(?:,\s*)?(?:{joiners})\s+{_ITEM}")


@lru_cache(maxsize=1024)
def _listed(
    passage: str, lang: str | None
) -> tuple[tuple[frozenset[str], frozenset[str], str], ...]:
    """Each passage sentence's lists of names, with the sentence's other words and text."""
    out = []
    for _, s in sentences(passage):
        for m in _name_list(lang).finditer(s):
            names = frozenset(_items(m.group(0), lang))
            if len(names) > 1:
                out.append((names, _words(s, lang) - _words(" ".join(names), lang), s.strip()))
    return tuple(out)


def narrowed(answer: str, passages: tuple[str, ...], lang: str | None) -> list[tuple[str, str]]:
    """The answer's sentences that limit a claim to a name ("DATEV export is reserved for
    Enterprise") where the passage sentence it restates lists that name with others for
    it ("Pro and Enterprise export ... to DATEV"), and the sentence names none of them."""
    only = _only(lang)
    lists = [i for p in passages for i in _listed(p, lang)]
    if not lists:
        return []
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        m = only.search(sentence)
        if m is None:
            continue
        rest = sentence[m.end() :]
        cut = _CLAUSE_END.search(rest)
        limited = _items(rest[: cut.start()] if cut else rest, lang)
        named = _items(sentence, lang)
        said = _words(sentence, lang)
        for names, words, text in lists:
            others = names - limited
            if (
                limited & names
                and others
                and not others & named
                and len(said & words) >= MIN_SHARED
            ):
                out.append((sentence.strip(), text))
                break
    return out


@cache
def _automatic(langs: tuple[str, ...]) -> regex.Pattern[str]:
    words = sorted({w for g in langs for w in lexicon(g).automatic}, key=len, reverse=True)
    body = "|".join(r"\s+".join(map(regex.escape, w.split())) for w in words)
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}})" if body else r"(?!)", regex.I)


@lru_cache(maxsize=256)
def _says_automatic(known: str) -> bool:
    """Whether the text says anything happens automatically, in any language read (once
    per case's text)."""
    return _automatic(tuple(sorted(SUPPORTED))).search(known) is not None


def automatic_unstated(answer: str, known: str, lang: str | None, same_language: bool) -> list[str]:
    """The answer's sentences that say something happens by itself ("the account switches
    to Starter automatically", "Rotaboard verhindert solche Pläne automatisch") when
    nothing it draws on (`known`: the passages, the ticket, the turns) says anything
    happens automatically, in any language read: an outcome the answer invents. Only when
    the answer is in its passages' language (`same_language`): a translation may say
    "automatically" for what the passage says otherwise. Measured before it was kept: on
    every labelled answer of the five suites, three wrong answers and no correct one (one
    correct French answer to English passages before the language condition)."""
    if not same_language:
        return []
    if _says_automatic(known):
        return []
    own = _automatic((lang or FALLBACK,))
    # An amount given as automatic is `conditions.unconditional_amounts`' to weigh: "you get
    # 25 € off automatically" is right where the passage grants it to every customer. Not
    # so a thing said to switch itself on ("le Pass Monde s'active automatiquement ...
    # pour 10 €"): that is an outcome, whatever it costs.
    out = []
    for _, s in sentences(MARKER.sub(" ", answer)):
        said = own.search(s)
        if said is None:
            continue
        if any(f.kind == "money" for f in parse_figures(s, lang)) and not _switched_on(s, said):
            continue
        out.append(s.strip())
    return out


# Activation in the languages read: "activate", "activer", "attivare", "ativar", "aktivieren".
_ACTIVATES = regex.compile(r"activ|attiv|ativ|aktiv", regex.IGNORECASE)
_NEAR_WORDS = 3


def _switched_on(sentence: str, said: regex.Match[str]) -> bool:
    """Whether a verb of activation stands within three words of the "automatically"."""
    before = sentence[: said.start()].split()[-_NEAR_WORDS:]
    after = sentence[said.end() :].split()[:_NEAR_WORDS]
    return any(_ACTIVATES.search(w) for w in (*before, *after))
