"""Clauses and claims: where a sentence's claim begins and ends, and whether a clause names
something only to correct or question it ("no longer", "archived price list", "nicht mehr",
"ya no", "whether")."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.matching import MARKER, Synonyms, expand, find
from evals.checks.text import sentences

# A sentence that names something in order to correct or question it does not claim it.
_CORRECTION = regex.compile(
    r"\b(?:no\s+longer|not\s+(?:valid\s+)?any\s*more|archived\s+(?:\w+\s+){0,2}(?:price|list|plan|article|doc\w*|version|tier|page|rate|help|quick)|was\s+(?:only\s+)?valid|"
    r"valid\s+(?:only\s+)?until|retired|discontinued|expired|outdated|(?:former|previous)\s+(?:price|rate|plan)|"
    r"not\s+(?:\w+\s+){1,2}any\s*more|used\s+to|instead\s+of|rather\s+than|whether(?![^.;:]*\bor\b)|old\b[^.;:]{0,24}\b(?:price|rate|quote|tier|plan|list)|"
    r"nicht\s+mehr|nicht\s+länger|archivierte\w*\s+(?:\w+\s+)?preis\w*|ehemalig\w*|früher\w*|alte[nr]?\s+preis\w*|"
    r"statt|anstelle|galt\s+nur|ob\b|"
    r"ne\s+\w+\s+plus|n'est\s+plus|plus\s+valable|archivée?s?\s+(?:\w+\s+)?(?:tarif|prix|grille)\w*|ancien\w*|au\s+lieu\s+de|"
    r"ya\s+no|(?:precio|tarifa|lista)\w*\s+archivad\w*|anterior\w*|en\s+lugar\s+de|en\s+vez\s+de|si\s+es\s+legal)\b",
    regex.IGNORECASE,
)
# A claim's reach: a sentence cut at ';', ':' and at "but" (a correction in one half does not
# excuse a claim in the other).
_CLAUSE_BREAK = regex.compile(
    r";|(?<!\d):(?!\d)|\b(?:but|however|aber|sondern|mais|pero|sino)\b", regex.IGNORECASE
)


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[tuple[int, str], ...]:
    """The clauses of `text` with their offsets, citation markers blanked (memoised: every
    figure of an answer, and every case sharing a passage, asks again)."""
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), text)
    out: list[tuple[int, str]] = []
    for start, sentence in sentences(plain):
        for piece in _CLAUSE_BREAK.split(sentence):
            out.append((start, piece))
            start += len(piece)
    return tuple(out)


def clause_at(text: str, pos: int) -> str:
    """The clause of `text` that holds character `pos` (citation markers blanked)."""
    for start, piece in clauses(text):
        if start <= pos < start + len(piece) + 1:
            return piece
    return text


def sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` that holds character `pos`."""
    for start, sentence in sentences(text):
        if start <= pos < start + len(sentence):
            return sentence
    return text


def corrects(clause: str) -> bool:
    """Whether the clause marks what it names as retired, corrected or in question."""
    return _CORRECTION.search(expand(MARKER.sub(" ", clause))) is not None


def claims(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> bool:
    """Whether the answer claims `phrase`: stated in some clause that neither negates it nor
    names it to correct it."""
    lang = lang or detect(answer)
    for _, piece in clauses(answer):
        # Commas inside a clause do not part a claim ("our smallest plan, Pro, costs 29 €"),
        # but they do bound a negation ("don't worry, they will honour it").
        found = find(piece, phrase, gap=0, lang=lang, synonyms=synonyms)
        if not found and "," in piece:
            found = find(piece.replace(",", " "), phrase, gap=0, lang=lang, synonyms=synonyms)
        if any(not x.negated for x in found) and not corrects(piece):
            return True
    return False
