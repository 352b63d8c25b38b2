"""A date the answer computes from the customer's own: a contract that started on
1 January 2026 with a 3-year term ends on 1 January 2029. The inputs are the ticket's (its
turns and context), so the date needs no citation, as the ticket's own figures need none."""

from __future__ import annotations

import calendar
import datetime
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.language import day_names, detect, month_names
from evals.checks.lexicon import lexicon
from evals.checks.values import Figure, parse_figures

_MONTHS_IN = {"year": 12, "month": 1}


def _plus_months(date: tuple[int, int, int], months: int) -> tuple[int, int, int]:
    y, m, d = date
    total = y * 12 + (m - 1) + months
    y2, m2 = divmod(total, 12)
    return y2, m2 + 1, min(d, calendar.monthrange(y2, m2 + 1)[1])


def date_from_given(fig: Figure, given: Sequence[Figure]) -> bool:
    """Whether a dated figure is one of the customer's dates moved on by one of their terms
    in years or months (a start date and the contract's length)."""
    if fig.kind != "date" or not isinstance(fig.value, tuple) or fig.value[0] is None:
        return False
    dates = [g.value for g in given if g.kind == "date" and isinstance(g.value, tuple)]
    terms = [
        int(g.value) * _MONTHS_IN[g.unit]  # type: ignore[call-overload]
        for g in given
        if g.kind == "duration" and g.unit in _MONTHS_IN
    ]
    return any(
        d[0] is not None and _plus_months(d, k) == fig.value  # type: ignore[arg-type]
        for d in dates
        for k in terms
    )


_DAY_NUMBER = regex.compile(r"(?<![\d.,])\d{1,2}(?![\d,]\d)")

# A date without its year ("10 novembre") is moved on in a year with no 29 February; the
# answer's date is then compared by month and day.
_PLAIN_YEAR = 2001


def _moved(date: tuple[int | None, int, int], term: Figure) -> tuple[int | None, int, int] | None:
    y, m, d = date
    if term.unit in _MONTHS_IN:
        months = int(term.value) * _MONTHS_IN[term.unit]  # type: ignore[call-overload]
        y2, m2, d2 = _plus_months((y or _PLAIN_YEAR, m, d), months)
    elif term.unit == "day":
        try:
            day = datetime.date(y or _PLAIN_YEAR, m, d) + datetime.timedelta(days=int(term.value))  # type: ignore[call-overload]
        except ValueError:
            return None
        y2, m2, d2 = day.year, day.month, day.day
    elif term.unit == "working-day" and y is not None:
        # Working days skip Saturdays and Sundays (public holidays are each country's own,
        # and not known here): 3 November 2026 and 10 working days are 17 November.
        try:
            day = datetime.date(y, m, d)
        except ValueError:
            return None
        left = int(term.value)  # type: ignore[call-overload]
        while left > 0:
            day += datetime.timedelta(days=1)
            left -= day.weekday() < 5
        y2, m2, d2 = day.year, day.month, day.day
    else:
        return None
    return (y2 if y is not None else None, m2, d2)


def date_after(fig: Figure, dates: Sequence[Figure], terms: Sequence[Figure]) -> bool:
    """Whether a dated figure is one of `dates` (the customer's) moved on by one of `terms`
    (a passage's or the customer's durations, in days, months or years): signed on
    10 November with a 30-day waiting period, the cover starts on 10 December."""
    if fig.kind != "date" or not isinstance(fig.value, tuple):
        return False
    want = fig.value
    for g in dates:
        if g.kind != "date" or not isinstance(g.value, tuple) or g.value[1] is None:
            continue
        for t in terms:
            if t.kind != "duration" or not isinstance(t.value, Decimal) or t.value != int(t.value):
                continue
            start = g.value
            if start[0] is None and t.unit == "working-day" and want[0] is not None:
                start = (want[0], start[1], start[2])  # weekdays need a year: the answer's
            got = _moved(start, t)  # type: ignore[arg-type]
            if got is None:
                continue
            if got[1:] == want[1:] and (got[0] is None or want[0] is None or got[0] == want[0]):
                return True
    return False


def _last_of_month(fig: Figure) -> bool:
    """Whether a dated figure is the last day of its month."""
    if fig.kind != "date" or not isinstance(fig.value, tuple) or fig.value[1] is None:
        return False
    year, month, day = fig.value
    return bool(day == calendar.monthrange(year or _PLAIN_YEAR, month)[1])


def month_end_after(fig: Figure, dates: Sequence[Figure], terms: Sequence[Figure]) -> bool:
    """Whether a dated figure is the last day of the month that one of `dates` moved on by
    one of `terms` falls in (a notice of 1 month to a month's end: given on 10 March, it
    ends on 30 April)."""
    if not _last_of_month(fig):
        return False
    year, month, _ = fig.value  # type: ignore[misc]
    for g in dates:
        if g.kind != "date" or not isinstance(g.value, tuple) or g.value[1] is None:
            continue
        for t in terms:
            if t.kind != "duration" or not isinstance(t.value, Decimal) or t.value != int(t.value):
                continue
            got = _moved(g.value, t)  # type: ignore[arg-type]
            if (
                got is not None
                and got[1] == month
                and (got[0] is None or year is None or got[0] == year)
            ):
                return True
    return False


