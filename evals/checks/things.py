"""The product things an answer names, read against what the passages name: a quoted label
("Request change"), a header or setting ("X-Rota-Token"), a product or integration name
("Personio"). A thing no passage or ticket names is invented, or at least unsupported; a
thing only an ARCHIVED passage names is presented as current unless its sentence says it
no longer applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.clauses import corrects
from evals.checks.figure_pattern import months
from evals.checks.language import detect, place_names
from evals.checks.lexicon import capitalises_nouns
from evals.checks.matching import BOUNDARY, MARKER, content, tokens
from evals.checks.text import LETTERS, sentences
from evals.checks.unmarked import figures_between

# A quoted label: “Request change”, "Request change", „Anfrage“, «Demande», ‘Pause’.
_QUOTED = regex.compile(r"[\"“„«‘]\s*([^\"“”„«»‘’\n]{2,40}?)\s*[\"”“»’]")
_OPENING_QUOTES = '"“„«‘'
# A code-like name: capitals inside or after a hyphen ("X-Rota-Token", "DATEV", "eBay"),
# or letters and digits together ("v1", "HTTP2"); a word that is all capitals but short
# ("OK", "EU") says too little.
_CODE = regex.compile(
    r"(?<![\p{L}\p{N}])(?:\p{L}+(?:-\p{L}+)*-\p{Lu}[\p{L}]*(?:-\p{L}+)*"
    r"|\p{Ll}+\p{Lu}[\p{L}]*|\p{Lu}{3,}(?=s?(?![\p{L}\p{N}]))|\p{L}+\d+\p{L}*)(?![\p{L}\p{N}])"
)
# A capitalised word inside a sentence: a name in languages that do not capitalise nouns.
_CAPITAL = regex.compile(r"(?<=[\p{L}\p{N},;]\s+)\p{Lu}\p{Ll}+(?:[-’']\p{L}+)*")
# A verb with the formal "you" attached, written with its capital in Italian ("aiutarLa",
# "confermarLe", "inviarGlielo"): a courtesy, not a code-like name.
_COURTESY = regex.compile(r"\p{Ll}{3,}(?:La|Le|Lo|Li|Gli|Glielo|Gliela)")
# A passage marked as retired: "ARCHIVED.", "ARCHIVIERT", "GEARCHIVEERD", "ARCHIVIATO".
_ARCHIVED = regex.compile(r"^\W*(?:ARCHIV\w*|ARCHIEF|GEARCHIVEERD|ARQUIV\w*|ARKIV\w*)\b")


def archived(passage: str) -> bool:
    """Whether a passage is marked ARCHIVED (in any language's spelling) at its start."""
    return _ARCHIVED.match(passage) is not None


@dataclass(frozen=True)
class Named:
    """A thing the answer names, where it stands, and the sentence it stands in."""

    text: str
    sentence: str


_SHORT = 5


def named(answer: str, lang: str | None, quoted_only: bool = False) -> list[Named]:
    """Quoted labels, code-like names and (outside German) capitalised words inside a
    sentence, each once; figures ("EUR 45", "28 February") and month names are no things.
    `quoted_only`: the quoted labels alone (an answer in another language than its passages
    names the same things in other words)."""
    out: list[Named] = []
    seen: set[str] = set()
    parts = sentences(answer)
    lines = {line.strip() for line in answer.split("\n")}
    for n, (at, sentence) in enumerate(parts):
        plain = MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
        # The answer's figures, read once for all its sentences.
        figs = figures_between(answer, lang, at, at + len(sentence))
        for f in figs:
            a, b = f.start - at, f.end - at
            plain = plain[:a] + " " * (b - a) + plain[b:]
        # Places of several words ("European Union", "Estados Unidos") are no two things.
        plain = blank_places(plain, lang)
        # A quoted label opens with one of these marks: a sentence without any (most) is not
        # scanned for one at every character.
        found = (
            [m.group(1) for m in _QUOTED.finditer(plain)]
            if any(c in plain for c in _OPENING_QUOTES)
            else []
        )
        # A greeting or sign-off ("Dear Customer Care,", "Kind regards, The Pedalo Team")
        # names people and teams, not product things: a short first or closing line with
        # no figure and no citation.
        edge = n == 0 or n >= len(parts) - 2
        alone = sentence.strip() in lines or sentence.rstrip().endswith(",")
        short = len(plain.split()) <= _SHORT and not figs and plain == sentence
        salutation = edge and alone and short
        if not quoted_only and not salutation:
            found += [
                m.group(0) for m in _CODE.finditer(plain) if not _COURTESY.fullmatch(m.group(0))
            ]
            if not capitalises_nouns(lang):
                found += [m.group(0) for m in _CAPITAL.finditer(plain)]
        for f in found:
            key = f.casefold().strip(" .,;:!?")
            # A country or region ("Portugal", "Suiza", "Europa") is a place the customer
            # is in or goes to, not a thing the product names.
            if key and key not in seen and key not in months() and not _place(key, lang):
                seen.add(key)
                out.append(Named(f.strip(" .,;:!?"), sentence))
    return out


def _place(name: str, lang: str | None) -> bool:
    return name in place_names(lang or "en") or name in place_names("en")


@lru_cache(maxsize=16)
def _places_by_head(lang: str | None) -> dict[str, tuple[str, ...]]:
    """CLDR's place names of more than one word, in `lang` and English (lower case, each
    beginning with a letter), by their first word, longest first."""
    out: dict[str, list[str]] = {}
    for name in {n for n in place_names(lang or "en") | place_names("en") if " " in n}:
        head = LETTERS.match(name)
        if head is not None:
            out.setdefault(head.group(0), []).append(name)
    return {h: tuple(sorted(v, key=len, reverse=True)) for h, v in out.items()}


def blank_places(text: str, lang: str | None) -> str:
    """`text` with every place name of several words blanked (same length), the longest at
    each word, as a pattern of all of them in any case would find them: a word that opens
    none is passed over with one look-up, where the pattern (hundreds of names) took 20 ms
    to compile per language and was tried at every character."""
    by_head = _places_by_head(lang)
    # Most sentences hold no word that opens a place name: their words are looked up in one
    # pass, without a match object for each.
    if by_head.keys().isdisjoint(map(str.lower, LETTERS.findall(text))):
        return text
    out, last = text, 0
    for m in LETTERS.finditer(text):
        names = by_head.get(m.group(0).lower()) if m.start() >= last else None
        for name in names or ():
            end = m.start() + len(name)
            if text[m.start() : end].lower() == name and not text[end : end + 1].isalpha():
                out = out[: m.start()] + " " * len(name) + out[end:]
                last = end
                break
    return out


@lru_cache(maxsize=4096)
def _words(text: str, lang: str | None) -> tuple[str, ...]:
    # A negation is part of a name: the filter "Senza frutta a guscio" is not named by a
    # ticket about "frutta a guscio".
    return tuple(w for w in tokens(text, lang) if w != BOUNDARY)


def _within(need: tuple[str, ...], seq: tuple[str, ...]) -> bool:
    """Whether `need` stands in `seq` as a run: tried only where its first word stands (a
    passage's few hundred tokens were each sliced and compared for every thing named)."""
    n = len(need)
    if not n:
        return True
    first, last = need[0], len(seq) - n
    i = -1
    while True:
        try:
            i = seq.index(first, i + 1, last + 1)
        except ValueError:
            return False
        if seq[i : i + n] == need:
            return True


def names_in(thing: str, text: str, lang: str | None) -> bool:
    """Whether `text` names the thing: its words in a row, as stems (so "Teams" meets
    "Team", and "Request change" is not met by "request" and "change" apart). A thing of
    glue words only ("The", "Hi") names nothing."""
    if not content(tokens(thing, lang), lang):
        return True
    return _within(_words(thing, lang), _words(text, lang)) or _within(
        _words(thing, None), _words(text, None)
    )


_NAME_PARTS = regex.compile(r"[-’']")


def _known(thing: str, text: str, lang: str | None) -> bool:
    if names_in(thing, text, lang):
        return True
    # A name with a word attached ("Enterprise-only"), or a German compound ("PDF-Kopie",
    # "Support-Team"), is known when one of its parts is; a code-like name whose parts are
    # all capitalised ("X-Acme-Key") only as a whole.
    parts = [p for p in _NAME_PARTS.split(thing) if p]
    attached = capitalises_nouns(lang) or any(p[0].islower() for p in parts)
    return len(parts) > 1 and attached and any(names_in(p, text, lang) for p in parts)


def unsupported(
    answer: str,
    current: str,
    retired: str,
    lang: str | None,
    quoted_only: bool = False,
    prompt: str = "",
) -> tuple[list[str], list[str]]:
    """The things the answer names that nothing it may draw on names (`current`: the
    current passages, the ticket and the conversation; `prompt`: the system prompt, which
    names the product and its plans), and those only a retired passage names and the
    answer's sentence presents as current. `quoted_only`: of the unnamed things, only
    quoted labels count (a hand-over names teams, not product things)."""
    unknown: list[str] = []
    stale: list[str] = []
    other_language = lang is not None and detect(current) not in (None, lang)
    for n in named(answer, lang):
        if _known(n.text, current, lang):
            continue
        if retired and names_in(n.text, retired, lang):
            if not corrects(n.sentence):
                stale.append(n.text)
            continue
        # The prompt's names (the product, its plans) are the assistant's to use, but they
        # make nothing an archived passage names current.
        if prompt and _known(n.text, prompt, lang):
            continue
        if not (other_language or quoted_only) or n in named(n.sentence, lang, quoted_only=True):
            unknown.append(n.text)
    return unknown, stale
