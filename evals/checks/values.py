"""Figures as values: amounts, percentages, durations, clock times, dates and counts.

"45 €", "€45", "45,00 €", "EUR 45" and "45 euros" are one figure; so are "14 days",
"14-day", "two weeks", "14 Tage", "14 jours" and "14 días"; "22:00", "10 pm", "22 Uhr"
and "22 h". Every figure check parses with this one module, so an expectation, a
forbidden figure and a figure that needs a source all mean the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import regex

from evals.checks.clock import evening_after, hours
from evals.checks.halves import halves
from evals.checks.language import DEFAULT_LANGUAGES, detect, month_names, numerals, unit_names
from evals.checks.lexicon import DURATION_KINDS, all_lexicons
from evals.checks.number_words import is_ordinal, not_a_count


# Months come from CLDR (Babel) for every language considered; numbers written in words are
# read by text2num in the text's own language (see evals/checks/language.py).
# Both are loaded on the first figure read, not on import: a command that reads no figure
# does not load Babel's locale data.
@lru_cache(maxsize=1)
def months() -> dict[str, int]:
    """Month names and abbreviations of every language considered, case-folded."""
    out: dict[str, int] = {}
    for lang in DEFAULT_LANGUAGES:
        for name, num in month_names(lang).items():
            out.setdefault(name, num)
    # "may" and "mar" are English words more often than months without a day beside them;
    # the patterns below only read a month next to a day number, so they stay.
    return out


# Unit words by what they measure, from CLDR (cldr.json) and each language's file (plurals,
# abbreviations, working days, things counted); a duration is compared in days or minutes.
# Units are read in every supported language, since a ticket, its passages and the answer
# may be in different ones, and a unit word only counts right after a number; a language's
# `own_only` words ("time", an hour in Danish) only in that language's text.
@lru_cache(maxsize=16)
def duration_units(lang: str | None) -> dict[str, tuple[str, int]]:
    """Duration unit words -> (unit, factor), as read in `lang`'s text."""
    out: dict[str, tuple[str, int]] = {}
    for lex in all_lexicons():
        cldr = unit_names(lex.lang)
        for kind, (unit, factor) in DURATION_KINDS.items():
            for w in (*lex.units.get(kind, ()), *cldr.get(kind, ())):
                if w in lex.own_only and lex.lang != lang:
                    continue
                out.setdefault(" ".join(w.split()), (unit, factor))
    return out


@lru_cache(maxsize=1)
def count_units() -> dict[str, str]:
    """Words of things counted -> what is counted ("Plätze" -> seat, "volte" -> time)."""
    out: dict[str, str] = {}
    for lex in all_lexicons():
        for what, words in lex.counts.items():
            for w in words:
                out.setdefault(w, what)
    return out


def _union(attr: str) -> list[str]:
    return sorted({w for lex in all_lexicons() for w in getattr(lex, attr)})


_CURRENCIES = {
    "€": "EUR",
    "eur": "EUR",
    # Danish kroner ("600 kr.", "DKK 600"): the krone of the one language read that has it.
    "kr": "DKK",
    "kr.": "DKK",
    "dkk": "DKK",
    "euro": "EUR",
    "euros": "EUR",
    "$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "£": "GBP",
    "gbp": "GBP",
    "chf": "CHF",
}


