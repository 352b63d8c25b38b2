"""The register a suite's prompt asks for in each language: `Italian with "Lei"`, `Dutch:
informal "je"`, `addressing them formally (você, Lei, u, usted, vous, Sie; in Danish "du")`.

A prompt names the pronoun to use, in quotes or brackets, mostly after the language's name.
A pronoun is read as that language's (from its `[register]` lists in languages/*.toml) when
a language name stands just before it, else as the one language whose lists hold it; a
quoted sentence (a hand-over line to copy) is no list of pronouns and says nothing. A
language the prompt names both ways, or not at all, has no register from the prompt.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.lexicon import SUPPORTED, lexicon

# How prompts name the languages they set a register for, in English and in their own words.
LANGUAGE_NAMES: dict[str, tuple[str, ...]] = {
    "da": ("Danish", "dansk"),
    "de": ("German", "Deutsch"),
    "en": ("English",),
    "es": ("Spanish", "español", "castellano"),
    "fr": ("French", "français"),
    "it": ("Italian", "italiano"),
    "nl": ("Dutch", "Nederlands", "Flemish"),
    "pt": ("Portuguese", "português"),
}
_NAME = regex.compile(
    r"(?<![\p{L}])(?:"
    + "|".join(regex.escape(n) for names in LANGUAGE_NAMES.values() for n in names)
    + r")(?![\p{L}])",
    regex.IGNORECASE,
)
# A quoted or bracketed stretch of one line: where a prompt writes the pronouns to use.
_SEGMENT = regex.compile(r"[\"“„«]([^\"“”„«»\n]{1,80})[\"”“»]|\(([^()\n]{1,120})\)")
_WORD = regex.compile(r"[\p{L}’']+")
# A stretch this short is a pronoun's phrasing ("você / o senhor, a senhora"), not a sentence.
_SHORT = 5
# How far before a pronoun its language's name may stand ("Portuguese formal (").
_REACH = 24


def _language_of(name: str) -> str:
    folded = name.casefold()
    return next(k for k, names in LANGUAGE_NAMES.items() if folded in map(str.casefold, names))


def _registers_of(word: str) -> dict[str, str]:
    """The languages whose pronoun lists hold `word`, each with the register it marks (the
    capitalised formal pronouns only as written: "Sie", not "sie")."""
    out = {}
    for lang in SUPPORTED:
        reg = lexicon(lang).register
        if word in reg.formal_capitalised or word.casefold() in reg.formal:
            out[lang] = "formal"
        elif word.casefold() in reg.informal:
            out[lang] = "informal"
    return out


@lru_cache(maxsize=64)
def prompt_registers(prompt: str) -> dict[str, str]:
    """Each language's register the prompt asks for: "formal" or "informal"."""
    said: dict[str, set[str]] = {}
    for m in _SEGMENT.finditer(prompt):
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        start = m.start(1) if m.group(1) is not None else m.start(2)
        words = list(_WORD.finditer(inner))
        marks = [(w, _registers_of(w.group(0))) for w in words]
        pronouns = sum(1 for _, r in marks if r)
        if not pronouns or (len(words) > _SHORT and pronouns * 2 < len(words)):
            continue  # a sentence to copy, not a list of pronouns
        for w, regs in marks:
            if not regs:
                continue
            at = start + w.start()
            names = list(_NAME.finditer(prompt, max(0, at - _REACH), at))
            if names:
                lang = _language_of(names[-1].group(0))
                if lang in regs:
                    said.setdefault(lang, set()).add(regs[lang])
            elif len(regs) == 1:
                ((lang, register),) = regs.items()
                said.setdefault(lang, set()).add(register)
    return {lang: next(iter(r)) for lang, r in said.items() if len(r) == 1}


def prompt_register(prompt: str, lang: str | None) -> str | None:
    """The register the prompt asks for in `lang`, if it names one."""
    return prompt_registers(prompt).get(lang) if prompt and lang else None
