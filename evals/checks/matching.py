"""Matching meaning in other words: tokens, contractions, light stems, negation, corrections.

A fact matches when its words occur in order within one clause, with at most a few words
between them, tolerant of case, punctuation, hyphens, contractions ("don't" = "do not")
and light inflection ("employees" = "employee"). A fact found only where the clause negates
it does not count. A forbidden claim named in order to correct it ("no longer", "archived",
"nicht mehr", "ya no") is not a claim.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.text import normalise

NEG = "¬"
BOUNDARY = "|"
# Words between a fact's words within one match: "do not need a credit card" for "no credit card".
MAX_GAP = 3
# Words before a match, within its clause, that may negate it: "you will not pay the full month".
NEGATION_REACH = 4

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
_CONTRACTION_RE = [(regex.compile(p, regex.IGNORECASE), r) for p, r in _CONTRACTIONS]

_NEGATORS = set(
    "not no never none nothing neither nor without "
    "nicht kein keine keinen keinem keiner keines nie niemals ohne "
    "ne pas jamais aucun aucune sans "
    "nunca ningún ninguna ninguno sin".split()
)
# Dropped before matching: they carry no meaning a fact depends on.
_ARTICLES = set(
    "a an the der die das den dem des ein eine einen einem einer le la les un une du "
    "el los las unos unas".split()
)
# Clause boundaries beside punctuation: a negation does not reach across them.
_CONJUNCTIONS = set("but aber sondern mais pero sino however though".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "ies", "ied", "ly", "er", "es", "ed", "en")
_SUFFIXES += ("s", "e")
# Forms of a few verbs that carry no meaning a fact depends on: "is not" = "are not".
_SAME_WORD = {
    "does": "do",
    "did": "do",
    "doing": "do",
    "done": "do",
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "being": "be",
    "am": "be",
    "has": "have",
    "had": "have",
    "having": "have",
}
# "22:00" is one word, not a clause break.
_CLOCK = regex.compile(r"(\d):(\d)")
_WORD = regex.compile(r"[\p{L}\p{N}]+|[€$£%]|[.,;:!?()\[\]–—]")
_PUNCT = set(".,;:!?()[]–—")


def stem(word: str) -> str:
    """A light stem: one common suffix off a word of five letters or more."""
    if len(word) < 5 or word.isdigit():
        return word
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[: -len(suf)]
    return word


@lru_cache(maxsize=8192)
def expand(text: str) -> str:
    """Normalised text with contractions spelled out: "isn't" -> "is not", "l'app" -> "le app"."""
    t = unicodedata.normalize("NFC", normalise(text))
    for pat, rep in _CONTRACTION_RE:
        t = pat.sub(rep, t)
    return t


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[str, ...]:
    """Normalised, stemmed words with negators as ¬ and clause breaks as |; articles dropped."""
    t = _CLOCK.sub(r"\1h\2", expand(text)).replace("-", " ").replace("/", " ")
    out: list[str] = []
    for m in _WORD.finditer(t):
        w = m.group(0)
        if w in _PUNCT or w in _CONJUNCTIONS:
            if out and out[-1] != BOUNDARY:
                out.append(BOUNDARY)
        elif w in _NEGATORS:
            # "ne ... pas" is one negation, not two.
            if not (out and out[-1] == NEG):
                out.append(NEG)
        elif w not in _ARTICLES:
            out.append(stem(_SAME_WORD.get(w, w)))
    return tuple(out)


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    negated: bool


def _clause_negated_before(seq: tuple[str, ...], start: int) -> bool:
    for i in range(start - 1, max(-1, start - 1 - NEGATION_REACH), -1):
        if seq[i] == BOUNDARY:
            return False
        if seq[i] == NEG:
            return True
    return False


def find(answer: str, phrase: str, *, gap: int = MAX_GAP) -> list[Match]:
    """Where `phrase` occurs in `answer` as a word sequence, each with whether it is negated."""
    seq, want = tokens(answer), [w for w in tokens(phrase) if w != BOUNDARY]
    if not want:
        return []
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
        negated = (inserted_neg or _clause_negated_before(seq, i)) and not phrase_negates
        found.append(Match(i, j, negated))
    return found


def states(answer: str, phrase: str) -> bool:
    """Whether the answer states `phrase` (somewhere not negated)."""
    return any(not m.negated for m in find(answer, phrase))


# A sentence that names something in order to correct or question it does not claim it.
_CORRECTION = regex.compile(
    r"\b(?:no\s+longer|not\s+(?:valid\s+)?any\s*more|archived\s+(?:\w+\s+){0,2}(?:price|list|plan|article|doc\w*|version|tier|page|rate|help|quick)|was\s+(?:only\s+)?valid|"
    r"valid\s+(?:only\s+)?until|retired|discontinued|expired|outdated|(?:former|previous)\s+(?:price|rate|plan)|"
    r"used\s+to|instead\s+of|rather\s+than|whether|old\b[^.;:]{0,24}\b(?:price|rate|quote|tier|plan|list)|"
    r"nicht\s+mehr|nicht\s+länger|archivierte\w*\s+(?:\w+\s+)?preis\w*|ehemalig\w*|früher\w*|alte[nr]?\s+preis\w*|"
    r"statt|anstelle|galt\s+nur|ob\b|"
    r"ne\s+\w+\s+plus|n'est\s+plus|plus\s+valable|archivée?s?\s+(?:\w+\s+)?(?:tarif|prix|grille)\w*|ancien\w*|au\s+lieu\s+de|"
    r"ya\s+no|(?:precio|tarifa|lista)\w*\s+archivad\w*|anterior\w*|en\s+lugar\s+de|en\s+vez\s+de|si\s+es\s+legal)\b",
    regex.IGNORECASE,
)
_SENTENCE = regex.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
# A claim's reach: a sentence cut at ';', ':' and at "but" (a correction in one half does not
# excuse a claim in the other).
_CLAUSE_BREAK = regex.compile(
    r";|(?<!\d):(?!\d)|\b(?:but|however|aber|sondern|mais|pero|sino)\b", regex.IGNORECASE
)
# Citation markers name documents ("archive-2025"), not what the answer says.
_MARKER = regex.compile(r"\[[^\]]*\]|\([^)]*#[^)]*\)")


def clauses(text: str) -> list[tuple[int, str]]:
    """The clauses of `text` with their offsets, citation markers blanked."""
    plain = _MARKER.sub(lambda m: " " * len(m.group(0)), text)
    out: list[tuple[int, str]] = []
    for s in _SENTENCE.finditer(plain):
        start = s.start()
        for piece in _CLAUSE_BREAK.split(s.group(0)):
            out.append((start, piece))
            start += len(piece)
    return out


def clause_at(text: str, pos: int) -> str:
    """The clause of `text` that holds character `pos` (citation markers blanked)."""
    for start, piece in clauses(text):
        if start <= pos < start + len(piece) + 1:
            return piece
    return text


def sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` that holds character `pos`."""
    for m in _SENTENCE.finditer(text):
        if m.start() <= pos < m.end():
            return m.group(0)
    return text


