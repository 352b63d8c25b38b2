"""Language resources from maintained libraries: Snowball stems, stop words, numbers written
in words (text2num), month names (Babel's CLDR data) and which language a text is in.

Each resource loads once per language, on first use, so a suite in Italian or Dutch works
without code changes and a suite in English never pays for German data.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import regex

from evals.checks.lexicon import SUPPORTED, lexicon

#: Languages considered when nothing narrower is known: every supported language (each has
#: stop words, a stemmer, text2num's numbers and a file of its own words, see lexicon.py),
#: in the order a tie is broken in.
DEFAULT_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "da")

_WORD = regex.compile(r"\p{L}+(?:['’]\p{L}+)?")


#: CLDR's names and months of the languages considered, as Babel gives them, shipped in
#: cldr.json: loading Babel's locale data costs 12 MB and a tenth of a second. A test holds
#: the file to Babel's own output; `write_cldr_file()` writes it again.
CLDR_FILE = Path(__file__).with_name("cldr.json")


@cache
def _shipped() -> dict[str, dict[str, Any]]:
    try:
        return json.loads(CLDR_FILE.read_text("utf-8"))["languages"]
    except (OSError, ValueError, KeyError):
        return {}  # then every language is read from Babel, as any other language is


def _english_name(lang: str) -> str | None:
    """The language's English name, case-folded ("de" -> "german"), or None if unknown."""
    shipped = _shipped().get(lang)
    if shipped is not None:
        return shipped["name"]
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(lang).english_name.casefold()
    except (ValueError, UnknownLocaleError):
        return None


@cache
def _stemmer(lang: str):  # type: ignore[no-untyped-def]
    name = _english_name(lang)
    if name is None:
        return None
    import snowballstemmer

    return snowballstemmer.stemmer(name) if name in snowballstemmer.algorithms() else None


@lru_cache(maxsize=65536)
def stem(word: str, lang: str | None) -> str:
    """The Snowball stem of a lower-case word ("employees" -> "employe"); digits unchanged."""
    if word.isdigit() or len(word) < 3:
        return word
    st = _stemmer(lang or "en")
    return st.stemWord(word) if st is not None else word


@cache
def stop_words(lang: str) -> frozenset[str]:
    """The language's stop words (the `stop-words` package), empty when it has none."""
    from stop_words import LANGUAGE_MAPPING, get_stop_words

    if lang not in LANGUAGE_MAPPING:
        return frozenset()
    return frozenset(w.casefold() for w in get_stop_words(lang))


def stop_word_counts(text: str, candidates: tuple[str, ...] = DEFAULT_LANGUAGES) -> dict[str, int]:
    """How many of the text's words are stop words of each candidate language."""
    words = [w.casefold() for w in _WORD.findall(text)]
    return {lang: sum(w in stop_words(lang) for w in words) for lang in candidates}


_ENGLISH_SHORT = frozenset(
    "a i am an as at be by do go he if in is it me my no of ok on or so to up us we".split()
)


@cache
def vocabulary(lang: str) -> frozenset[str]:
    """The words that mark a text as `lang`: its stop words, its own file's words (negations,
    articles, glue, words of regret) and CLDR's month and unit names.

    The `stop-words` English list (1,333 words) holds other languages' words ("il", "al",
    "er", "per"): English keeps only the ones no other supported language lists.
    """
    lex = lexicon(lang)
    own = set(lex.negators | lex.articles | lex.conjunctions | lex.restrictive | lex.politeness)
    own |= set(lex.glue or ()) | lex.list_joiners
    own |= {w for words in unit_names(lang).values() for w in words}
    own |= {w for words in lex.units.values() for w in words if " " not in w}
    own |= {m for m in month_names(lang) if len(m) >= 4}
    stops = stop_words(lang)
    if lang == "en":
        others = set().union(*(stop_words(other) for other in DEFAULT_LANGUAGES if other != "en"))
        # The list also holds every two-letter country code and single letters ("kr", "pr",
        # "dk"), which mark abbreviations in any language ("39 kr. pr. måned"), not English.
        stops = {w for w in stops - others if len(w) > 2 or w in _ENGLISH_SHORT}
    return frozenset(w for w in own | stops if not any(ch.isdigit() for ch in w))


def language_scores(text: str, candidates: tuple[str, ...] = DEFAULT_LANGUAGES) -> dict[str, float]:
    """Each candidate's share of the text's marking words: a word that marks k of the
    candidates counts 1/k for each ("il" is French and Italian, "mese" only Italian)."""
    index = _marking(candidates)
    scores = dict.fromkeys(candidates, 0.0)
    # Every word looked up at once; only the words that mark a language are walked, in the
    # text's order (the same sums, added in the same order).
    for marks in map(index.get, map(str.casefold, _WORD.findall(text))):
        if marks:
            for lang in marks:
                scores[lang] += 1 / len(marks)
    return scores


