"""Bare hours read as clock times: "dalle 8 alle 22" is 8:00 to 22:00, "van zeven uur 's
ochtends tot elf uur 's avonds" 7:00 to 23:00, "von 8 bis 18 Uhr" 8:00 to 18:00, "um 8 Uhr
abends" 20:00.

A bare number is an hour only where the text says so: a range whose prepositions name
hours by themselves (Italian "dalle ... alle", Spanish "de las ... a las"), a range with an
hour word or a clock time at one end ("van 7 tot 23 uur", "from 9 to 17:30"), or "at" and an
hour word ("om 7 uur"). "From 8 to 10 seats" and "48 uur" stay what they are. The words are
each language's own (`[figures.clock]` in checks/languages/*.toml).
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.lexicon import FALLBACK, lexicon

_HOUR = r"(?P<{0}h>[01]?\d|2[0-4])(?::(?P<{0}m>[0-5]\d))?"


def _alt(words: tuple[str, ...]) -> str:
    """Alternatives for phrases, longest first, any whitespace between words."""
    out = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(regex.escape(w) for w in p.split()) for p in out) or "(?!)"


@lru_cache(maxsize=16)
def _patterns(lang: str) -> tuple[regex.Pattern[str], regex.Pattern[str], regex.Pattern[str]]:
    """The range, the single hour and the evening pattern of `lang` (compiled once)."""
    words = lexicon(lang).clock
    marks = words.get("marks", ())
    start = _alt((*words.get("from", ()), *marks))
    to = _alt((*words.get("to", ()), *marks))
    oclock, at = _alt(words.get("oclock", ())), _alt(words.get("at", ()))
    edge = r"(?<![\p{L}\p{N}])"
    # Nor a malformed time ("18:1"): a colon and a digit after the hour end no hour.
    end = r"(?![\p{L}\p{N}]|[.,:]\d)"
    rng = regex.compile(
        rf"{edge}(?P<from>{start})\s+{_HOUR.format('a')}(?:\s*(?P<ao>{oclock}){end})?"
        rf"(?P<aeve>\s+\S+(?:\s+\S+)?)?"
        rf"\s+(?P<to>{to})\s+{_HOUR.format('b')}{end}(?:\s*(?P<bo>{oclock}){end})?",
        regex.IGNORECASE,
    )
    single = regex.compile(
        rf"{edge}(?:{at})\s+{_HOUR.format('c')}\s*(?:{oclock}){end}", regex.IGNORECASE
    )
    marked = f"(?:{_alt(marks)})" if marks else "(?!)"
    eve = regex.compile(
        rf"\s*(?:{_alt(words.get('evening', ()))})(?![\p{{L}}])|(?P<marks>{marked})",
        regex.IGNORECASE,
    )
    return rng, single, eve


def _minutes(hour: str, minute: str | None, text: str, end: int, eve: regex.Pattern[str]) -> int:
    """The hour in minutes past midnight, past noon when an evening word follows it."""
    h = int(hour)
    m = eve.match(text, end)
    if m is not None and not m.group("marks") and 1 <= h < 12:
        h += 12
    return (h % 24) * 60 + int(minute or 0)


@lru_cache(maxsize=4096)
def hours(text: str, lang: str | None) -> tuple[tuple[int, int, int], ...]:
    """The bare hours of `text` that are clock times: (start, end, minutes past midnight)."""
    rng, single, eve = _patterns(lang or FALLBACK)
    marks = set(lexicon(lang or FALLBACK).clock.get("marks", ()))
    out: list[tuple[int, int, int]] = []
    for m in rng.finditer(text):
        said = (
            _fold(m.group("from")) in marks
            or _fold(m.group("to")) in marks
            or m.group("ao")
            or m.group("bo")
            or m.group("am")
            or m.group("bm")
        )
        if not said:
            continue
        a_end = m.end("ao") if m.group("ao") else m.end("am") if m.group("am") else m.end("ah")
        b_end = m.end("bo") if m.group("bo") else m.end("bm") if m.group("bm") else m.end("bh")
        out.append((m.start("ah"), a_end, _minutes(m.group("ah"), m.group("am"), text, a_end, eve)))
        out.append((m.start("bh"), b_end, _minutes(m.group("bh"), m.group("bm"), text, b_end, eve)))
    for m in single.finditer(text):
        if not any(a <= m.start("ch") < b for a, b, _ in out):
            out.append(
                (m.start("ch"), m.end(), _minutes(m.group("ch"), m.group("cm"), text, m.end(), eve))
            )
    return tuple(sorted(out))


def evening_after(text: str, end: int, lang: str | None) -> bool:
    """Whether an evening word follows the hour that ends at `end` ("8 Uhr abends")."""
    m = _patterns(lang or FALLBACK)[2].match(text, end)
    return m is not None and not m.group("marks")


def _fold(words: str) -> str:
    return " ".join(words.casefold().split())
