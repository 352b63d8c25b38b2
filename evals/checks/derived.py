"""Figures an answer computes from stated ones: "45 € less 20 % is 36 €", "3 × 24 € = 72 €",
"10 € more than Basic", "30 days, then a further 14" (44 days), "22:00 to 06:00" (8 hours).

Pure arithmetic over figures already read: the inputs are the cited passages' figures and
the customer's own, the multipliers the counts that the answer's sentence or the ticket gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from functools import lru_cache

import regex

from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.number_words import in_rate_period
from evals.checks.values import Figure, parse_figures

# Amounts are compared to the cent: "45 € less 15 %" is 38.25 €, and 38,25 € is that.
_CENT = Decimal("0.01")
_ARITHMETIC_KINDS = ("duration", "money", "count")


def _near(a: Decimal, b: Decimal) -> bool:
    # Half a cent either way: 50,745 € is written 50,75 € (half up) as often as 50,74 €.
    return abs(a - b) <= _CENT / 2 or a.quantize(_CENT) == b.quantize(_CENT)


def clock_span(fig: Figure, clock: Iterable[Figure]) -> bool:
    """Whether a duration in minutes is the time between two clock times ("22:00 to 06:00"
    is 8 hours; a span past midnight adds a day)."""
    if fig.kind != "duration" or fig.unit != "minute":
        return False
    times = [p.value for p in clock if p.kind == "time"]
    # Decimal's % keeps the dividend's sign: add a day first ("22:00 to 06:00" is 480).
    return fig.value in {(b - a + 1440) % 1440 for a in times for b in times if a != b}  # type: ignore[operator]


def computed(
    fig: Figure,
    stated: Sequence[Figure],
    given: Sequence[Figure] = (),
    factors: Sequence[int] = (),
    beside: Sequence[Figure] = (),
    percent: bool = True,
) -> bool:
    """Whether `fig` is a sum of two or three figures of its kind or a difference of two, a
    product of one with one or two counts, or one of those with a percentage taken off,
    added on or taken of it (only when `percent`: an answer that names no percentage took
    none).

    `stated` are the figure's own cited passages' figures; `given` the customer's own;
    `beside` those of passages the answer cites elsewhere, which may give the second term
    or the percentage ("saves 15 % [doc:annual]. That is 38,25 € [doc:plans]") but not the
    figure's base. A sum or difference needs one of its terms from `stated`; a product or
    percentage may rest on the customer's figure ("your 3 weeks at 24 € are 72 €")."""
    if fig.kind == "percent" and isinstance(fig.value, Decimal):
        return _percent_sum(fig.value, stated, [*given, *beside])
    if fig.kind not in _ARITHMETIC_KINDS or not isinstance(fig.value, Decimal):
        return False
    want = fig.value

    def values(figs: Sequence[Figure]) -> list[Decimal]:
        return [p.value for p in figs if (p.kind, p.unit) == (fig.kind, fig.unit)]  # type: ignore[misc]

    own, terms = values(stated), [*values(stated), *values(given)]
    second = [*terms, *values(beside)]
    own_rates = [p.value for p in (*stated, *given) if p.kind == "percent"]
    # A difference of two limits is seldom what an answer means ("up to 30 seats" is no
    # 50 less 20): counts are summed, not subtracted.
    differs = fig.kind != "count"
    for i, a in enumerate(own):
        for b in second[i + 1 :]:
            if _near(a + b, want) or (differs and a != b and _near(abs(a - b), want)):
                return True
    # A count taken from the customer's own is what is left or over ("1,250 km included,
    # you drove 1,400: 150 km extra"): a passage's limit less the customer's number.
    if not differs and any(_near(abs(a - g), want) for a in own for g in values(given)):
        return True
    # Three charges of one passage, or of it and the ticket, added up: delivery,
    # installation and removal of the old appliance in one total.
    if any(
        _near(a + b + c, want)
        for i, a in enumerate(own)
        for j, b in enumerate(terms[i + 1 :], i + 1)
        for c in terms[j + 1 :]
    ):
        return True
    # "10 seats × 45 € × 12 months": one or two counts.
    counts = {*factors, *(j * k for n, j in enumerate(factors) for k in factors[n + 1 :])}
    bases = [*terms, *(t * k for t in terms for k in counts)]
    if any(_near(b, want) for b in bases):
        return True
    if _sum_times_count(own, second, counts, want):
        return True
    # A product and a one-off beside it: twelve months at 28 € and a 39 € activation are
    # 375 € in the first year; seven unused months at 100 € less a 30 € fee are 670 €.
    if any(
        _near(a * k + b, want) or (differs and _near(a * k - b, want))
        for a in terms
        for k in counts
        for b in second
        if b != a
    ):
        return True
    if not percent:
        return False
    rates = _with_sums([p.value for p in (*stated, *given, *beside) if p.kind == "percent"])
    # A percentage from the figure's own passage may be taken of a price cited elsewhere
    # ("10 % off [doc:discounts]" of "59 € [doc:plans]" is "53,10 € [doc:discounts]").
    others = [*values(beside), *(t * k for t in values(beside) for k in counts)]
    pairs = [(r, b) for r in rates for b in bases] + [(r, b) for r in own_rates for b in others]
    for rate, b in pairs:
        share = rate / 100  # type: ignore[operator]
        if any(_near(b * m, want) for m in (1 - share, 1 + share, share)):
            return True
    return False