@lru_cache(maxsize=16)
def _marking(candidates: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each marking word of the candidates -> the candidates it marks, in their order: one
    look-up per word of a text instead of one per word and candidate."""
    vocab = {
        lang: vocabulary(lang) if lang in SUPPORTED else stop_words(lang) for lang in candidates
    }
    words = set().union(*vocab.values())
    return {w: tuple(lang for lang in candidates if w in vocab[lang]) for w in words}


def detect(text: str, candidates: tuple[str, ...] = DEFAULT_LANGUAGES) -> str | None:
    """The candidate language whose marking words the text uses most, or None on a tie or
    none.

    Measured against lingua (10 s to load six languages), py3langid (3 s to load its model)
    and simplemma's detector (16 ms and more a call): counting each language's words
    (stop words, its file's words, CLDR's names), each shared word split between the
    languages that share it, decides short answers ("Sì, il Plus costa 59 € al mese") at a
    fraction of a millisecond.
    """
    # One memo key however the candidates are given: `detect(answer)` and
    # `detect(answer, DEFAULT_LANGUAGES)` were two keys, and every answer was read twice.
    return _detect(text, candidates)


@lru_cache(maxsize=4096)
def _detect(text: str, candidates: tuple[str, ...]) -> str | None:
    scores = language_scores(text, candidates)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    if ranked[0][1] == 0 or (len(ranked) > 1 and abs(ranked[0][1] - ranked[1][1]) < 1e-9):
        return None
    return ranked[0][0]


@cache
def month_names(lang: str) -> dict[str, int]:
    """Month names and abbreviations of `lang` from CLDR, case-folded, accent-free too."""
    shipped = _shipped().get(lang)
    if shipped is not None:
        return dict(shipped["months"])
    return babel_month_names(lang)


@cache
def unit_names(lang: str) -> dict[str, tuple[str, ...]]:
    """CLDR's long names of the duration units in `lang` ("day" -> ("giorno", "giorni")),
    case-folded; every plural form CLDR gives."""
    shipped = _shipped().get(lang)
    if shipped is not None:
        return {k: tuple(v) for k, v in shipped.get("units", {}).items()}
    return babel_unit_names(lang)


_CLDR_UNITS = {
    "day": "duration-day",
    "week": "duration-week",
    "hour": "duration-hour",
    "minute": "duration-minute",
    "month": "duration-month",
    "year": "duration-year",
}
_UNIT_WORD = regex.compile(r"^\p{L}[\p{L} ]*\p{L}$")


def babel_unit_names(lang: str) -> dict[str, tuple[str, ...]]:
    """`unit_names` as Babel's CLDR data gives them (what cldr.json holds)."""
    from babel import Locale, UnknownLocaleError

    try:
        locale = Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for kind, key in _CLDR_UNITS.items():
        patterns = locale._data["unit_patterns"].get(key, {}).get("long", {})
        words = {
            p.replace("{0}", "").strip().casefold()
            for form, p in patterns.items()
            if isinstance(p, str) and form != "per"
        }
        out[kind] = tuple(sorted(w for w in words if _UNIT_WORD.match(w)))
    return out


@cache
def day_names(lang: str) -> tuple[str, ...]:
    """CLDR's weekday names of `lang`, wide and abbreviated, case-folded, without a final full
    stop, of three letters or more, in order."""
    shipped = _shipped().get(lang)
    if shipped is not None and "days" in shipped:
        return tuple(shipped["days"])
    return babel_day_names(lang)


def babel_day_names(lang: str) -> tuple[str, ...]:
    """`day_names` as Babel's CLDR data gives them (what cldr.json holds)."""
    from babel import Locale, UnknownLocaleError
    from babel.dates import get_day_names

    try:
        Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return ()
    names: dict[str, None] = {}
    for width in ("wide", "abbreviated"):
        for name in get_day_names(width, locale=lang).values():
            name = name.casefold().rstrip(".")
            if len(name) >= 3:
                names.setdefault(name)
    return tuple(names)


@cache
def place_names(lang: str) -> frozenset[str]:
    """CLDR's names of countries, regions and languages in `lang` ("Portugal", "Suiza",
    "Europa", "Unión Europea", "Portuguese"), case-folded: places and tongues, not things a
    product names."""
    shipped = _shipped().get(lang)
    if shipped is not None and "places" in shipped:
        return frozenset(shipped["places"])
    return frozenset(babel_place_names(lang))


def babel_place_names(lang: str) -> tuple[str, ...]:
    """`place_names` as Babel's CLDR data gives them (what cldr.json holds), sorted."""
    from babel import Locale, UnknownLocaleError

    try:
        locale = Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return ()
    # A language's name is no product thing either: "the Portuguese passage", "in Italian".
    names = (*locale.territories.values(), *locale.languages.values())
    return tuple(sorted({n.casefold() for n in names if n}))


def babel_month_names(lang: str) -> dict[str, int]:
    """`month_names` as Babel's CLDR data gives them (what cldr.json holds)."""
    from babel import Locale, UnknownLocaleError
    from babel.dates import get_month_names

    try:
        Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return {}
    out: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for num, name in get_month_names(width, context, locale=lang).items():
                for form in (name.casefold().rstrip("."), _plain(name.casefold().rstrip("."))):
                    if len(form) >= 3:
                        out.setdefault(form, num)
    return out


def _plain(word: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def cldr_table(langs: tuple[str, ...] = DEFAULT_LANGUAGES) -> dict[str, Any]:
    """What cldr.json holds, read from Babel: each language's English name, months, duration
    units and weekdays."""
    import babel
    from babel import Locale

    return {
        "babel": babel.__version__,
        "languages": {
            lang: {
                "name": Locale.parse(lang).english_name.casefold(),
                "months": babel_month_names(lang),
                "units": {k: list(v) for k, v in babel_unit_names(lang).items()},
                "days": list(babel_day_names(lang)),
                "places": list(babel_place_names(lang)),
            }
            for lang in langs
        },
    }


def write_cldr_file() -> None:
    """Write cldr.json from Babel again (after a Babel upgrade changed CLDR's data)."""
    text = json.dumps(cldr_table(), ensure_ascii=False, indent=1)
    CLDR_FILE.write_text(text + "\n", encoding="utf-8")
