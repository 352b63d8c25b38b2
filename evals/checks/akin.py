"""A fact's words in the answer in another form: an inflection Snowball leaves apart
("sospendere" sospend, "sospensione" sospension) or a part of a compound ("vergoeding" in
"opzegvergoeding", "Gebühr" in "Grundgebühr"). Used only to send a fact that is not stated as
written to review, never to pass one."""

from __future__ import annotations

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import MARKER, NEG, Synonyms, content, tokens
from evals.checks.text import normalise

#: The shortest stem read as akin to another, and as a part of a compound.
MIN_STEM = 5
#: Letters a shared start may leave over at the end of the shorter stem.
SLACK = 2


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def akin(a: str, b: str) -> bool:
    """One word in another form: equal, or sharing all but the last `SLACK` letters of the
    shorter stem (at least `MIN_STEM` letters), or the shorter stem ending or starting the
    longer (a compound's part)."""
    if a == b:
        return True
    if a.isdigit() or b.isdigit():
        return False
    short, long = sorted((a, b), key=len)
    if len(short) < MIN_STEM:
        return False
    if _common(a, b) >= max(MIN_STEM, len(short) - SLACK):
        return True
    return long.endswith(short) or long.startswith(short)


def akin_found(
    answer: str, phrase: str, *, lang: str | None = None, synonyms: Synonyms = ()
) -> dict[str, str]:
    """The phrase's content words found in the answer in some form, each with the answer's
    stem that stands for it (for quoting the answer's own word)."""
    lang = lang or detect(answer) or FALLBACK
    said = content(tokens(answer, lang, synonyms), lang)
    out: dict[str, str] = {}
    for w in content(tokens(phrase, lang, synonyms), lang):
        hit = w if w in said else next((s for s in sorted(said) if akin(w, s)), None)
        if hit is not None:
            out[w] = hit
    return out


def bare_negation(phrasings: tuple[str, ...], lang: str | None) -> bool:
    """Whether a fact is only a "no" ("no", "nee", "niet"): every phrasing a negation and
    nothing else."""
    return all(tokens(p, lang) and all(w == NEG for w in tokens(p, lang)) for p in phrasings)


_NOT_A_WORD = regex.compile(r"[^\p{L}\p{N} ]+")


def opens_with_yes(answer: str, lang: str | None) -> bool:
    """Whether the answer's first words say yes ("Sì, puoi passare", "Ja hoor", "Of course")."""
    lang = lang or detect(answer) or FALLBACK
    head = " ".join(normalise(MARKER.sub(" ", answer)).split()[:4])
    head = _NOT_A_WORD.sub(" ", head)
    words = f" {' '.join(head.split())} "
    return any(words.startswith(f" {a} ") for a in lexicon(lang).affirmatives)