@lru_cache(maxsize=16)
def _rate_words(lang: str) -> regex.Pattern[str]:
    # A long word may end a compound ("combinatiekorting", "Familienrabatt"); a short one
    # ("off", "meno") stands alone.
    parts = [
        regex.escape(w) if len(w) >= _COMPOUND else rf"(?<![\p{{L}}]){regex.escape(w)}(?![\p{{L}}])"
        for w in sorted(lexicon(lang).rates, key=len, reverse=True)
    ]
    return regex.compile("|".join(parts) or "(?!)", regex.IGNORECASE)


_COMPOUND = 5


def takes_a_rate(answer: str, figs: Sequence[Figure], lang: str | None) -> bool:
    """Whether the answer takes a percentage: it names one, or a word of its language that
    takes one off or adds one on ("discount", "korting", "majoré"). An answer that does
    neither took none, and 15 € is no "20 € less 25 %" of its passage by chance."""
    return any(f.kind == "percent" for f in figs) or (
        _rate_words(lang or FALLBACK).search(answer) is not None
    )


def _with_sums(rates: list[Decimal]) -> list[Decimal]:
    """Percentages and the sums of two of them: discounts that add up ("7 % and 5 % are
    12 % off") are taken off together."""
    return [*rates, *(a + b for i, a in enumerate(rates) for b in rates[i + 1 :])]


def _percent_sum(want: Decimal, stated: Sequence[Figure], others: Sequence[Figure]) -> bool:
    """Whether a percentage is the sum of two stated ones, one from the figure's own cited
    passages ("7 % for the alarm and 5 % claim-free: 12 % in all")."""
    own = [p.value for p in stated if p.kind == "percent"]
    second = [*own, *(p.value for p in others if p.kind == "percent")]
    return any(
        _near(a + b, want)  # type: ignore[operator]
        for i, a in enumerate(own)
        for b in second[i + 1 :]
    )


def _sum_times_count(
    own: Sequence[Decimal], second: Sequence[Decimal], counts: Iterable[int], want: Decimal
) -> bool:
    """A sum of two figures taken a number of times: two standing charges of 6,50 € a month
    are 156 € a year ("(6,50 € + 6,50 €) × 12"); one term from the figure's own passages."""
    sums = {a + b for i, a in enumerate(own) for b in second[i + 1 :]}
    return any(_near(s * k, want) for s in sums for k in counts)


_TIMES_SIGN = regex.compile(r"(?:[×*]|(?<![\p{L}])x)\s*$")


def multiplier(text: str, fig: Figure, lang: str | None) -> bool:
    """Whether a duration or count stands as a multiplier ("× 12 months", "keer 12 maanden",
    "3 × 24 €" is the product's count): it takes a figure so many times and claims nothing."""
    if fig.kind not in ("duration", "count"):
        return False
    if fig.kind == "duration" and in_rate_period(text, fig.start, lang):
        return True  # "336 € in un anno", "für ein Jahr": the period of the amount
    before = text[max(0, fig.start - 24) : fig.start]
    if _TIMES_SIGN.search(before):
        return True
    last = before.split()[-1:] if before.strip() else []
    times = lexicon(lang or FALLBACK).counts.get("time", ())
    return bool(last) and last[0].casefold() in times


_WHOLE = regex.compile(r"(?<![\d.,:])\d{1,4}(?![\d.,:]\d)")


def priced_in(passage: str, fig: Figure, k: int) -> bool:
    """Whether the passage states a figure of `fig`'s kind for a group of `k` in its own
    clause ("19 € per maand per set van 6 panelen"): that figure already covers the `k`,
    and multiplying it by `k` counts them twice. Clauses are cut at sentence ends, ';', ':'
    and commas, so a limit beside a price ("45 € per seat, at least 5 seats") is no group."""
    for piece, wholes in _clause_wholes(passage):
        if str(k) not in wholes:
            continue
        alike = [
            p
            for p in parse_figures(piece)
            if (p.kind, p.unit) == (fig.kind, fig.unit) and str(k) not in p.text
        ]
        if alike:
            return True
    return False


_CLAUSE_CUT = regex.compile(r"[.;:,](?!\d)|\n")


@lru_cache(maxsize=1024)
def _clause_wholes(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each clause of a passage with the whole numbers written in it: read once per passage,
    not once per figure and count asked of it."""
    cuts = [0, *(m.end() for m in _CLAUSE_CUT.finditer(text)), len(text)]
    pieces = (text[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if b > a)
    return tuple((p, frozenset(m.group(0) for m in _WHOLE.finditer(p))) for p in pieces)