def corrects(clause: str) -> bool:
    """Whether the clause marks what it names as retired, corrected or in question."""
    return _CORRECTION.search(expand(_MARKER.sub(" ", clause))) is not None


def claims(answer: str, phrase: str) -> bool:
    """Whether the answer claims `phrase`: stated in some clause that neither negates it nor
    names it to correct it."""
    for _, piece in clauses(answer):
        # Commas inside a clause do not part a claim ("our smallest plan, Pro, costs 29 €"),
        # but they do bound a negation ("don't worry, they will honour it").
        found = find(piece, phrase, gap=0) or find(piece.replace(",", " "), phrase, gap=0)
        if any(not x.negated for x in found) and not corrects(piece):
            return True
    return False


_FUNCTION_WORDS = {
    "en": "the and is are you your to of it for with not can on this be will in an do does "
    "we our they there that from by at only but or yes no please has have".split(),
    "de": "der die das und ist sind sie ihr ihre zu nicht mit für ein eine kann auf wir "
    "unser es dass im den dem bei nur aber oder ja nein bitte wird werden auch".split(),
    "fr": "le la les et est sont vous votre de des du pas avec pour un une peut sur nous "
    "notre il elle que dans au aux mais ou oui non merci sera aussi".split(),
    "es": "el la los las y es son usted su de del no con para un una puede en nosotros "
    "nuestro que al pero o sí gracias será también se lo".split(),
}


def language(text: str) -> tuple[str | None, dict[str, int]]:
    """The likeliest of en/de/fr/es by function words, or None when nothing tells them apart."""
    words = regex.findall(r"\p{L}+", text.casefold())
    counts = {lang: sum(w in set(fw) for w in words) for lang, fw in _FUNCTION_WORDS.items()}
    best = max(counts, key=lambda k: counts[k])
    ranked = sorted(counts.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] == ranked[1]:
        return None, counts
    return best, counts
