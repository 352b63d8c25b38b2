"""Clauses and claims: where a sentence's claim begins and ends, and whether a clause names
something only to correct or question it ("no longer", "archived price list", "nicht mehr",
"ya no", "whether")."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, Lexicon, lexicon
from evals.checks.matching import MARKER, Synonyms, expand, find, phrase_words, token_set
from evals.checks.text import LETTERS, sentences
from evals.checks.values import Figure, parse_figures


# A sentence that names something in order to correct or question it does not claim it: each
# language's `corrections` (lexicon.py), read in that language's text only.
@lru_cache(maxsize=32)
def _correction(lang: str, contrasts: bool = True) -> regex.Pattern[str]:
    lex = lexicon(lang)
    listed = (*lex.corrections, *(lex.contrasts if contrasts else ()))
    parts = "|".join(f"(?:{p})" for p in listed) or "(?!)"
    return regex.compile(rf"\b(?:{parts})\b", regex.IGNORECASE)


@lru_cache(maxsize=16)
def _contrast(lang: str) -> regex.Pattern[str] | None:
    parts = "|".join(f"(?:{p})" for p in lexicon(lang).contrasts)
    return regex.compile(rf"\b(?:{parts})\b", regex.IGNORECASE) if parts else None


@lru_cache(maxsize=4096)
def contrasted(clause: str, lang: str | None = None) -> str:
    """The clause with what it names to contrast blanked (same length): from a contrast
    ("instead of", "anders als", "invece dei") to the next comma or the clause's end. "45 €
    instead of 39 €" claims the 45 €, not the 39 €."""
    pattern = _contrast(lang or detect(clause) or FALLBACK)
    if pattern is None:
        return clause
    out = clause
    for m in pattern.finditer(clause):
        comma = clause.find(",", m.end())
        end = comma if comma != -1 else len(clause)
        out = out[: m.start()] + " " * (end - m.start()) + out[end:]
    return out


def excused(clause: str, offset: int, lang: str | None = None) -> bool:
    """Whether what stands at `offset` of the clause is named to correct or contrast it: the
    clause marks it retired or in question, or a contrast sets it apart."""
    lang = lang or detect(clause) or FALLBACK
    if _correction(lang, contrasts=False).search(expand(MARKER.sub(" ", clause))) is not None:
        return True
    kept = contrasted(clause, lang)
    return 0 <= offset < len(kept) and kept[offset] == " " and clause[offset] != " "


# A claim's reach: a sentence cut at ';', ':' and at "but" (a correction in one half does not
# excuse a claim in the other).
_CLAUSE_BREAK = regex.compile(
    r";|(?<!\d):(?!\d)|\b(?:but|however|aber|sondern|mais|pero|sino|ma|però|maar|mas|men)\b",
    regex.IGNORECASE,
)


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[tuple[int, str], ...]:
    """The clauses of `text` with their offsets, citation markers blanked (memoised: every
    figure of an answer, and every case sharing a passage, asks again)."""
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), text)
    out: list[tuple[int, str]] = []
    for start, sentence in sentences(plain):
        # Each piece at its own offset: the break words between pieces are in neither.
        at = 0
        for m in _CLAUSE_BREAK.finditer(sentence):
            out.append((start + at, sentence[at : m.start()]))
            at = m.end()
        out.append((start + at, sentence[at:]))
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


def corrects(clause: str, lang: str | None = None) -> bool:
    """Whether the clause marks what it names as retired, corrected or in question, read in
    `lang` (detected when None)."""
    plain = expand(MARKER.sub(" ", clause))
    lang = lang or detect(clause) or FALLBACK
    # The corrections and the contrasts searched apart, with the patterns the other readings
    # compile: a pattern of both finds a match exactly where one of them does, and cost 4 to
    # 6 ms to compile per language.
    if _correction(lang, contrasts=False).search(plain) is not None:
        return True
    contrast = _contrast(lang)
    return contrast is not None and contrast.search(plain) is not None


