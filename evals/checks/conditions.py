"""A condition a passage attaches that the answer drops: the days of the week. "Chat and
email from 08:00 to 18:00" where the passage says "Monday to Friday from 08:00 to 18:00",
or "any day from 8 to 6" where it says Monday to Friday.

Measured before it was kept: on every correct labelled answer of the example suite and of a
second-domain suite it flags none. Other conditions ("only when", "provided", "minus",
"after two months") were tried the same way and flagged as many correct answers as wrong
ones (a correct answer leaves out a minor condition as often as a wrong one drops a real
one), so they are left to the facts a case lists.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.figure_pattern import _alt
from evals.checks.language import DEFAULT_LANGUAGES, day_names, detect
from evals.checks.lexicon import FALLBACK, all_lexicons, capitalises_nouns, lexicon
from evals.checks.matching import MARKER, NEG, content, tokens
from evals.checks.text import LETTERS, cited_refs, phrase_pattern, sentences
from evals.checks.unmarked import unmarked_figures
from evals.checks.values import Figure, parse_figures

# "Any day", "every day", "daily", "7 days a week" in the languages read: a claim that no
# day is excluded.
_EVERY_DAY = regex.compile(
    r"\b(?:any\s+day|every\s+day|daily|7\s+days\s+a\s+week|seven\s+days\s+a\s+week|"
    r"tutti\s+i\s+giorni|ogni\s+giorno|jeden\s+tag|täglich|todos\s+los\s+días|"
    r"tous\s+les\s+jours|elke\s+dag|dagelijks|todos\s+os\s+dias|hver\s+dag|alle\s+dage|"
    r"dagligt?)\b",
    regex.IGNORECASE,
)
# The days as a class: "weekdays", "working days", "Werktage", "giorni feriali", ...
_WEEKDAYS = regex.compile(
    r"\b(?:weekdays?|working\s+days?|business\s+days?|werktag\w*|arbeitstag\w*|"
    r"giorni\s+(?:feriali|lavorativi)|feriali|jours\s+ouvr\w+|en\s+semaine|días\s+laborables|"
    r"werkdag\w*|dias\s+úteis|hverdag\w*)\b",
    regex.IGNORECASE,
)


@lru_cache(maxsize=1)
def _day_names() -> regex.Pattern[str]:
    """Weekday names and abbreviations of every language read, from CLDR (cldr.json: loading
    Babel's locale data for them took a tenth of a second of every process that graded)."""
    names = {name for lang in DEFAULT_LANGUAGES for name in day_names(lang)}
    # A full name takes its plural and definite endings ("Saturdays", "samstags", "lørdagen",
    # "zaterdagen"); an abbreviation does not ("do" + "en" is Dutch "doen").
    full = sorted(n for n in names if len(n) >= 5)
    short = sorted(n for n in names if len(n) < 5)
    # A prefix tree of the names (figure_pattern._alt): it matches as their alternation, longest
    # first, would, and is tried at every character of every answer and passage sentence.
    return regex.compile(
        rf"(?<!\p{{L}})(?:(?:{_alt(full)})(?:s|e|en|er|es|ne)?|{_alt(short)})(?!\p{{L}})",
        regex.IGNORECASE,
    )


def _names_days(text: str) -> bool:
    return bool(_WEEKDAYS.search(text)) or bool(_day_names().search(text))


def _sentences_with_times(answer: str, lang: str | None) -> list[tuple[str, list[Figure]]]:
    """The answer's sentences (citations blanked) with the clock times each holds, from one
    reading of the answer's figures (a reading per sentence cost more than the checks)."""
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), answer)
    clock = [f for f in unmarked_figures(answer, lang) if f.kind == "time"]
    return [
        (sentence, [f for f in clock if start <= f.start < start + len(sentence)])
        for start, sentence in sentences(plain)
    ]


def dropped_days(answer: str, passages: tuple[str, ...], lang: str | None) -> list[str]:
    """The answer's sentences that give a passage's opening times without the days the
    passage gives them for (and the answer names no days anywhere), or claim every day
    where the passage sentence they share their words with names days."""
    return [f'{s} (the passage: "{theirs}")' for s, theirs in day_drops(answer, passages, lang)]


