"""The words each language's text is read with that no library lists: negations, articles,
clause breaks, glue words, unit and count words, ordinal days of a month, correction,
counterfactual and hand-over phrases, general equivalences.

They are data, one file per language in `evals/checks/languages/`, loaded once per process on
first use; a text is read with its own language's lists only, so Spanish "sin" is no negation
in "the Sin City office" and Italian "non" is one in "non è gratuita". Stems, stop words,
numbers in words, month names and CLDR's unit names come from the libraries
(`evals/checks/language.py`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from evals.suite.groups import Groups

#: Where the language files live: `<code>.toml`, one per supported language.
LANGUAGE_DIR = Path(__file__).with_name("languages")

#: The languages read in full: each has a file in LANGUAGE_DIR, a Snowball stemmer, a
#: stop-word list, text2num's numbers in words and CLDR's months and units. The schema's
#: `expect.language`, `invoke validate --help` and docs/checks.md state this list (a test
#: holds them to it).
SUPPORTED = ("da", "de", "en", "es", "fr", "it", "nl", "pt")

#: What a text is read as when its language is not known.
FALLBACK = "en"

#: Kinds of duration units, and the unit and factor each is compared in.
DURATION_KINDS: dict[str, tuple[str, int]] = {
    "day": ("day", 1),
    "week": ("day", 7),
    "working_day": ("working-day", 1),
    "hour": ("minute", 60),
    "minute": ("minute", 1),
    "month": ("month", 1),
    "year": ("year", 1),
}


@dataclass(frozen=True)
class Actions:
    """How the assistant says it acted on the account or promises an outcome (actions.py)."""

    #: first-person perfect auxiliaries ("i have", "ik heb", "ho")
    perfect: tuple[str, ...] = ()
    #: the plural's perfect auxiliaries: an action only about the customer (`you`)
    perfect_we: tuple[str, ...] = ()
    #: the customer's words ("you", "your"); else the language's [register] pronouns
    you: tuple[str, ...] = ()
    #: words that say it is done already ("already", "bereits", "già")
    already: tuple[str, ...] = ()
    #: phrases that open with an `already` word and do not mean it (Dutch "al je": "all")
    not_already: tuple[str, ...] = ()
    #: account actions in the perfect ("refunded", "geregistreerd", "beantragt")
    done: tuple[str, ...] = ()
    #: parts of verbs that are no action on an account (reading, telling, handing over)
    not_done: tuple[str, ...] = ()
    #: parts of verbs of passing a request on, and the people it may be passed to: passed
    #: on already to anyone else ("ho già inoltrato la segnalazione al negozio") is an act
    forwarded: tuple[str, ...] = ()
    recipients: tuple[str, ...] = ()
    #: first-person future account actions (regular expressions)
    will: tuple[str, ...] = ()
    #: first-person simple past of account actions (regular expressions: "I applied")
    past: tuple[str, ...] = ()
    #: a promise ("i promise", "ik beloof")
    promise: tuple[str, ...] = ()
    #: an assurance, a promise when its sentence states a future outcome ("le confermo")
    assure: tuple[str, ...] = ()
    #: a future outcome (regular expressions: "will", "riceverà")
    future: tuple[str, ...] = ()
    #: negations beside the language's own that take an action back (German "nichts")
    negators: tuple[str, ...] = ()
    #: the first person ("i", "ich", and where the pronoun is dropped, "posso")
    first_person: tuple[str, ...] = ()
    #: the starts of verbs of promising or assuring ("guarant", "zusicher"): with a
    #: `first_person` word anywhere in their clause and a `future` outcome after them, a
    #: promise ("kann ich Ihnen schon jetzt zusichern, dass ... erstattet wird")
    vouch: tuple[str, ...] = ()


@dataclass(frozen=True)
class Register:
    """How a customer is addressed, formally or not (register.py)."""

    formal: tuple[str, ...] = ()
    informal: tuple[str, ...] = ()
    #: formal only when capitalised inside a sentence (German "Sie", Italian "Lei")
    formal_capitalised: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lexicon:
    """One language's word lists, as its file gives them (lower-case)."""

    lang: str
    negators: frozenset[str] = frozenset()
    articles: frozenset[str] = frozenset()
    #: pronouns a passage clause may name its subject with: the sentence before names it
    pronouns: frozenset[str] = frozenset()
    conjunctions: frozenset[str] = frozenset()
    #: conjunctions that inside a clause are adverbs and break nothing ("può però scriverci")
    asides: frozenset[str] = frozenset()
    #: None: the language's stop-word list (less `restrictive`) stands in.
    glue: frozenset[str] | None = None
    restrictive: frozenset[str] = frozenset()
    politeness: frozenset[str] = frozenset()
    list_joiners: frozenset[str] = frozenset()
    same_word: dict[str, str] = field(default_factory=dict)
    #: endings a stemmer leaves on a verb's person form ("telt" for "tellen"): cut off a stem
    #: of at least MIN_VERB_STEM letters, in a fact and an answer alike
    verb_endings: tuple[str, ...] = ()
    #: (ending, replacement) of a stem, after `verb_endings`, so that the stemmer's forms of
    #: one verb meet: Dutch Snowball reads "melden" as "mel" but "meld" and "gemeld" as "meld"
    stem_rewrites: tuple[tuple[str, str], ...] = ()
    #: (pattern, phrase): what a phrase reads as before its negations are read ("costs
    #: nothing" is "free of charge", not a negation of "costs")
    read_as: tuple[tuple[str, str], ...] = ()
    #: whether a word may be a compound whose last part is a fact's word ("mitversichert"
    #: for "versichert"), and the first parts that negate it ("unversichert")
    compounds: bool = False
    #: whether the language capitalises every noun (German): a capitalised word is no name
    nouns_capitalised: bool = False
    negating_prefixes: tuple[str, ...] = ()
    #: phrases that set what follows them apart ("instead of", "anders als"): only what comes
    #: after them in their clause is named to contrast it, not claimed
    contrasts: tuple[str, ...] = ()
    #: phrases after a bare "no" that say a worry is unfounded ("don't worry", "keine Sorge")
    reassurances: tuple[str, ...] = ()
    equivalences: tuple[tuple[str, ...], ...] = ()
    more: tuple[str, ...] = ()
    percent: tuple[str, ...] = ()
    #: kind (DURATION_KINDS) -> words
    units: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: unit words read only in this language's text
    own_only: frozenset[str] = frozenset()
    #: what is counted -> words
    counts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    day_suffixes: tuple[str, ...] = ()
    day_words: tuple[str, ...] = ()
    #: words before a figure that point back to one given before ("die 3 maanden")
    back: frozenset[str] = frozenset()
    #: words that make a figure a floor or a cap ("minimum", "fino a", "höchstens")
    limits: tuple[str, ...] = ()
    #: words that open an example ("for example", "per esempio"): its inputs are supposed
    examples: tuple[str, ...] = ()
    #: words after a count of times that make it a ratio ("five times as fast")
    ratio: frozenset[str] = frozenset()
    #: words before a duration that give how long a state lasts ("for 14 days", "i 14 dage")
    for_a_span: frozenset[str] = frozenset()
    #: words after a day that make it a kind of day, not a span ("un jour férié" is a holiday)
    day_kinds: frozenset[str] = frozenset()
    each_month: tuple[str, ...] = ()
    #: phrases that make a figure yearly: it may be twelve of a monthly one
    per_year: tuple[str, ...] = ()
    #: period (month, year, once, week, day) -> what says an amount is paid per it
    periods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: words that give a total of the figures before them, as "=" does ("in all", "samen")
    totals: tuple[str, ...] = ()
    #: the verb of being between a sum written out and its result ("is", "zijn", "è")
    being: tuple[str, ...] = ()
    #: phrases that take a date to its month's last day ("to the end of the month")
    month_end: tuple[str, ...] = ()
    #: words before a month's name that give its last day ("end of March", "eind maart")
    month_end_named: tuple[str, ...] = ()
    #: words of a price per started unit ("per ora iniziata", "per started hour")
    started: tuple[str, ...] = ()
    #: words that take a percentage off or add one on ("discount", "korting", "sconto")
    rates: tuple[str, ...] = ()
    #: words that make bare hours clock times (`from`, `to`, `marks`, `at`, `oclock`,
    #: `evening`): "dalle 8 alle 22", "van 7 tot 23 uur", "um 8 Uhr abends"
    clock: dict[str, tuple[str, ...]] = field(default_factory=dict)
    corrections: tuple[str, ...] = ()
    not_true: tuple[str, ...] = ()
    #: what opens the customer's question said back ("you ask whether", "pergunta se"):
    #: the sentence asks, up to a colon, and claims nothing
    asked: tuple[str, ...] = ()
    conditional: frozenset[str] = frozenset()
    #: the words that open a condition ("if", "wenn", "se"): a negation after one states the
    #: condition's term ("if it has not arrived by 12:00")
    opens_condition: frozenset[str] = frozenset()
    #: "whether" ("of", "ob", "se"): a promise after one in a denied sentence is in question
    whether: tuple[str, ...] = ()
    would: frozenset[str] = frozenset()
    #: what opens the statement after what would be ("so", "så", "quindi")
    then: tuple[str, ...] = ()
    handover: tuple[str, ...] = ()
    #: a price that covers a thing ("included", "free of charge") and its opposite
    #: ("charged separately"): a policy the answer may invert
    included: tuple[str, ...] = ()
    charged: tuple[str, ...] = ()
    #: what is left over and kept ("carries over") and what lapses ("expires"): a second
    #: policy read as `included` and `charged` are
    kept: tuple[str, ...] = ()
    lapses: tuple[str, ...] = ()
    #: a claim that nothing is required ("automatically", "always") and the cues of a
    #: condition a passage attaches ("if", "for each", "provided")
    unconditional: tuple[str, ...] = ()
    provided: tuple[str, ...] = ()
    #: words that claim a thing for every one of its kind ("all", "tutte le"): a thing
    #: called free for all of them drops the case a passage prices
    universal: tuple[str, ...] = ()
    #: words that open a "yes" ("yes", "of course", "sì", "certo")
    affirmatives: tuple[str, ...] = ()
    #: words of owing or paying ("pay", "owe", "apply", "pagare", "betalen"): a figure whose
    #: clause negates one is denied, not claimed ("you do not have to pay the 240 €")
    owed: tuple[str, ...] = ()
    #: patterns of an amount taken off ("al netto di", "minus", "reduced"): regexes
    deductions: tuple[str, ...] = ()
    actions: Actions = Actions()
    register: Register = Register()
    #: words that add to what a sentence covers ("also", "ook", "anche"): scope.py
    also: tuple[str, ...] = ()
    #: words that say the system does something by itself ("automatically"): scope.py
    automatic: tuple[str, ...] = ()
    #: words before a place a passage limits its claim to ("in", "binnen", "entro")
    within: tuple[str, ...] = ()
    #: words after a widening word that make it a concession ("al" in "ook al")
    concessive: tuple[str, ...] = ()
    #: words beside `restrictive` that limit a claim to what follows ("reserved for")
    only: tuple[str, ...] = ()
    #: "X cannot be combined with Y" (regular expressions): conditions.py
    not_combined: tuple[str, ...] = ()
    #: words that apply one thing on top of another ("on top", "bovenop", "in più")
    on_top: tuple[str, ...] = ()
    #: words that claim an amount whole ("full deposit", "per intero")
    whole: tuple[str, ...] = ()
    #: words after a deduction word that make it a comparison ("than" in "less than")
    compared: tuple[str, ...] = ()


