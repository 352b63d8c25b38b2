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
from evals.checks.figure_pattern import (
    count_units,
    duration_units,
    figure_groups,
    figure_matches,
    months,
)
from evals.checks.halves import halves
from evals.checks.language import detect
from evals.checks.number_words import is_ordinal, kind_of_day, not_a_count
from evals.checks.numerals import numerals

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


_FACTOR_SIGN = regex.compile(r"\s*[×x*·]\s*\d")
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
    elif g["md"] and _FACTOR_SIGN.match(m.string, m.end()):
        return None  # "juni t/m augustus 3 × 9 €": the 3 multiplies, it is no day of August
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
    if lang in (None, "en") and "fortnight" in text.casefold():
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
    r"\s*(?:(?:and|und|et|e|en|y|con|com|og|och)\s+)?\s*(?P<c>\d{1,2})(?!\d)"
    r"(?:\s*(?:cents?|centesimi|centesimo|céntimos?|cêntimos?|centimes?|øre|eurocents?))?"
    # Then the amount ends: a mark, or a word that opens what it is for ("ventitré euro e
    # quaranta per la prima box"), never a unit ("5 euros y 20 días" is two figures).
    r"(?=\s*(?:[.,;:!?()\[\]]|$|(?:per|a|al|alla|por|para|pour|par|für|pro|for|each|a\s+week"
    r"|cada|ogni|voor|per\s+week|in|no|na|nel|nella|en|im|la|le|il|el|o|the|de|di)(?!\p{L})))",
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
        if span is not None and _DIGIT.search(text, span[0], span[1]):
            # "2 ore e mezza" read whole: its written "2 ore" is the half's first part.
            inside = [f for f in out if span[0] <= f.start and f.end <= span[1]]
            out = [f for f in out if f not in inside]
            taken = [(a, b) for a, b in taken if not (span[0] <= a and b <= span[1])]
        if span is None or any(a < fig.end and span[0] < b for a, b in taken):
            continue
        start = span[0]
        if fig.kind == "count" and not_a_count(text, *span, reading):
            continue
        if fig.kind == "duration" and is_ordinal(text[span[0] : span[1]], reading):
            continue  # "the first year", "im ersten Jahr": which year, not how long
        if fig.unit == "day" and kind_of_day(text, start, fig.end, reading):
            continue
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


# A year right before a currency symbol and its amount ("de prijslijst 2026 € 1.190"): the
# amount is the symbol's, not "2026 €" (blanked, so offsets stay).
_YEAR_BEFORE_SYMBOL = regex.compile(r"(?<![\d.,])(?:19|20)\d\d(?=\s?[€$£]\s?\d)")


def _scan(text: str, lang: str | None) -> tuple[Figure, ...]:
    if _DIGIT.search(text) is None:
        return ()
    text = _YEAR_BEFORE_SYMBOL.sub(lambda m: " " * len(m.group()), text)
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
