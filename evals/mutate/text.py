"""Text surgery for mutation: sentences, citations, typed figures, negation and names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.language import DEFAULT_LANGUAGES, month_names

# ---------------------------------------------------------------------------
# Figures with a kind, so that a price is swapped for a price and a time for a time.

# English month names and abbreviations, then every shipped language's month names from CLDR
# (four letters or more: "set" or "mar" alone are ordinary words in too many languages).
_MONTHS_EN = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
)


def _month_alternation() -> str:
    names = {n for lang in DEFAULT_LANGUAGES for n in month_names(lang) if len(n) >= 4}
    names -= set(_MONTHS_EN.replace("?", "").split("|"))
    return _MONTHS_EN + "|" + "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))


MONTHS = _month_alternation()
# A group of three after a space belongs to the same number: "2 000 €".
_NUM = r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,']\d+)*"
_CURRENCY = r"€|\$|£|eur\b|euros?\b|usd\b|gbp\b|chf\b|dollars?\b"
_UNITS = (
    r"days?|hours?|hrs?|h|minutes?|mins?|seconds?|secs?|weeks?|months?|years?|"
    r"seats?|users?|licen[cs]es?|gb|mb|tb|kb|km|kg|items?|shifts?|employees?|locations?|"
    r"admins?|projects?|accounts?|devices?|calls?|requests?|credits?|times|digits?|"
    r"tage?n?|stunden?|monate?n?|jahre?n?|wochen?|plätze?n?|mitarbeiter(?:innen)?|"
    r"arbeitstage?n?|werktage?n?|"
    r"jours?|heures?|mois|ans|semaines?|días?|dias?|horas?|meses|mes|años?|semanas?|anos?|"
    r"giorni|giorno|ore|ora|mesi|mese|settimane?|anni|anno|minuti|"
    r"dagen|dag|uur|uren|maanden|maand|weken|week|jaar|jaren|minuten|werkdagen|"
    r"dage|døgn|timer|time|måneder|måned|uger|uge|år"
)
_FIGURE = regex.compile(
    rf"(?P<date>\b\d{{4}}-\d{{2}}-\d{{2}}\b"
    rf"|\b\d{{1,2}}[./]\d{{1,2}}[./]\d{{2,4}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th|er|e|\.|°|º|ª)?\s(?:de\s)?(?:{MONTHS})\b\.?(?:\s(?:de\s)?\d{{4}}\b)?"
    rf"|\b(?:{MONTHS})\.?\s\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s\d{{4}}\b)?"
    rf"|\b(?:{MONTHS})\s\d{{4}}\b)"
    rf"|(?P<time>\b\d{{1,2}}:\d{{2}}(?:\s?[ap]\.?m\b\.?)?(?!\d)|\b\d{{1,2}}\s?[ap]\.?m\b\.?)"
    rf"|(?P<money>(?:[€$£]\s?(?:{_NUM}))|(?:\b(?:eur|usd|gbp|chf)\s?(?:{_NUM}))"
    rf"|(?:\b(?:{_NUM})\s?(?:{_CURRENCY})))"
    rf"|(?P<percent>\b(?:{_NUM})\s?(?:%|percent\b|per\scent\b|prozent\b|pour\s?cent\b|"
    rf"por\s?ciento\b))"
    rf"|(?P<qty>\b(?:{_NUM})(?:\s?|-)(?P<unit>{_UNITS})\b)"
    rf"|(?P<number>\b(?:{_NUM})\b)",
    regex.IGNORECASE,
)
_NUM_RE = regex.compile(_NUM)


@dataclass(frozen=True)
class Figure:
    """One figure found in a text: where, its kind (money, time, qty:day ...) and its value."""

    start: int
    end: int
    kind: str
    text: str
    value: str  # digits, trailing zero decimals dropped: "45.00 €" and "45 €" are one value


def figure_value(text: str) -> str:
    """The digits of every number in a figure, separators and zero decimals dropped."""
    nums = _NUM_RE.findall(text)
    joined = " ".join(re.sub(r"[.,]0+$", "", re.sub(r"[ \u00a0\u202f]", "", n)) for n in nums)
    return "".join(ch for ch in joined if ch.isdigit() or ch == " ")


def _unit_stem(unit: str) -> str:
    u = unit.casefold()
    return u[:-1] if len(u) > 2 and u.endswith("s") else u


@lru_cache(maxsize=4096)
def passage_figures(text: str) -> tuple[Figure, ...]:
    """Figures of a passage; cached because a suite's cases share their documents."""
    return tuple(find_figures(text))