def month_end_of(fig: Figure, dates: Sequence[Figure]) -> bool:
    """Whether a dated figure is the last day of the month of one of `dates`, after it (a
    notice that runs to the end of the month: 14 December, so 31 December)."""
    if not _last_of_month(fig):
        return False
    year, month, day = fig.value  # type: ignore[misc]
    for g in dates:
        if g.kind != "date" or not isinstance(g.value, tuple) or g.value[1] != month:
            continue
        if g.value[2] < day and (g.value[0] is None or year is None or g.value[0] == year):
            return True
    return False


def date_before(fig: Figure, dates: Sequence[Figure], terms: Sequence[Figure]) -> bool:
    """Whether a dated figure is one of `dates` moved back by one of `terms` (a passage's term
    that comes before a date: moving on 20 December, cancel at least 15 days before: by
    5 December). Days, months and years; working days are not counted back."""
    back = [
        Figure(t.kind, t.unit, -t.value, t.start, t.end, t.text)  # type: ignore[operator]
        for t in terms
        if t.kind == "duration" and t.unit != "working-day" and isinstance(t.value, Decimal)
    ]
    return date_after(fig, dates, back)


def days_between(fig: Figure, dates: Sequence[Figure], sentence: str) -> bool:
    """Whether a duration in days is the number of days between two of `dates` whose days
    its `sentence` names ("from 18 to 30 October it is 12 days"): arithmetic on the
    customer's dates, no passage's figure. A wrong term that happens to equal the time since
    the customer's date ("active after 15 days") names neither day and stays a claim. A
    date without its year is read in the other's year, else in a year with no 29 February."""
    if fig.kind != "duration" or fig.unit != "day" or not isinstance(fig.value, Decimal):
        return False
    said = set(_DAY_NUMBER.findall(sentence))
    days = [
        d.value
        for d in dates
        if d.kind == "date" and isinstance(d.value, tuple) and str(d.value[2]) in said
    ]
    for i, a in enumerate(days):
        for b in days[i + 1 :]:
            year = a[0] or b[0] or _PLAIN_YEAR
            try:
                gap = datetime.date(b[0] or year, b[1], b[2]) - datetime.date(
                    a[0] or year, a[1], a[2]
                )
            except (ValueError, TypeError):
                continue
            if abs(gap.days) == fig.value:
                return True
    return False


_WEEK_MINUTES = 7 * 1440
#: Characters between a weekday's name and its clock time ("lunedì alle 10:00", "maandag 9:00").
_NAME_TO_TIME = 14


@lru_cache(maxsize=16)
def _weekday_pattern(lang: str) -> tuple[regex.Pattern[str], dict[str, int]]:
    names = day_names(lang)[:7]  # the wide names, in the week's order
    index = {n: i for i, n in enumerate(names)}
    body = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True)) or "(?!)"
    return regex.compile(rf"(?<!\p{{L}})(?:{body})(?!\p{{L}})", regex.IGNORECASE), index


def weekday_spans(text: str, lang: str | None) -> tuple[Figure, ...]:
    """The spans a text gives between two weekdays with their clock times ("lunedì alle 10:00
    ... venerdì alle 10:00" is 96 hours, 4 days): a customer who writes both has given the
    span, as two dates give the days between them."""
    reading = lang or detect(text)
    if reading is None:
        return ()
    pattern, index = _weekday_pattern(reading)
    times = [f for f in parse_figures(text, reading) if f.kind == "time"]
    points = []
    for m in pattern.finditer(text):
        t = next((f for f in times if 0 <= f.start - m.end() <= _NAME_TO_TIME), None)
        if t is not None and isinstance(t.value, Decimal):
            points.append(index[m.group(0).casefold()] * 1440 + int(t.value))
    out = []
    for a, b in zip(points, points[1:], strict=False):
        minutes = (b - a) % _WEEK_MINUTES
        if minutes:
            out.append(Figure("duration", "minute", Decimal(minutes)))
            if minutes % 1440 == 0:
                out.append(Figure("duration", "day", Decimal(minutes // 1440)))
    return tuple(out)


@lru_cache(maxsize=16)
def _month_end_pattern(lang: str) -> tuple[regex.Pattern[str], dict[str, int]]:
    names = {n: m for n, m in month_names(lang).items() if len(n) >= 3}
    lead = "|".join(
        regex.escape(w) for w in sorted(lexicon(lang).month_end_named, key=len, reverse=True)
    )
    body = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
    if not lead or not body:
        return regex.compile("(?!)"), names
    return (
        regex.compile(
            rf"(?<!\p{{L}})(?:{lead})\s+(?P<month>{body})(?!\p{{L}})(?:\s+(?P<year>(?:19|20)\d\d))?",
            regex.IGNORECASE,
        ),
        names,
    )


def month_ends(text: str, lang: str | None) -> tuple[Figure, ...]:
    """The last days of the months a text names with its language's words for a month's end
    ("we stop at the end of March", "eind maart", "Ende März"): the customer's dates."""
    reading = lang or detect(text)
    if reading is None:
        return ()
    pattern, names = _month_end_pattern(reading)
    out = []
    for m in pattern.finditer(text):
        month = names[m.group("month").casefold()]
        year = int(m.group("year")) if m.group("year") else None
        # Without a year, February ends on the 28th (the common case).
        last = calendar.monthrange(year or 2027, month)[1]
        out.append(Figure("date", "date", (year, month, last), m.start(), m.end(), m.group(0)))
    return tuple(out)
