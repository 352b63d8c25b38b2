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

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.language import detect, stem, stop_words
from evals.checks.text import normalise
from evals.checks.values import with_digits

#: A suite's synonym groups: each a tuple of phrasings that mean the same.
Synonyms = tuple[tuple[str, ...], ...]

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
    "nunca ningún ninguna ninguno sin "
    "niet geen nooit zonder nessun nessuno nessuna senza".split()
)
# Dropped before matching: they carry no meaning a fact depends on.
_ARTICLES = set(
    "a an the der die das den dem des ein eine einen einem einer le la les un une du "
    "el los las unos unas".split()
)
# Clause boundaries beside punctuation: a negation does not reach across them.
_CONJUNCTIONS = set("but aber sondern mais pero sino however though".split())
# Forms of a few verbs that carry no meaning a fact depends on ("is not" = "are not"), and
# English past forms a stemmer cannot join to their verb ("kept" = "keep"). Snowball stems
# leave irregular forms alone; simplemma, which lemmatises them, was measured at 0.8 to 5.6 s
# to load one language, too slow for a check that runs on every answer.
_SAME_WORD = {
    "kept": "keep",
    "paid": "pay",
    "sent": "send",
    "got": "get",
    "gotten": "get",
    "made": "make",
    "held": "hold",
    "left": "leave",
    "lost": "lose",
    "bought": "buy",
    "brought": "bring",
    "taken": "take",
    "took": "take",
    "gave": "give",
    "given": "give",
    "shown": "show",
    "written": "write",
    "wrote": "write",
    "overwritten": "overwrite",
    "chosen": "choose",
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
# Citation markers name documents ("archive-2025"), not what the answer says.
MARKER = regex.compile(r"\[[^\]]*\]|\([^)]*#[^)]*\)")


@lru_cache(maxsize=8192)
def expand(text: str) -> str:
    """Normalised text with contractions spelled out: "isn't" -> "is not", "l'app" -> "le app"."""
    t = unicodedata.normalize("NFC", normalise(text))
    for pat, rep in _CONTRACTION_RE:
        t = pat.sub(rep, t)
    return t


@lru_cache(maxsize=16384)
def tokens(text: str, lang: str | None = None, synonyms: Synonyms = ()) -> tuple[str, ...]:
    """Normalised, stemmed words with negators as ¬ and clause breaks as |; articles dropped,
    numbers in words as digits, a suite's synonyms as one token per group.

    `lang`: the language to read the text in (stems, number words); detected when None.
    """
    lang = lang or detect(text) or "en"
    # Citation markers name documents ("[doc:billing#invoices]"), not what the text says.
    t, _ = with_digits(expand(MARKER.sub(" ", text)), lang)
    t = _CLOCK.sub(r"\1h\2", t).replace("-", " ").replace("/", " ")
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
            out.append(stem(_SAME_WORD.get(w, w), lang))
    return _with_synonyms(tuple(out), lang, synonyms) if synonyms else tuple(out)


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
        forms = [tuple(w for w in tokens(p, lang) if w != BOUNDARY) for p in group]
        forms = [f for f in forms if f]
        for toks in forms:
            index.setdefault(toks[0], []).append((toks, forms[0]))
    return {k: tuple(sorted(v, key=lambda e: len(e[0]), reverse=True)) for k, v in index.items()}


def _with_synonyms(seq: tuple[str, ...], lang: str | None, synonyms: Synonyms) -> tuple[str, ...]:
    table = _synonym_table(synonyms, lang)
    out: list[str] = []
    i = 0
    while i < len(seq):
        for toks, canonical in table.get(seq[i], ()):
            if seq[i : i + len(toks)] == toks:
                out.extend(canonical)
                i += len(toks)
                break
        else:
            out.append(seq[i])
            i += 1
    return tuple(out)


# Stop words that restrict what a fact says ("only on annual billing"): they stay content.
_RESTRICTIVE = {"only", "nur", "seulement", "uniquement", "solo", "solamente", "alleen", "soltanto"}


# Glue words: pronouns, prepositions, auxiliaries, conjunctions. The `stop-words` lists are
# used where no list is kept here, but they are too broad for facts: the English one (1,333
# words) holds "free", "end", "off", "back", "turn", "part" and "need", which a fact turns
# on; dropping them made correct and wrong answers alike match.
_GLUE = {
    "en": "i me my you your yours he him his she her it its we us our they them their this "
    "that these those there here what which who whom whose to of in on at by for with from "
    "into onto about as and or so if then than be have do will would shall should can could "
    "may might must also just very too up out over under after before while when",
    "de": "ich mich mir du dich dir er ihn ihm sie es wir uns ihr ihnen euch sein seine ihre "
    "unser unsere dies diese dieser dieses zu von im in an am auf bei mit für aus nach über "
    "unter vor als und oder so wenn dann sein haben werden wird können kann muss sollte auch "
    "noch schon sehr um",
    "fr": "je me moi tu te toi il elle on nous vous ils elles le la les lui leur leurs son sa "
    "ses mon ma mes ton ta tes notre nos votre vos ce cet cette ces de du des à au aux en dans "
    "sur par pour avec chez et ou si alors que qui quoi être avoir est sont a ont peut peuvent "
    "doit aussi très y",
    "es": "yo me mi tú te tu él ella nosotros vosotros ellos ellas le les lo la su sus nuestro "
    "nuestra vuestro este esta estos estas ese esa de del a al en con por para desde sobre y o "
    "si que quien ser estar es son está están haber ha han puede pueden debe también muy",
}


@lru_cache(maxsize=64)
def _stops(lang: str | None) -> frozenset[str]:
    glue = _GLUE.get(lang or "en")
    words = set(glue.split()) if glue else stop_words(lang or "en") - _RESTRICTIVE
    return frozenset(stem(w, lang) for w in words)


def content(words: tuple[str, ...] | list[str], lang: str | None) -> set[str]:
    """The words that carry meaning: no negator, clause break, stop word or single letter
    ("only" and its kind stay: they restrict what a fact says)."""
    stops = _stops(lang)
    return {
        w
        for w in words
        if w not in (NEG, BOUNDARY) and (len(w) > 1 or w.isdigit()) and w not in stops
    }


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
    found = _find(answer, phrase, gap, lang, synonyms)
    if (
        not found
        and synonyms
        and (
            tokens(answer, lang, synonyms) != tokens(answer, lang)
            or tokens(phrase, lang, synonyms) != tokens(phrase, lang)
        )
    ):
        found = _find(answer, phrase, gap, lang, ())
    return found


def _find(answer: str, phrase: str, gap: int, lang: str | None, synonyms: Synonyms) -> list[Match]:
    seq = tokens(answer, lang, synonyms)
    want = [w for w in tokens(phrase, lang, synonyms) if w != BOUNDARY]
    if not want or not set(want) - {NEG} <= set(seq):
        return []  # some word of the phrase is nowhere in the answer
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


def _windows(seq: tuple[str, ...], need: list[str], width: int) -> Iterator[tuple[int, int]]:
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


def _unordered(seq: tuple[str, ...], want: list[str], gap: int, lang: str | None) -> list[Match]:
    """The phrase's content words in any order within one clause, spanning at most `gap` more
    words than the phrase has ("30 days of keeping your data" for "data kept for 30 days")."""
    phrase_negates = NEG in want
    keep = content(want, lang) | {w for w in want if w.isdigit()}
    need = [w for w in want if w in keep]
    for start, end in _windows(seq, need, len(want) + 2 * gap) if need else ():
        has_neg = NEG in seq[start:end] or clause_negated_before(seq, start)
        if phrase_negates and not has_neg:
            continue
        return [Match(start, end, has_neg and not phrase_negates)]
    return []


def near(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> set[str]:
    """The phrase's content words that occur somewhere in the answer (for an undecided verdict)."""
    said = set(tokens(answer, lang, synonyms))
    return content(tokens(phrase, lang, synonyms), lang) & said


def answers_no(answer: str, lang: str | None = None) -> bool:
    """Whether the answer opens with a bare "no" ("No.", "Unfortunately not:", "Leider nein")."""
    seq = tokens(answer, lang)
    head = seq[: seq.index(BOUNDARY)] if BOUNDARY in seq else seq
    return NEG in head and len(head) <= 3


def denies_by_polarity(
    answer: str, phrase: str, question: str, *, lang: str | None = None, synonyms: Synonyms = ()
) -> bool:
    """A negative fact about what the customer asked, met by a bare "no": "Does it work on
    Starter as well?" answered "Unfortunately not." states "not on Starter"."""
    want = tokens(phrase, lang, synonyms)
    if NEG not in want:
        return False
    words = content(want, lang)
    asked = set(tokens(question, lang, synonyms))
    return bool(words) and words <= asked and answers_no(answer, lang)


def says(answer: str, phrase: str, *, lang: str | None = None) -> bool:
    """Whether every word of `phrase` stands in one clause of the answer, in order or close
    together in any order ("leite ich Ihre Anfrage weiter" says "ich leite Ihre Anfrage")."""
    seq = tokens(answer, lang)
    want = [w for w in tokens(phrase, lang) if w != BOUNDARY]
    if not want or not set(want) <= set(seq):
        return False
    return next(_windows(seq, want, len(want) + 2 * MAX_GAP), None) is not None


def states(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> bool:
    """Whether the answer states `phrase` (somewhere not negated)."""
    return any(not m.negated for m in find(answer, phrase, lang=lang, synonyms=synonyms))