def find_figures(text: str, skip: list[tuple[int, int]] | None = None) -> list[Figure]:
    """Typed figures in `text`, ignoring any that overlap a `skip` span (citations)."""
    if not any(ch.isdigit() for ch in text):
        return []
    out = []
    for m in _FIGURE.finditer(text):
        if skip and any(m.start() < e and s < m.end() for s, e in skip):
            continue
        kind = m.lastgroup or "number"
        if kind == "unit":  # the unit group closes last inside qty
            kind = "qty"
        if kind == "qty":
            kind = "qty:" + _unit_stem(m.group("unit"))
        out.append(Figure(m.start(), m.end(), kind, m.group(0), figure_value(m.group(0))))
    return out


def _bump_int(s: str, delta: int = 1) -> str:
    return str(int(s) + delta)


def nearby_figure(fig: Figure) -> str:
    """A plausible wrong value next to the right one: one more, an hour later, a day later."""
    if fig.kind == "time":
        m = re.match(r"(\d{1,2})(.*)", fig.text, re.S)
        assert m
        hour = int(m.group(1))
        limit = 12 if re.search(r"[ap]\.?m", fig.text, re.I) else 23
        new = hour + 1 if hour < limit else hour - 1
        return f"{new:0{len(m.group(1))}d}{m.group(2)}"
    if fig.kind == "date":
        m4 = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", fig.text)
        if m4:
            day = int(m4.group(3))
            new_day = day + 1 if day < 28 else day - 1
            return f"{m4.group(1)}-{m4.group(2)}-{new_day:02d}"
        m = re.search(r"\d{1,2}(?!\d)", fig.text)
        if m and not re.fullmatch(r"\d{4}", fig.text[m.start() : m.start() + 4]):
            day = int(m.group(0))
            new_day = day + 1 if day < 28 else day - 1
            return fig.text[: m.start()] + str(new_day) + fig.text[m.end() :]
        y = re.search(r"\d{4}", fig.text)
        assert y
        return fig.text[: y.start()] + _bump_int(y.group(0)) + fig.text[y.end() :]
    m = _NUM_RE.search(fig.text)
    assert m
    num = m.group(0)
    head = re.match(r"\d+", num)
    assert head
    # One more on the integer part keeps the format: 45 -> 46, 4.99 -> 5.99, 1,000 -> 2,000.
    return (
        fig.text[: m.start()] + _bump_int(head.group(0)) + num[head.end() :] + fig.text[m.end() :]
    )


def replace_value(fig: Figure, other: Figure) -> str:
    """`fig` rewritten to carry `other`'s value; amounts keep their own currency format."""
    if fig.kind in ("time", "date"):
        return other.text
    m, o = _NUM_RE.search(fig.text), _NUM_RE.search(other.text)
    assert m and o
    return fig.text[: m.start()] + o.group(0) + fig.text[m.end() :]


# ---------------------------------------------------------------------------
# Citations and sentences.


@dataclass(frozen=True)
class Citation:
    start: int
    end: int
    ref: str
    ref_start: int
    ref_end: int


def find_citations(text: str, cite: regex.Pattern[str]) -> list[Citation]:
    """Every citation in the text with its span and the span of the ref inside it."""
    out = []
    for m in cite.finditer(text, timeout=1.0):
        g = 1 if m.re.groups else 0
        out.append(Citation(m.start(), m.end(), m.group(g), m.start(g), m.end(g)))
    return out


