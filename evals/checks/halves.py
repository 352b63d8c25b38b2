""" "One and a half" in words: "anderhalf jaar", "eineinhalb Jahre", "un anno e mezzo", "a
year and a half". text2num reads none of them (and reads the "un" of "un anno e mezzo" as a
year alone), so each language's forms are written here, as the digits that replace them."""

from __future__ import annotations

from functools import lru_cache

import regex

# (pattern, replacement): the replacement may name the unit again, in the plural the
# duration words of the language read ("1,5 anni").
_HALVES: dict[str, tuple[tuple[str, str], ...]] = {
    "nl": (
        (r"anderhalf|anderhalve", "1,5"),
        # "2 en een half uur": a number of units and a half
        (r"(\d{1,3})\s+en\s+een\s+half\s+(uur|jaar|maand|dag|week)", r"\1,5 \2"),
    ),
    "de": ((r"(?:anderthalb|eineinhalb)e?", "1,5"),),
    "da": ((r"halvanden|halvandet", "1,5"),),
    "en": (
        (r"one\s+and\s+a\s+half", "1.5"),
        (r"an?\s+(year|month|week|day|hour)\s+and\s+a\s+half", r"1.5 \1s"),
        # "2 hours and a half", "2 and a half hours"
        (r"(\d{1,3})\s+(years|months|weeks|days|hours)\s+and\s+a\s+half", r"\1.5 \2"),
        (r"(\d{1,3})\s+and\s+a\s+half\s+(years|months|weeks|days|hours)", r"\1.5 \2"),
    ),
    "it": (
        (r"un\s+anno\s+e\s+mezzo", "1,5 anni"),
        (r"un\s+mese\s+e\s+mezzo", "1,5 mesi"),
        (r"un(?:'|\s+)ora\s+e\s+mezz[ao]", "1,5 ore"),
        (r"un\s+giorno\s+e\s+mezzo", "1,5 giorni"),
        # "2 ore e mezza", "3 anni e mezzo": a number of units and a half
        (r"(\d{1,3})\s+(ore|anni|mesi|giorni|settimane)\s+e\s+mezz[ao]", r"\1,5 \2"),
    ),
    "fr": (
        (r"un\s+an\s+et\s+demi", "1,5 ans"),
        (r"une\s+heure\s+et\s+demie", "1,5 heures"),
        (r"(\d{1,3})\s+(heures|ans|mois|jours)\s+et\s+demie?", r"\1,5 \2"),
    ),
    "es": (
        (r"un\s+año\s+y\s+medio", "1,5 años"),
        (r"una\s+hora\s+y\s+media", "1,5 horas"),
        (r"(\d{1,3})\s+(horas|años|meses|días)\s+y\s+medi[ao]", r"\1,5 \2"),
    ),
    "pt": (
        (r"um\s+ano\s+e\s+meio", "1,5 anos"),
        (r"uma\s+hora\s+e\s+meia", "1,5 horas"),
        (r"(\d{1,3})\s+(horas|anos|meses|dias)\s+e\s+mei[ao]", r"\1,5 \2"),
    ),
}


# A word part every form of a language's halves holds (case aside): a text without it
# (nearly every text) is not searched for them.
_NEEDLES: dict[str, str] = {
    "nl": "half",
    "de": "halb",
    "da": "halvand",
    "en": "half",
    "it": "mezz",
    "fr": "demi",
    "es": "medi",
    "pt": "mei",
}


@lru_cache(maxsize=16)
def _compiled(lang: str) -> tuple[tuple[regex.Pattern[str], str], ...]:
    return tuple(
        (regex.compile(rf"(?<![\p{{L}}])(?:{p})(?![\p{{L}}])", regex.IGNORECASE), r)
        for p, r in _HALVES.get(lang, ())
    )


def halves(text: str, lang: str | None) -> list[tuple[int, int, str]]:
    """The spans of `text` that say one and a half, each with its digits (no longer than
    the span)."""
    needle = _NEEDLES.get(lang or "en")
    if needle is not None and needle not in text.casefold():
        return []
    out = []
    for pattern, replacement in _compiled(lang or "en"):
        for m in pattern.finditer(text):
            digits = m.expand(replacement)
            if len(digits) <= m.end() - m.start():
                out.append((m.start(), m.end(), digits))
    return out