def claims(answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()) -> bool:
    """Whether the answer claims `phrase`: stated in some clause that neither negates it nor
    names it to correct it."""
    lang = lang or detect(answer)
    if lang is not None:
        # A phrase with a word no clause holds (read with the groups, and without them, as
        # `find` reads it) is claimed by none: most forbidden claims of most answers.
        grouped, plain = _said(answer, lang, synonyms)
        if not phrase_words(phrase, lang, synonyms, True) <= grouped and not (
            phrase_words(phrase, lang, (), False) <= plain
        ):
            return False
    form = _sole_form(phrase, lang, synonyms)
    for _, piece in clauses(answer):
        if form is not None and form not in _WORD_FORMS.findall(piece.casefold()):
            continue  # "le rimborseremo" is a promise; "un rimborso" is not that claim
        if _corrected(piece, lang or detect(piece) or FALLBACK):
            continue  # named to correct it ("no longer", "archived")
        # What a contrast sets apart is not claimed ("giga illimitati invece dei 200 GB").
        piece = contrasted(piece, lang)
        # Commas inside a clause do not part a claim ("our smallest plan, Pro, costs 29 €"),
        # but they do bound a negation ("don't worry, they will honour it").
        found = find(piece, phrase, gap=0, lang=lang, synonyms=synonyms)
        if not found and "," in piece:
            found = find(piece.replace(",", " "), phrase, gap=0, lang=lang, synonyms=synonyms)
        if any(not x.negated for x in found):
            return True
    return False


_WORD_FORMS = regex.compile(r"[\p{L}\p{N}]+")


@lru_cache(maxsize=4096)
def _corrected(piece: str, lang: str) -> bool:
    """Whether a clause names what it says to correct it (asked once per clause, not once
    per claim sought in it)."""
    return _correction(lang, contrasts=False).search(expand(piece)) is not None


@lru_cache(maxsize=4096)
def _sole_form(phrase: str, lang: str | None, synonyms: Synonyms) -> str | None:
    """The one word, as written, of a claim of several words whose other words are all glue
    ("le rimborseremo", "you will refund"): its stem alone would meet every form of the word
    ("un rimborso"), while the claim is the form the phrase gives (a tense, a person)."""
    words = _WORD_FORMS.findall(phrase.casefold())
    if len(words) < 2 or lang is None:
        return None
    wanted = phrase_words(phrase, lang, synonyms, True)
    if len(wanted) != 1 or phrase_words(phrase, lang, (), False) != wanted:
        return None
    (stem,) = wanted
    forms = [w for w in words if w.startswith(stem[:4]) and len(w) > len(stem)]
    return forms[0] if len(forms) == 1 else None


@lru_cache(maxsize=4096)
def _said(answer: str, lang: str, synonyms: Synonyms) -> tuple[frozenset[str], frozenset[str]]:
    """Every token of every clause `claims` reads (each with its commas, and without), with
    the groups and without them: asked once per answer, not once per forbidden claim."""
    grouped: set[str] = set()
    plain: set[str] = set()
    for _, piece in clauses(answer):
        for text in (piece, piece.replace(",", " ")) if "," in piece else (piece,):
            grouped |= token_set(text, lang, synonyms, True)
            plain |= token_set(text, lang, (), False)
    return frozenset(grouped), frozenset(plain)


@lru_cache(maxsize=4096)
def stated_text(
    text: str, lang: str | None = None, aside: bool = False, given: tuple[Figure, ...] = ()
) -> str:
    """`text` with what it does not state blanked (same length): a question ("Is it true
    that the trial lasts 14 days?"), what follows "it is not true that", and a counterfactual
    clause ("If the trial lasted 14 days you would be billed later, but it lasts 7").

    `aside`: also what would be, set aside by a "but" ("9 months would give 900 kr., but
    the fee is at most 600 kr."): not claimed, though its words may still name the subject
    a fact is about ("normally a fee would apply, but for a move it lapses").

    `given`: the customer's figures. A supposition whose condition is the customer's own
    case ("if your brother comes 3 days, it would be 24 €" to one who said 3 days) states
    what applies to them, and stays."""
    stated, supposed = _unstated(text, lang, given)
    spans = (*stated, *supposed) if aside else stated
    if not spans:
        return text
    out = list(text)
    for start, end in spans:
        out[start:end] = [c if c in "\n" else " " for c in text[start:end]]
    return "".join(out)


_Spans = tuple[tuple[int, int], ...]


