"""An equation the answer writes out ("4 × 51,10 € = 204,40 €", "39 € meno il 20 % =
31,20 €", "178 € + 53,40 € + 18 € = 249,40 €") is read as written and worked out: its
result holds only when the arithmetic does. A wrong step is wrong even when some other
combination of the passage's figures happens to give the result.

Only an equation whose left side is figures, bare counts and operators alone (citations
between them allowed) is read; anything else before the sign leaves the figure to the
looser reading of `derived.computed`.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import regex

from evals.checks.matching import MARKER
from evals.checks.text import SENTENCE_END
from evals.checks.values import Figure, number, parse_figures

# An operator between two terms: symbols, an "x" between numbers, and the words of each
# language read for plus and minus (an article may follow a word: "meno il 20 %").
_OPERATOR = regex.compile(
    r"\s*(?:(?P<op>[+×*·−–]|-(?=\s)|x(?=\s))"
    r"|(?P<word>plus|più|mais|más|minus|less|meno|menos|moins|min|abzüglich)"
    r"(?:\s+(?:the|il|lo|la|l'|l’|el|los|le|les|o|os|a|as|de|der|die|das|het))?(?!\p{L}))\s*",
    regex.IGNORECASE,
)
_MINUS_WORDS = frozenset({"minus", "less", "meno", "menos", "moins", "min", "abzüglich"})
_COUNT = regex.compile(r"\d{1,4}(?![\d.,]*\d)(?!\s*[%€$£])")
#: An amount written bare, as a working in brackets writes them: "(18 − 2,50)".
BARE_AMOUNT = regex.compile(r"\d{1,6}(?:[.,]\d{1,2})?(?![\d.,]*\d)(?!\s*[%€$£])")
_SPACE = regex.compile(r"\s*")
_RIGHT_GAP = regex.compile(r"[\s*_]*")
_NUMBER_NEXT = regex.compile(r"[€$£]?\s?\d")
_HUNDRED = Decimal(100)
# A result may be rounded as people round: to the cent, or within a thousandth of it.
_CENT = Decimal("0.01")


def _term(
    text: str, at: int, figs: dict[int, Figure], bare: regex.Pattern[str] = _COUNT
) -> tuple[object, int] | None:
    """The term at `at`: a figure (money, percent, or a duration or count) or a bare number
    (`bare`: a count, or in a working in brackets an amount)."""
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    fig = figs.get(at)
    if fig is not None:
        return fig, fig.end
    m = bare.match(text, at)
    if m is not None and (at == 0 or not text[at - 1].isdigit()):
        value = number(m.group(0))
        return (value, m.end()) if value is not None else None
    return None


def _operator(text: str, at: int) -> tuple[str, int] | None:
    m = _OPERATOR.match(text, at)
    if m is None:
        return None
    sign = m.group("op")
    if sign:
        return ("+" if sign == "+" else "*" if sign in "×*·xX" else "-"), m.end()
    return ("-" if m.group("word").casefold() in _MINUS_WORDS else "+"), m.end()


def _read(
    text: str, start: int, figs: dict[int, Figure], bare: regex.Pattern[str] = _COUNT
) -> list[object] | None:
    """Terms and operators from `start` to the end of `text`, or None where anything else
    stands."""
    out: list[object] = []
    at = start
    while True:
        term = _term(text, at, figs, bare)
        if term is None:
            return None
        out.append(term[0])
        at = term[1]
        if not text[at:].strip():
            return out
        op = _operator(text, at)
        if op is None:
            return None
        out.append(op[0])
        at = op[1]


def _evaluate(items: list[object], kind: str, unit: str, bare: bool = False) -> Decimal | None:
    """The value of terms and operators, × before + and −; a percentage added or taken off
    applies to what stands before it ("12,99 € − 20 %"), one multiplied is a share."""
    total = Decimal(0)
    product: Decimal | None = None
    sign = 1
    seen_kind = False
    for i in range(0, len(items), 2):
        term, op = items[i], items[i - 1] if i else "+"
        if isinstance(term, Figure):
            if term.kind == "percent" and isinstance(term.value, Decimal):
                rate = term.value / _HUNDRED
                if op == "*":
                    if product is None:
                        return None
                    product *= rate
                    continue
                if i == 0 or product is None:
                    return None
                base = total + sign * product
                total, product, sign = base * (1 + rate if op == "+" else 1 - rate), Decimal(0), 1
                continue
            if (term.kind, term.unit) != (kind, unit) or not isinstance(term.value, Decimal):
                return None
            value = term.value
            seen_kind = True
        else:
            assert isinstance(term, Decimal)
            value = term
        if op == "*" and product is not None:
            product *= value
        else:
            if product is not None:
                total += sign * product
            sign = -1 if op == "-" else 1
            product = value
    if product is not None:
        total += sign * product
    return total if seen_kind or bare else None


def equation_value(answer: str, fig: Figure, sign_at: int, lang: str | None) -> Decimal | None:
    """What the equation written before the result sign at `sign_at` (the sign of the
    figure `fig`) works out to: its terms are the longest run of figures and operators
    that ends at the sign, with at least one operator. None when none is written there, or
    its terms are of another kind than the result."""
    items = _left_items(answer, fig, sign_at, lang)
    return _evaluate(items, fig.kind, fig.unit) if items is not None else None


def bare_equation(
    answer: str, fig: Figure, sign_at: int, lang: str | None
) -> tuple[Decimal, list[Decimal]] | None:
    """An equation of bare numbers before a duration or count ("46 − 40 = 6 hours"): its
    value and its terms, for the caller to hold to what the answer sourced. None when the
    equation has any figure in it, or none is written there."""
    if fig.kind not in ("duration", "count"):
        return None
    items = _left_items(answer, fig, sign_at, lang)
    if items is None or any(isinstance(t, Figure) for t in items[::2]):
        return None
    value = _evaluate(items, fig.kind, fig.unit, bare=True)
    terms = [t for t in items[::2] if isinstance(t, Decimal)]
    return (value, terms) if value is not None else None


def _left_items(answer: str, fig: Figure, sign_at: int, lang: str | None) -> list[object] | None:
    """The terms and operators of the equation that ends at the result sign."""
    if fig.kind not in ("money", "duration", "count") or not isinstance(fig.value, Decimal):
        return None
    # The figure is the whole right side: not a term of a sum that goes on ("= 444 € +
    # 360 € = 804 €"), nor a later term of one.
    if _RIGHT_GAP.fullmatch(answer, sign_at + 1, fig.start) is None:
        return None
    after = MARKER.sub(" ", answer[fig.end : fig.end + 80])
    op = _operator(after, 0)
    if op is not None and _NUMBER_NEXT.match(after, op[1]) is not None:
        return None
    line_start = answer.rfind("\n", 0, sign_at) + 1
    # Citations blanked, offsets kept: the figures are found where they stand.
    left = MARKER.sub(lambda m: " " * len(m.group(0)), answer[line_start:sign_at])
    figs = {f.start: f for f in parse_figures(left, lang)}
    # The run starts at a term: try each place a term may start, leftmost first, and keep
    # the first that reads whole to the sign.
    starts = sorted({*figs, *(m.start() for m in _COUNT.finditer(left))})
    for start in starts:
        if any(f.start < start < f.end for f in figs.values()):
            continue
        items = _read(left, start, figs)
        if items is None or len(items) < 3:
            continue
        return items
    return None


def holds(value: Decimal, fig: Figure) -> bool:
    """Whether the written result is the equation's value, rounded as people round."""
    assert isinstance(fig.value, Decimal)
    return abs(value - fig.value) <= max(_CENT, abs(value) / 1000)