def day_drops(answer: str, passages: tuple[str, ...], lang: str | None) -> list[tuple[str, str]]:
    """`dropped_days` as pairs: the answer's sentence (citations cut) and the passage's."""
    days_said: bool | None = None  # read only for an answer that gives times or every day
    out = []
    for sentence, times in _sentences_with_times(answer, lang):
        every = _EVERY_DAY.search(sentence) is not None
        if not (times or every) or _names_days(sentence):
            continue
        if days_said is None:
            days_said = _names_days(MARKER.sub(" ", answer))
        words = content(tokens(sentence, lang), lang)
        by_times: list[str] = []
        by_words: list[str] = []
        for passage in passages:
            for _, theirs in sentences(passage):
                stated = [p for p in parse_figures(theirs) if p.kind == "time"]
                if not days_said and any(t.same(p) for p in stated for t in times):
                    by_times.append(theirs.strip())
                elif every and len(words & content(tokens(theirs, lang), lang)) >= 2:
                    by_words.append(theirs.strip())
        # The passage sentences that state the answer's times, else those it shares its
        # words with: a drop only when each of them holds its times for certain days.
        # "elke dag van 7:00 tot 23:00" against a passage that says so is no drop, even
        # if another passage sentence (about reporting a claim) names working days.
        found = by_times or by_words
        if found and all(_names_days(t) and not _EVERY_DAY.search(t) for t in found):
            out.append((" ".join(sentence.split()), found[0]))
    return out


# Two day names joined as a range ("Monday to Friday", "de segunda a sexta", "lun.–ven.").
_RANGE_JOIN = r"\s*(?:-|–|—|to|through|bis|tot|t/m|a|al|à|au|til)\s*"


@lru_cache(maxsize=1)
def _day_range() -> regex.Pattern[str]:
    """Two day names as a range; a name's first part counts ("segunda" of "segunda-feira")."""
    names = {name for lang in DEFAULT_LANGUAGES for name in day_names(lang)}
    names |= {n.split("-")[0] for n in names if "-" in n and len(n.split("-")[0]) >= 4}
    day = rf"(?<!\p{{L}})(?:{_alt(sorted(names))})(?!\p{{L}})"
    return regex.compile(rf"{day}\.?{_RANGE_JOIN}{day}", regex.IGNORECASE)


def narrowed_days(answer: str, passages: tuple[str, ...], lang: str | None) -> list[str]:
    """The answer's sentences that give times for a range of days or for the weekdays only
    ("de segunda a sexta-feira, das 06:00 às 23:00") where every passage sentence stating
    those times holds them for every day and names no day: a condition the answer adds."""
    out = []
    for sentence, times in _sentences_with_times(answer, lang):
        if not times or not (_day_range().search(sentence) or _WEEKDAYS.search(sentence)):
            continue
        found = [
            theirs.strip()
            for passage in passages
            for _, theirs in sentences(passage)
            if any(t.same(p) for p in parse_figures(theirs) if p.kind == "time" for t in times)
        ]
        if found and all(_EVERY_DAY.search(t) and not _names_days(t) for t in found):
            out.append(f'{" ".join(sentence.split())} (the passage: "{found[0]}")')
    return out


def unconditional_amounts(
    answer: str, passages: tuple[str, ...], lang: str | None
) -> list[tuple[str, str]]:
    """The answer's sentences that give an amount as granted without condition
    ("automatisch 25 € korting", "you always get 25 €") where the passage sentence stating
    that amount attaches one ("voor elke vriend die klant wordt ..., 25 € korting"): each
    with that passage sentence. Measured before it was kept: on every labelled answer of
    the three suites, one wrong answer and no correct one (without the amount, "automatic"
    beside a passage's "if" flagged as many correct answers as wrong ones)."""
    # In any language read: a short answer may not tell its language ("Je krijgt automatisch
    # 25 € korting"), and these words mean the same wherever they stand.
    free_of = phrase_pattern(tuple(w for lex in all_lexicons() for w in lex.unconditional))
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        if free_of.search(sentence) is None:
            continue
        amounts = [f for f in parse_figures(sentence, lang) if f.kind == "money"]
        if not amounts:
            continue
        for passage in passages:
            found = next(
                (
                    theirs.strip()
                    for _, theirs in sentences(passage)
                    if any(a.same(p) for a in amounts for p in parse_figures(theirs))
                    and phrase_pattern(lexicon(detect(theirs) or lang or FALLBACK).provided).search(
                        theirs
                    )
                ),
                None,
            )
            if found:
                out.append((sentence.strip(), found))
                break
    return out