@lru_cache(maxsize=4096)
def _unstated(text: str, lang: str | None, given: tuple[Figure, ...] = ()) -> tuple[_Spans, _Spans]:
    """What `stated_text` blanks (start, end): always, and only with `aside`. Read once for
    both: every answer is asked both ways (its facts, and its forbidden claims)."""
    lex = lexicon(lang or detect(text) or FALLBACK)
    always: list[tuple[int, int]] = []
    aside: list[tuple[int, int]] = []

    read = sentences(text)
    for n, (start, sentence) in enumerate(read):
        body = sentence.rstrip()
        plain = expand(sentence)
        if body.endswith("?") or body.lstrip().startswith("¿"):
            # A question the answer asks itself and answers yes ("¿Se alarga la permanencia?
            # Sí, ...") states what it asks.
            if not (n + 1 < len(read) and _opens_with_yes(read[n + 1][1], lex)):
                always.append((start, start + len(sentence)))
            continue
        # The question said back ("Pergunta quanto custa ... e se a entrega está incluída."):
        # asked, up to a colon, where the sentence opens with it.
        opening = plain.lstrip().casefold()
        if any(opening.startswith(p) for p in lex.asked):
            colon = sentence.find(":")
            always.append((start, start + (colon if colon >= 0 else len(sentence))))
            continue
        hit = next((p for p in lex.not_true if p in plain), None)
        if hit is not None:
            # Offsets in the expanded text differ from the sentence's: blank from the
            # phrase's last word on, found in the sentence itself.
            last = hit.split()[-1]
            at = regex.search(rf"\b{regex.escape(last)}\b", sentence, regex.IGNORECASE)
            always.append((start + (at.end() if at else 0), start + len(sentence)))
            continue
        pieces = [(o, p) for o, p in clauses(text) if start <= o < start + len(sentence)]
        for i, (offset, piece) in enumerate(pieces):
            words = expand(piece).split()
            # The supposing clause goes, what follows it stays ("..., but it lasts 7"); a
            # last clause that supposes is blanked whole after what the sentence states:
            # "...; only with under 1.5 years left would it be 50 €"; and so is a sentence
            # that only supposes, after the answer has said what applies ("... zahlen Sie
            # 100 €. Erst bei einer Restlaufzeit bis 1,5 Jahre wären es 50 €.").
            follows = i + 1 < len(pieces) and expand(pieces[i + 1][1]).split()[:1] != []
            would = any(w.strip(",.") in lex.would for w in words)
            if (
                words
                and words[0].strip(",") in lex.conditional
                and would
                and (follows or i > 0 or _after_a_statement(text, start))
            ):
                if not _customers_case(piece, given, lex.lang):
                    always.append((offset, offset + len(piece)))
            elif would and follows and _but_between(text, offset + len(piece), pieces[i + 1][0]):
                # "9 months would give 900 kr., but the fee is at most 600 kr.": what would
                # be, set aside by the "but" that follows it, is not what the answer states.
                aside.append((offset, offset + len(piece)))
            elif would:
                # "... ville det være 900 kr., så loftet gælder, og du betaler 600 kr.": what
                # would be, before the "so" that states what is instead.
                cut = _then(lex.lang).search(piece)
                if (
                    cut is not None
                    and any(
                        w.strip(",.") in lex.would for w in expand(piece[: cut.start()]).split()
                    )
                    and parse_figures(text[offset + cut.end() : start + len(sentence)], lex.lang)
                ):
                    aside.append((offset, offset + cut.start()))
    return tuple(always), tuple(aside)


_LETTER = regex.compile(r"\p{L}")
_OPENING = regex.compile(r"[\s\-•*]*([\p{L}]+(?:\s+\p{L}+)?)")


def _opens_with_yes(sentence: str, lex: Lexicon) -> bool:
    """Whether the sentence opens with one of the language's words of a yes."""
    m = _OPENING.match(sentence)
    if m is None:
        return False
    words = m.group(1).casefold()
    return words in lex.affirmatives or words.split()[0] in lex.affirmatives


@lru_cache(maxsize=16)
def _then(lang: str) -> regex.Pattern[str]:
    words = "|".join(regex.escape(w) for w in sorted(lexicon(lang).then, key=len, reverse=True))
    return regex.compile(rf",\s*(?:{words or '(?!)'})(?![\p{{L}}])", regex.IGNORECASE)


def _but_between(text: str, end: int, start: int) -> bool:
    """Whether the break between two clauses is a word ("but", "aber", "men"), not a mark."""
    return _LETTER.search(text, end, start) is not None


def _customers_case(piece: str, given: tuple[Figure, ...], lang: str) -> bool:
    """Whether a supposing clause's condition (up to its first comma or "would" word) is
    the customer's own case: it holds figures, each one the customer gave."""
    if not given:
        return False
    lex = lexicon(lang)
    end = len(piece)
    for m in LETTERS.finditer(piece):
        if m.group(0).casefold() in lex.would:
            end = m.start()
            break
    comma = piece.find(",")
    if 0 <= comma < end:
        end = comma
    figs = parse_figures(piece[:end], lang)
    return bool(figs) and all(any(f.same(g) for g in given) for f in figs)


def _after_a_statement(text: str, start: int) -> bool:
    """Whether a sentence at `start` follows one that is no question: a supposing sentence
    there sets a case beside what was said, rather than answering by itself."""
    before = [sentence for s, sentence in sentences(text) if s < start]
    return any(not b.rstrip().endswith("?") for b in before)