def _alt(words: list[str]) -> str:
    """Alternatives for `words` as a prefix tree: "ma(?:r(?:ch|s|zo)|y|i)" for March, mars,
    marzo, May, mai. It matches what the words one by one, longest first, would (the words
    that match at one place are each a prefix of the next, and the tree tries the longer
    first), but compares each character once instead of once per word: the month names
    are tried at every word of every text read."""
    tree: dict[str, dict] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def emit(node: dict[str, dict]) -> str:
        alts = [regex.escape(ch) + emit(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


# Thousands groups ("1.312,50", "2 000", "1,080") or a plain number with decimals.
_NUM = r"\d{1,3}(?:[ \u00a0\u202f.,']\d{3})+(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d+)?"
_CUR_PRE = r"[€$£]|\b(?:eur|usd|gbp|chf|dkk|kr\.)(?![\p{L}])"
_CUR_POST = r"[€$£]|\b(?:eur|euros?|usd|dollars?|gbp|chf|dkk|kr)\b"


def _phrase(words: list[str]) -> str:
    """Alternatives for words or phrases, longest first, any whitespace between words."""
    out = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(regex.escape(p) for p in w.split()) for w in out)


@lru_cache(maxsize=16)
def _alternatives(lang: str | None) -> tuple[str, ...]:
    """The figure pattern's four alternatives: the digit-led kinds, and those led by a
    month, a day word or a currency."""
    _MONTH = _alt(list(months()))  # noqa: N806 - read like the other pattern parts
    _PERCENT = rf"%|\b(?:{_phrase(_union('percent'))})\b"  # noqa: N806
    _DUR = _phrase(list(duration_units(lang)))  # noqa: N806
    _CNT = _phrase(list(count_units()))  # noqa: N806
    _MORE = _phrase(_union("more"))  # noqa: N806
    # Ordinal days: "1st", "1e", "1ste", "1.", "1°", "1º", "1er"; the day word ("day",
    # "giorno", "Tag") and "of each month" in each language.
    _ORD = _phrase(_union("day_suffixes"))  # noqa: N806
    _DAYW = _phrase(_union("day_words"))  # noqa: N806
    _EACH = _phrase(_union("each_month"))  # noqa: N806
    # Every kind but three begins with a digit, and which kind can match at a place is
    # decided by the character there (a digit, a letter or a currency sign): the digit-led
    # kinds, in their order, are tried only where a digit stands, a look instead of a dozen
    # attempts at every other character of every text read.
    return (
        r"(?=\d)(?:"
        rf"(?P<iso>\b(?P<iy>\d{{4}})-(?P<im>\d{{2}})-(?P<id>\d{{2}})\b)"
        rf"|(?P<dmy>\b(?P<nd>\d{{1,2}})[./](?P<nm>\d{{1,2}})[./](?P<ny>\d{{4}})\b)"
        rf"|(?P<dm>\b(?P<dd>\d{{1,2}})(?:st|nd|rd|th|er|e|\.|º|°|ª)?\s(?:de\s|of\s)?(?P<dmo>{_MONTH})\b\.?"
        rf"(?:,?\s(?:de\s)?(?P<dy>\d{{4}})\b)?)"
        # "the 1st of each month", "de 1e van elke maand", "am 1. jedes Monats", "il 1° giorno di
        # ogni mese" (text2num reads "primo" as 1), "the 15th day of the billing month".
        rf"|(?P<dom>\b(?P<od>[12]?\d|3[01])(?:(?:{_ORD})(?:\s+(?:{_DAYW}))?|\s+(?:{_DAYW}))"
        rf"(?=\s+(?:{_EACH})\b))"
        rf"|(?P<clock>\b(?P<ch>[01]?\d|2[0-3])\s?(?::|h)\s?(?P<cm>[0-5]\d)\b"
        rf"(?:\s?(?P<campm>[ap])\.?m\b\.?)?(?:\s?uhr\b)?)"
        rf"|(?P<ampm>\b(?P<ah>1[0-2]|0?\d)\s?(?P<aap>[ap])\.?m\b\.?)"
        rf"|(?P<uhr>\b(?P<uh>[01]?\d|2[0-4])\s?(?:uhr\b|o'clock\b))"
        rf"|(?P<hour>\b(?P<hh>[01]?\d|2[0-4])\s?h\b(?!\s?\d))"
        rf"|(?P<money>\b(?P<n2>{_NUM})(?:\s|-)?(?P<cur2>{_CUR_POST}))"
        rf"|(?P<pct>\b(?P<pn>{_NUM})\s?(?:{_PERCENT}))"
        rf"|(?P<dur>\b(?P<dn>{_NUM})(?:\s|-)(?:(?:{_MORE})\s)?(?P<du>{_DUR})\b)"
        rf"|(?P<cnt>\b(?P<kn>{_NUM})(?:\s|-)(?:(?:{_MORE})\s)?(?P<ku>{_CNT})\b)"
        r")",
        # Led by a month, a day word or a currency.
        rf"(?P<md>\b(?P<mmo>{_MONTH})\.?\s(?P<md_d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s?(?:%|€|\$|£|[.,]\d))(?:,?\s(?P<my>\d{{4}})\b)?)",
        rf"(?P<domw>\b(?:{_DAYW})\s+(?P<odw>[12]?\d|3[01])(?=\s+(?:{_EACH})\b))",
        rf"(?P<money>(?P<cur1>{_CUR_PRE})\s?(?P<n1>{_NUM}))",
    )


@lru_cache(maxsize=16)
def figure_pattern(lang: str | None = None) -> regex.Pattern[str]:
    """The pattern of every figure kind as read in `lang`'s text (compiled once each)."""
    return regex.compile("|".join(_alternatives(lang)), regex.IGNORECASE)


@lru_cache(maxsize=16)
def _alternative_patterns(lang: str | None) -> tuple[regex.Pattern[str], ...]:
    return tuple(regex.compile(a, regex.IGNORECASE) for a in _alternatives(lang))


def figure_matches(text: str, lang: str | None) -> list[regex.Match[str]]:
    """The matches `figure_pattern(lang).finditer(text)` gives, found faster, each by the one
    alternative that made it (`figure_groups` reads its groups as the whole pattern's).

    The four alternatives joined are tried at every character (0.5 µs each); each alone is
    searched quickly. Where several match at one place the first in the pattern's order is
    the joined pattern's match there, and a search goes on after the last match."""
    found: dict[int, regex.Match[str]] = {}
    for pattern in _alternative_patterns(lang):
        for m in pattern.finditer(text, overlapped=True):
            found.setdefault(m.start(), m)
    out: list[regex.Match[str]] = []
    last = 0
    for at in sorted(found):
        if at >= last:
            out.append(found[at])
            last = found[at].end()
    return out


def figure_groups(m: regex.Match[str]) -> dict[str, str | None]:
    """A figure match's named groups, every group of the whole pattern there (None where it
    took no part)."""
    return {**_no_groups(), **m.groupdict()}


@lru_cache(maxsize=1)
def _no_groups() -> dict[str, None]:
    return dict.fromkeys(figure_pattern().groupindex)


@dataclass(frozen=True)
class Figure:
    """One figure: what it measures, its value in a common unit, and where it stands."""

    kind: str  # money | percent | duration | time | date | count
    unit: str  # EUR, %, day, minute, month, year, clock, date, seat, location, ...
    value: object  # Decimal for amounts; (year | None, month, day) for dates
    start: int = 0
    end: int = 0
    text: str = ""

    def same(self, other: Figure) -> bool:
        """Equal as values: the same kind, unit and amount (a date without a year matches;
        a year is twelve months: "18 maanden" is "1,5 jaar")."""
        if self.kind == other.kind == "duration" and {self.unit, other.unit} == {"month", "year"}:
            return _in_months(self) == _in_months(other)
        if (self.kind, self.unit) != (other.kind, other.unit):
            return False
        if self.kind == "date":
            a, b = self.value, other.value
            assert isinstance(a, tuple) and isinstance(b, tuple)
            return a[1:] == b[1:] and (a[0] is None or b[0] is None or a[0] == b[0])
        return self.value == other.value

    def label(self) -> str:
        return self.text or f"{self.value} {self.unit}"


def _in_months(fig: Figure) -> Decimal:
    value = fig.value if isinstance(fig.value, Decimal) else Decimal(str(fig.value))
    return value * 12 if fig.unit == "year" else value


def number(text: str) -> Decimal | None:
    """A number in any of the usual spellings: "1.312,50", "1,080", "2 000", "45,00", "99.9"."""
    t = text.strip().replace("\u00a0", " ").replace("\u202f", " ").replace("'", " ")
    t = t.replace(" ", "")
    if "," in t and "." in t:
        dec = "," if t.rfind(",") > t.rfind(".") else "."
        t = t.replace("." if dec == "," else ",", "").replace(dec, ".")
    elif "," in t or "." in t:
        sep = "," if "," in t else "."
        parts = t.split(sep)
        # One separator before exactly three digits groups thousands; otherwise it is a decimal
        # (and always after a lone 0: "0,142 € per kWh" is no 142 €).
        if all(len(p) == 3 for p in parts[1:]) and len(parts[0]) <= 3 and parts[0] != "0":
            t = "".join(parts)
        elif len(parts) == 2:
            t = parts[0] + "." + parts[1]
        else:
            return None
    try:
        return Decimal(t).normalize()
    except InvalidOperation:
        return None


def _date(y: str | None, m: int, d: str) -> tuple[int | None, int, int] | None:
    day = int(d)
    if not (1 <= m <= 12 and 1 <= day <= 31):
        return None
    return (int(y) if y else None, m, day)


# "3 times 24 €" multiplies: a count of times is one only where no number follows.
_FACTOR_FOLLOWS = regex.compile(r"\s*(?:\d|[€$£])")


def _figure(m: regex.Match[str], lang: str | None = None) -> Figure | None:
    g = figure_groups(m)
    span = (m.start(), m.end(), m.group(0))
    if g["iso"]:
        v = _date(g["iy"], int(g["im"]), g["id"])
    elif g["dmy"]:
        v = _date(g["ny"], int(g["nm"]), g["nd"])
    elif g["dm"]:
        v = _date(g["dy"], months()[g["dmo"].casefold()], g["dd"])
    elif g["md"]:
        v = _date(g["my"], months()[g["mmo"].casefold()], g["md_d"])
    else:
        v = None
    if v is not None:
        return Figure("date", "date", v, *span)
    if g["dom"] or g["domw"]:
        return Figure("day", "day-of-month", Decimal(int(g["od"] or g["odw"])), *span)
    if g["clock"] or g["ampm"] or g["uhr"] or g["hour"]:
        hour = int(g["ch"] or g["ah"] or g["uh"] or g["hh"])
        minute = int(g["cm"] or 0)
        ap = (g["campm"] or g["aap"] or "").casefold()
        if ap == "p" and hour < 12:
            hour += 12
        elif ap == "a" and hour == 12:
            hour = 0
        return Figure("time", "clock", Decimal((hour % 24) * 60 + minute), *span)
    if g["money"]:
        amount = number(g["n1"] or g["n2"])
        cur = _CURRENCIES.get((g["cur1"] or g["cur2"]).casefold())
        return Figure("money", cur, amount, *span) if amount is not None and cur else None
    if g["pct"]:
        amount = number(g["pn"])
        return Figure("percent", "%", amount, *span) if amount is not None else None
    if g["dur"]:
        amount = number(g["dn"])
        unit, factor = duration_units(lang)[" ".join(g["du"].casefold().split())]
        return Figure("duration", unit, amount * factor, *span) if amount is not None else None
    if g["cnt"]:
        amount = number(g["kn"])
        unit = count_units()[" ".join(g["ku"].casefold().split())]
        # "une fois connecté", "one time": once is a conjunction as often as a count.
        if unit == "time" and (amount == 1 or _FACTOR_FOLLOWS.match(m.string, m.end())):
            return None
        return Figure("count", unit, amount, *span) if amount is not None else None
    return None


# "a fortnight" is two weeks; CLDR has no such unit, so English names it here.
_FORTNIGHT = regex.compile(r"\b(?:a\s+)?fortnight\b", regex.IGNORECASE)


def with_digits(text: str, lang: str | None) -> tuple[str, list[tuple[int, int]]]:
    """`text` with numbers in words as digits, same length (padded on the left), and the
    spans replaced: "twenty-nine euros" -> "         29 euros"."""
    # Hyphens as spaces (same length): text2num reads "twelve month" but not "twelve-month".
    spans: list[tuple[int, int, str]] = list(numerals(text.replace("-", " "), lang))
    # "anderhalf jaar", "un anno e mezzo": one and a half wins over the "un" inside it.
    half = halves(text, lang)
    if half:
        spans = [s for s in spans if not any(a < s[1] and s[0] < b for a, b, _ in half)] + half
    if lang in (None, "en"):
        spans += [(m.start(), m.end(), "14 days") for m in _FORTNIGHT.finditer(text)]
    if not spans:
        return text, []
    out, last, kept = [], 0, []
    for start, end, digits in sorted(spans):
        if start < last or len(digits) > end - start:
            continue
        out += [text[last:start], " " * (end - start - len(digits)), digits]
        kept.append((start, end))
        last = end
    out.append(text[last:])
    return "".join(out), kept


_CENTS = regex.compile(
    r"\s*(?:(?:and|und|et|e|en|y|og|och)\s+)?\s*(?P<c>\d{1,2})(?!\d)"
    r"(?:\s*(?:cents?|centesimi|centesimo|céntimos?|cêntimos?|centimes?|øre|eurocents?))?"
    r"(?=\s*(?:[.,;:!?()\[\]]|$))",
    regex.IGNORECASE,
)


@lru_cache(maxsize=16384)
def _parse(text: str, lang: str | None = None) -> tuple[Figure, ...]:
    reading = lang or detect(text)
    written = _scan(text, reading)
    plain, spans = with_digits(text, reading or "en")
    if not spans:
        return written
    # Figures written with digits come first; a number in words adds a figure only where no
    # written one stands ("15 pour cent" is 15 %, not "15 pour 100").
    taken = [(f.start, f.end) for f in written]
    out = list(written)
    for fig in _scan(plain, reading):
        span = next(((a, b) for a, b in spans if a <= fig.start < b), None)
        if span is None or any(a < fig.end and span[0] < b for a, b in taken):
            continue
        start = span[0]
        if fig.kind == "count" and not_a_count(text, *span, reading):
            continue
        if fig.kind == "duration" and is_ordinal(text[span[0] : span[1]], reading):
            continue  # "the first year", "im ersten Jahr": which year, not how long
        end, value = fig.end, fig.value
        if fig.kind == "money":
            # "vierzehn Euro neunzig", "cinco euros e noventa e cinco": the cents follow the
            # currency, in words, and end the amount (a punctuation mark, a bracket or a
            # cents word after them).
            cents = _CENTS.match(plain, fig.end)
            if cents and any(a <= cents.start("c") < b for a, b in spans):
                end, value = cents.end(), fig.value + Decimal(int(cents.group("c"))) / 100
        # A figure read from words keeps the words: "twenty-nine euros", not "29 euros".
        out.append(Figure(fig.kind, fig.unit, value, start, end, text[start:end]))
    # A clock time first where a place reads as both ("7 uur" in a range of hours).
    return tuple(sorted(out, key=lambda f: (f.start, f.kind != "time")))


# Every figure kind holds a digit: a text without one (most passages' sentences, many
# answers' clauses) holds no figure, and is not scanned.
_DIGIT = regex.compile(r"\d")


def _scan(text: str, lang: str | None) -> tuple[Figure, ...]:
    if _DIGIT.search(text) is None:
        return ()
    out: list[Figure] = []
    for m in figure_matches(text, lang):
        fig = _figure(m, lang)
        if fig is None:
            continue
        if fig.kind == "time" and fig.value < 720 and evening_after(text, fig.end, lang):  # type: ignore[operator]
            fig = Figure("time", "clock", fig.value + 720, fig.start, fig.end, fig.text)  # type: ignore[operator]
        out.append(fig)
        if "hour" in m.re.groupindex and m.group("hour"):
            # "11 h" is a duration as often as a time of day: both readings are kept.
            minutes = Decimal(int(m.group("hh")) * 60)
            out.append(Figure("duration", "minute", minutes, fig.start, fig.end, fig.text))
    # Bare hours a range or "at" makes clock times ("dalle 8 alle 22", "van 7 tot 23 uur").
    timed = {f.start for f in out if f.kind == "time"}
    for start, end, minutes in hours(text, lang):
        if start not in timed:
            out.append(Figure("time", "clock", Decimal(minutes), start, end, text[start:end]))
    # A clock time first where a place reads as both ("7 uur" in a range of hours).
    return tuple(sorted(out, key=lambda f: (f.start, f.kind != "time")))


def parse_figures(text: str, lang: str | None = None) -> list[Figure]:
    """Every figure in `text`, in order (a "22 h" gives a time and a duration at one place).

    Numbers in words are read in `lang`, or in the language the text is detected to be in.
    """
    return list(_parse(text, lang))


def parse_one(text: str) -> Figure | None:
    """The single figure an expectation names ("45 €", "14 days", "22:00"), or None."""
    figs = parse_figures(text)
    return figs[0] if figs else None


def contains_value(text: str, want: Figure, lang: str | None = None) -> bool:
    """Whether `text` states the figure `want` as a value, in any spelling."""
    return any(f.same(want) for f in parse_figures(text, lang))