def _words(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split()
    return tuple(str(w).casefold() for w in value or ())


def parse_lexicon(lang: str, data: dict[str, Any]) -> Lexicon:
    """A Lexicon from a language file's parsed TOML."""
    figures = data.get("figures", {})
    units = figures.get("units", {})
    dom = figures.get("day_of_month", {})
    claims = data.get("claims", {})
    glue = data.get("glue")
    return Lexicon(
        lang=lang,
        negators=frozenset(_words(data.get("negators"))),
        articles=frozenset(_words(data.get("articles"))),
        pronouns=frozenset(_words(data.get("pronouns"))),
        conjunctions=frozenset(_words(data.get("conjunctions"))),
        asides=frozenset(_words(data.get("asides"))),
        glue=frozenset(_words(glue)) if glue is not None else None,
        restrictive=frozenset(_words(data.get("restrictive"))),
        politeness=frozenset(_words(data.get("politeness"))),
        list_joiners=frozenset(_words(data.get("list_joiners"))),
        same_word={str(k).casefold(): str(v) for k, v in data.get("same_word", {}).items()},
        verb_endings=_words(data.get("verb_endings")),
        stem_rewrites=tuple((str(a), str(b)) for a, b in data.get("stem_rewrites", ())),
        read_as=tuple((str(p), str(r)) for p, r in data.get("read_as", ())),
        compounds=bool(data.get("compounds", False)),
        nouns_capitalised=bool(data.get("nouns_capitalised", False)),
        negating_prefixes=_words(data.get("negating_prefixes")),
        contrasts=tuple(str(p) for p in claims.get("contrasts", ())),
        reassurances=_words_phrases(claims.get("reassurances")),
        # Hashed once: the matching's memos take them as an argument (suite/groups.py).
        equivalences=Groups(_words(g) for g in data.get("equivalences", ())),
        more=_words(figures.get("more")),
        percent=_words(figures.get("percent")),
        units={k: _words(v) for k, v in units.items() if k in DURATION_KINDS},
        own_only=frozenset(_words(units.get("own_only"))),
        counts={k: _words(v) for k, v in figures.get("counts", {}).items()},
        day_suffixes=tuple(str(s) for s in dom.get("suffixes", ())),
        day_words=_words(dom.get("day_words")),
        day_kinds=frozenset(_words(figures.get("day_kinds"))),
        for_a_span=frozenset(_words(figures.get("for_a_span"))),
        examples=_words_phrases(figures.get("examples")),
        limits=_words_phrases(figures.get("limits")),
        back=frozenset(_words(figures.get("back"))),
        ratio=frozenset(_words(figures.get("ratio"))),
        each_month=_words_phrases(dom.get("each_month")),
        per_year=_words_phrases(figures.get("per_year")),
        periods={k: _words_phrases(v) for k, v in figures.get("periods", {}).items()},
        totals=_words_phrases(figures.get("totals")),
        being=_words_phrases(figures.get("being")),
        month_end=_words_phrases(figures.get("month_end")),
        month_end_named=_words_phrases(figures.get("month_end_named")),
        started=_words_phrases(figures.get("started")),
        rates=_words_phrases(figures.get("rates")),
        clock={k: _words_phrases(v) for k, v in figures.get("clock", {}).items()},
        corrections=tuple(str(p) for p in claims.get("corrections", ())),
        not_true=_words_phrases(claims.get("not_true")),
        asked=_words_phrases(claims.get("asked")),
        conditional=frozenset(_words(claims.get("conditional"))),
        opens_condition=frozenset(_words(claims.get("opens_condition"))),
        whether=_words_phrases(claims.get("whether")),
        would=frozenset(_words(claims.get("would"))),
        then=_words_phrases(claims.get("then")),
        handover=_words_phrases(claims.get("handover")),
        included=_words_phrases(claims.get("included")),
        charged=_words_phrases(claims.get("charged")),
        kept=_words_phrases(claims.get("kept")),
        lapses=_words_phrases(claims.get("lapses")),
        unconditional=_words_phrases(claims.get("unconditional")),
        provided=_words_phrases(claims.get("provided")),
        universal=_words_phrases(claims.get("universal")),
        affirmatives=_words_phrases(claims.get("affirmatives")),
        owed=_words_phrases(claims.get("owed")),
        deductions=tuple(str(p) for p in claims.get("deductions", ())),
        actions=_actions(data.get("actions", {})),
        register=_register(data.get("register", {})),
        also=_words_phrases(data.get("scope", {}).get("also")),
        automatic=_words_phrases(data.get("scope", {}).get("automatic")),
        within=_words_phrases(data.get("scope", {}).get("within")),
        concessive=_words_phrases(data.get("scope", {}).get("concessive")),
        only=_words_phrases(data.get("scope", {}).get("only")),
        not_combined=tuple(str(p) for p in data.get("conditions", {}).get("not_combined", ())),
        on_top=_words_phrases(data.get("conditions", {}).get("on_top")),
        whole=_words_phrases(data.get("conditions", {}).get("whole")),
        compared=_words_phrases(data.get("conditions", {}).get("compared")),
    )


def _actions(data: dict[str, Any]) -> Actions:
    phrases = {
        k: _words_phrases(data.get(k))
        for k in (
            "perfect",
            "perfect_we",
            "you",
            "already",
            "not_already",
            "done",
            "not_done",
            "negators",
            "first_person",
            "vouch",
            "forwarded",
            "recipients",
        )
    }
    return Actions(
        **phrases,
        will=tuple(str(p) for p in data.get("will", ())),
        past=tuple(str(p) for p in data.get("past", ())),
        promise=_words_phrases(data.get("promise")),
        assure=_words_phrases(data.get("assure")),
        future=tuple(str(p) for p in data.get("future", ())),
    )


def _register(data: dict[str, Any]) -> Register:
    # Case kept: a capitalised formal pronoun is told from its lower-case homograph.
    return Register(
        formal=_words_phrases(data.get("formal")),
        informal=_words_phrases(data.get("informal")),
        formal_capitalised=tuple(str(w) for w in data.get("formal_capitalised", ())),
    )


def _words_phrases(value: Any) -> tuple[str, ...]:
    return tuple(str(p).casefold() for p in value or ())


@cache
def lexicon(lang: str | None) -> Lexicon:
    """The language's lists, read once per process; English for a language without a file
    (`invoke validate` refuses such a language in `expect.language`)."""
    code = lang if lang in SUPPORTED else FALLBACK
    path = LANGUAGE_DIR / f"{code}.toml"
    with path.open("rb") as fh:
        return parse_lexicon(code, tomllib.load(fh))


def capitalises_nouns(lang: str | None) -> bool:
    """Whether the language writes every noun with a capital (German; Luxembourgish, which
    has no file of its own), so that a capital marks no name."""
    return lang == "lb" or (lang in SUPPORTED and lexicon(lang).nouns_capitalised)


def has_data(lang: str) -> bool:
    """Whether the language has its own file (its negations and corrections are read)."""
    return lang in SUPPORTED and (LANGUAGE_DIR / f"{lang}.toml").is_file()


def all_lexicons() -> tuple[Lexicon, ...]:
    """Every supported language's lists (for the figure units read in any language)."""
    return tuple(lexicon(lang) for lang in SUPPORTED)