# A result given first with its working in brackets after it: "204,40 € (4 × 51,10 €)",
# "ventitré euro e quaranta per la prima box (19,50 + 3,90)": a few words may come between.
_BRACKETED = regex.compile(
    r"[^\S\n]*(?:\[[^\]\n]*\][^\S\n]*)*(?:[\p{L}'’]+[^\S\n]+){0,5}?\(([^()\n]{3,120})\)"
)


def bracketed_value(answer: str, fig: Figure, lang: str | None) -> Decimal | None:
    """What the working in brackets right after the figure works out to, or None when no
    working stands there; its amounts may stand bare ("15,50 € (18 − 2,50)")."""
    if fig.kind not in ("money", "duration", "count") or not isinstance(fig.value, Decimal):
        return None
    read = _bracketed_items(answer, fig.end, lang)
    if read is None or len(read[1]) < 3:
        return None
    return _evaluate(read[1], fig.kind, fig.unit, bare=True)


def inside_working(answer: str, fig: Figure, figs: list[Figure], lang: str | None) -> bool:
    """Whether the figure is a term of a working in brackets whose value is a figure its
    sentence gives before the bracket ("20 € in più rispetto a quanto ti avevo detto
    (239 € − 219 €)"): a step of the answer's own arithmetic, no claim."""
    if fig.kind not in ("money", "duration", "count"):
        return False
    opened, closed = answer.rfind("(", 0, fig.start), answer.find(")", fig.end)
    if (
        opened < 0
        or closed < 0
        or ")" in answer[opened : fig.start]
        or "(" in answer[fig.end : closed]
    ):
        return False
    read = _bracketed_items(answer, opened, lang)
    if read is None or len(read[1]) < 3:
        return False
    value = _evaluate(read[1], fig.kind, fig.unit, bare=True)
    if value is None:
        return False
    start = max((m.end() for m in SENTENCE_END.finditer(answer, 0, opened)), default=0)
    return any(
        start <= g.start
        and g.end <= opened
        and (g.kind, g.unit) == (fig.kind, fig.unit)
        and isinstance(g.value, Decimal)
        and holds(value, g)
        for g in figs
    )