@lru_cache(maxsize=16)
def _supposing(lang: str) -> regex.Pattern[str]:
    """The language's words that open an example or say what would be."""
    lex = lexicon(lang)
    return phrase_pattern((*lex.examples, *lex.would))


@lru_cache(maxsize=16)
def _on_top(lang: str) -> regex.Pattern[str]:
    words = lexicon(lang).on_top
    body = "|".join(
        r"\s+".join(map(regex.escape, w.split())) for w in sorted(words, key=len, reverse=True)
    )
    # "28,80 € in più rispetto ai 270 €", "mehr als": a comparison, nothing added on top.
    than = r"(?!\s+(?:rispetto|than|als|dan|que|end)(?!\p{L}))"
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}}){than}" if body else r"(?!)", regex.I)


@lru_cache(maxsize=16)
def _not_combined(lang: str) -> regex.Pattern[str]:
    body = "|".join(f"(?:{p})" for p in lexicon(lang).not_combined)
    return regex.compile(body or r"(?!)", regex.IGNORECASE)


def _stems(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(w for w in content(tokens(text, lang), lang) if not w.isdigit())


@lru_cache(maxsize=1024)
def _exclusions(passage: str, lang: str) -> tuple[tuple[frozenset[str], frozenset[str], str], ...]:
    """Each passage sentence that says two things cannot be combined: the words only the
    first names, those only the second names, and the sentence."""
    out = []
    for _, sentence in sentences(passage):
        m = _not_combined(lang).search(sentence)
        if m is None:
            continue
        first = _stems(sentence[: m.start()], lang)
        second = _stems(sentence[m.end() :], lang) | (
            _stems(m.group(0), lang) - _stems(" ".join(lexicon(lang).not_combined), lang)
        )
        if first - second and second - first:
            out.append((first - second, second - first, sentence.strip()))
    return tuple(out)


def stacked(
    answer: str, passages: dict[str, str], pattern: str, lang: str | None
) -> list[tuple[str, str]]:
    """The answer's sentences that apply together two things a passage says cannot be
    combined ("... 20 % combinatiekorting ..., en daar gaat nog 5 € gezinskorting af"
    against "De gezinskorting is niet combineerbaar met de combinatiekorting"): the sentence
    names one and names or cites (another passage naming) the other, with a word that adds
    one on top of the other (each language file's `on_top`) and no negation. Measured
    before it was kept: on every labelled answer of the five suites it flags four wrong
    answers and no correct one (without the `on_top` words, two correct comparisons).
    Each with the passage sentence. `passages`: the current passages by ref; `pattern`:
    the suite's citation pattern."""
    lang = lang or FALLBACK
    found = [(ref, e) for ref, text in passages.items() for e in _exclusions(text, lang)]
    if not found:
        return []
    out = []
    for _, sentence in sentences(answer):
        plain = MARKER.sub(" ", sentence)
        if NEG in tokens(plain, lang) or _not_combined(lang).search(plain):
            continue  # "not on top of", "cannot be combined": it keeps the condition
        if _on_top(lang).search(plain) is None:
            continue  # "with the annual plan you would pay ...": a comparison, no stacking
        if _supposing(lang).search(plain) is not None:
            continue  # "un esempio: se entrambi i gatti fossero su Basis ...": supposed
        said = _stems(plain, lang)
        for ref, (first, second, text) in found:
            cited = [
                passages[r] for r in cited_refs(sentence, pattern) if r in passages and r != ref
            ]
            near = said | frozenset().union(*(_stems(c, lang) for c in cited))
            if said & first and near & second or said & second and near & first:
                out.append((plain.strip(), text))
                break
    return out


@lru_cache(maxsize=16)
def _compared(lang: str) -> regex.Pattern[str]:
    """After a deduction word, a comparison: "meno di 24 ore", "less than 3 days"."""
    words = "|".join(map(regex.escape, lexicon(lang).compared)) or "(?!)"
    return regex.compile(rf"\s*(?:{words})(?!\p{{L}})", regex.I)


@lru_cache(maxsize=16)
def _whole(lang: str) -> tuple[regex.Pattern[str], regex.Pattern[str], regex.Pattern[str]]:
    """The language's words that claim an amount whole, its deductions and its conditions."""
    lex = lexicon(lang)

    def alt(words: tuple[str, ...]) -> str:
        return "|".join(r"\s+".join(map(regex.escape, w.split())) for w in words) or "(?!)"

    return (
        regex.compile(rf"(?<!\p{{L}})(?:{alt(lex.whole)})(?!\p{{L}})", regex.I),
        regex.compile(rf"(?<!\p{{L}})(?:{'|'.join(lex.deductions) or '(?!)'})(?!\p{{L}})", regex.I),
        regex.compile(rf"(?<!\p{{L}})(?:{alt(lex.provided)})(?!\p{{L}})", regex.I),
    )


_CAPITALISED = regex.compile(r"(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}]*")


def _unnamed(text: str, lang: str) -> str:
    """The text without its capitalised words: the brand every sentence names ("Tegola",
    "Lumo") is not what it is about. German capitalises its nouns: kept there."""
    return text if capitalises_nouns(lang) else _CAPITALISED.sub(" ", text)


@lru_cache(maxsize=1024)
def _deducting(passage: str, lang: str) -> tuple[tuple[frozenset[str], str], ...]:
    """The passage's sentences that take something off an amount, with their words and
    those of the passage's first sentence, which names what the later ones say "it" of ("A
    deposit is charged ... It is refunded ... We deduct open fees")."""
    minus = _whole(lang)[1]
    read = sentences(passage)
    topic = _stems(_unnamed(read[0][1], lang), lang) if read else frozenset()
    return tuple(
        (_stems(_unnamed(t, lang), lang) | topic, t.strip())
        for _, t in read
        if any(
            not _compared(lang).match(t, m.end()) and not _RATE_BEFORE.search(t, 0, m.start())
            for m in minus.finditer(t)
        )
    )


# "costs 10 % less": a discount on a price, not something taken off an amount owed back.
_RATE_BEFORE = regex.compile(r"\d\s*%\s*$")


def whole_despite_deduction(
    answer: str, passages: tuple[str, ...], lang: str | None
) -> list[tuple[str, str]]:
    """The answer's sentences that give an amount whole ("you get the full deposit back")
    where the passage sentence about it takes something off ("the deposit is refunded
    minus any missing accessories"): the sentence shares two content words with that
    passage sentence and states no deduction or condition of its own."""
    lang = lang or FALLBACK
    whole, minus, provided = _whole(lang)
    theirs = [d for p in passages for d in _deducting(p, lang)]
    if not theirs:
        return []
    out = []
    for _, sentence in sentences(MARKER.sub(" ", answer)):
        cue = whole.search(sentence)
        if cue is None or minus.search(sentence) or provided.search(sentence):
            continue
        if _whole_span(sentence, cue, lang):
            continue  # "per volledige dag", "un giorno intero": a whole day, not a whole amount
        if NEG in tokens(sentence, lang):
            continue
        said = _stems(_unnamed(sentence[: cue.start()] + " " + sentence[cue.end() :], lang), lang)
        # What the whole is said of stands beside it: an amount, or a word the passage's
        # deduction is about ("die Kaution vollständig"); "Rad, Schloss und Ladegerät also am
        # besten vollständig zurückgeben" gives back things, no amount.
        beside = _stems(_near_cue(sentence, cue), lang)
        money = any(f.kind == "money" for f in parse_figures(sentence, lang))
        hit = next((t for words, t in theirs if said & words and (money or beside & words)), None)
        if hit is not None:
            out.append((sentence.strip(), hit))
    return out


def _whole_span(sentence: str, cue: regex.Match[str], lang: str) -> bool:
    """Whether the word that claims a whole is said of a unit of time beside it ("volledige
    dag", "giorno intero", "full month"): a span, no amount given whole."""
    units = {w for words in lexicon(lang).units.values() for w in words}
    after = LETTERS.search(sentence, cue.end())
    before = [m.group(0) for m in LETTERS.finditer(sentence, 0, cue.start())][-1:]
    near = [after.group(0)] if after is not None else []
    return any(w.casefold() in units for w in (*near, *before))


#: Words either side of a whole word that say what it is said of.
CUE_REACH = 3


def _near_cue(sentence: str, cue: regex.Match[str]) -> str:
    before = [m.group(0) for m in LETTERS.finditer(sentence, 0, cue.start())][-CUE_REACH:]
    after = [m.group(0) for m in LETTERS.finditer(sentence, cue.end())][:CUE_REACH]
    return " ".join((*before, *after))