def citation_template(pattern: str) -> str | None:
    """A `{ref}` template for citations, derived from the pattern's text when it is plain enough.

    `\\[doc:([^\\]\\s]+)\\]` gives `[doc:{ref}]`; a pattern with other operators gives None.
    """
    i, depth, start = 0, 0, -1
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[" and start != -1 and depth > 0:
            j = pattern.find("]", i + 2)  # a character class inside the group
            i = j + 1 if j != -1 else len(pattern)
            continue
        if ch == "(" and (start != -1 or not pattern.startswith("(?", i)):
            start = i if start == -1 else start
            depth += 1
        elif ch == ")" and start != -1:
            depth -= 1
            if depth == 0:
                outside = pattern[:start] + pattern[i + 1 :]
                if re.search(r"[()*+?|^$.\[\]{}]", re.sub(r"\\.", "", outside)):
                    return None
                parts = [re.sub(r"\\(.)", r"\1", p) for p in (pattern[:start], pattern[i + 1 :])]
                return (
                    parts[0].replace("{", "{{").replace("}", "}}")
                    + "{ref}"
                    + parts[1].replace("{", "{{").replace("}", "}}")
                )
        i += 1
    return None


def make_citation(
    ref: str, cites: list[Citation], answer: str, template: str | None, cite: regex.Pattern[str]
) -> str | None:
    """A citation of `ref` in the suite's format (copied from the answer, else the template)."""
    if cites:
        c = cites[0]
        text = answer[c.start : c.ref_start] + ref + answer[c.ref_end : c.end]
    elif template:
        text = template.format(ref=ref)
    else:
        return None
    m = cite.fullmatch(text)
    if not m or (m.group(1) if m.re.groups else m.group(0)) != ref:
        return None
    return text


_BOUNDARY = re.compile(r"[.!?]+(?=\s)|\n+")
_LIST_ITEM = re.compile(r"(?:^|\n)\s*\d{1,2}$")


def split_sentences(text: str, cites: list[Citation]) -> list[tuple[int, int]]:
    """Sentence spans covering `text`; a citation right after a full stop stays with its sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    cite_at = {c.start: c.end for c in cites}
    for m in _BOUNDARY.finditer(text):
        if m.start() < start:
            continue
        if m.group(0)[0] == "." and _LIST_ITEM.search(text, 0, m.start()):
            continue  # "1. Open settings" is a list item, not a sentence end
        end = m.end()
        # absorb citations that follow the full stop: "... 45 €. [doc:a] Next" keeps [doc:a]
        while True:
            ws = len(text[end:]) - len(text[end:].lstrip(" \t"))
            if end + ws in cite_at:
                end = cite_at[end + ws]
            else:
                break
        if text[start:end].strip():
            spans.append((start, end))
            start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


SEQUENCE = re.compile(
    r"(?im)^\s*(?:\d{1,2}[.)]|[-*•])\s|\b(?:first(?:ly)?|then|next|after that|afterwards|finally|"
    r"second(?:ly)?|step \d|zuerst|dann|danach|anschließend)\b"
)


# What `checks.normalise` treats as one character, so a fact the check finds is found here.
_SAME = {
    "'": "'\u2018\u2019\u201a\u201b\u2032",
    '"': '"\u201c\u201d\u201e\u201f\u00ab\u00bb',
    "-": "-\u2010\u2011\u2012\u2013\u2014\u2212",
}
_CLASS = {ch: f"[{re.escape(group)}]" for group in _SAME.values() for ch in group}
_INVISIBLE = "[\u00ad\u200b\u200c\u200d\u2060\ufeff]*"


@lru_cache(maxsize=4096)
def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A loose regex for locating a fact phrase in raw text, as tolerant as the facts check:
    case, whitespace, typographic quotes and dashes, invisible characters, "45 €" as "45€"."""
    text = " ".join(phrase.split())
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == " ":
            tight = (text[i - 1].isdigit() and text[i + 1] in "€$£%") or (
                text[i - 1] in "€$£" and text[i + 1].isdigit()
            )
            out.append(r"\s*" if tight else r"\s+")
        elif ch in _CLASS:
            out.append(_CLASS[ch])
        else:
            out.append(re.escape(ch) + (_INVISIBLE if ch.isalnum() else ""))
    return re.compile("".join(out), re.IGNORECASE)


# ---------------------------------------------------------------------------
# Edits the operators make.


def tidy(text: str) -> str:
    """Collapse the gaps a deletion leaves behind."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r" +([.,;:!?])", r"\1", text)
    return text.strip()


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Each (start, end) span replaced, the last first so earlier offsets stay valid."""
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text