# "6 giorni (16 − 10 = 6)": a working in brackets may end with its result again.
_RESULT_AGAIN = regex.compile(r"\s*=\s*[€$£]?\s?\d[\d.,]*\s*(?:[€$£%]|\p{L}{1,12})?\s*$")


def _bracketed_items(
    answer: str, end: int, lang: str | None
) -> tuple[regex.Match[str], list[object]] | None:
    """The working in brackets right after `end` (a few words may come between), read as
    terms and operators, its amounts bare or not; None when none stands there."""
    m = _BRACKETED.match(answer, end)
    if m is None:
        return None
    inner = MARKER.sub(lambda c: " " * len(c.group(0)), m.group(1)).rstrip(" =")
    inner = _RESULT_AGAIN.sub("", inner)
    figs = {f.start: f for f in parse_figures(inner, lang)}
    items = _read(inner, _SPACE.match(inner).end(), figs, BARE_AMOUNT)  # type: ignore[union-attr]
    return None if items is None else (m, items)


def compared_in_working(answer: str, fig: Figure, figs: list[Figure], lang: str | None) -> bool:
    """Whether the figure is one of the two terms of a difference worked in brackets after
    an earlier figure ("5,50 € more a month (64,50 € − 59 €)"): named to compare an old
    figure with the current one, not claimed as current."""
    for before in figs:
        if before.end > fig.start or before.kind not in ("money", "duration", "count"):
            continue
        read = _bracketed_items(answer, before.end, lang)
        if read is None or not read[0].start(1) <= fig.start < read[0].end(1):
            continue
        if len(read[1]) == 3 and read[1][1] == "-":
            return True
    return False


# "10 % of 49,50 € is 4,95 €" in the languages read: a share worked out in words.
_SHARE_OF = regex.compile(
    r"\s*(?:of|van|di|del|della|dello|sul|sullo|sulla|von|vom|de|du|des|do|da|af)"
    r"(?:\s+(?:the|het|de|il|lo|la|los|las|le|les|o|a|den|der|die|das|dem))?\s*$",
    regex.IGNORECASE,
)
_SHARE_IS = regex.compile(
    r"^(?:\s*\[[^\]\n]*\])*\s*,?\s*(?:is|are|makes|gives|bedraagt|geeft|maakt|è|sono|fa|fanno|ist|"
    r"sind|macht|ergibt|beträgt|est|font|fait|soit|donne|es|son|da|hace|é|são|dá|fica|er|giver|"
    r"bliver)(?:\s+(?:dus|also|quindi|so|donc|así|então|altså|then|dann|dan|allora))?\s*[=:]?\s*$",
    regex.IGNORECASE,
)


def share_in_words(
    answer: str, fig: Figure, start: int, lang: str | None
) -> tuple[Figure, Figure] | None:
    """The percentage and the amount of a share said in words right before the figure ("10 %
    van 49,50 € is 4,95 €", "il 20 % di 24,90 € fa 4,98 €"), when the figure is that share;
    None otherwise."""
    if fig.kind != "money" or not isinstance(fig.value, Decimal):
        return None
    before = parse_figures(answer[start : fig.start], lang)
    if len(before) < 2:
        return None
    rate, base = before[-2], before[-1]
    if rate.kind != "percent" or (base.kind, base.unit) != (fig.kind, fig.unit):
        return None
    text = answer[start : fig.start]
    if _SHARE_OF.search(text[rate.end : base.start]) is None:
        return None
    if _SHARE_IS.match(text[base.end :]) is None:
        return None
    assert isinstance(rate.value, Decimal) and isinstance(base.value, Decimal)
    if not holds(base.value * rate.value / _HUNDRED, fig):
        return None
    # Offsets in the whole answer, as the inputs they are compared with stand.
    return tuple(  # type: ignore[return-value]
        replace(f, start=f.start + start, end=f.end + start) for f in (rate, base)
    )
