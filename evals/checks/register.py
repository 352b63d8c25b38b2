"""How the answer addresses the customer: formally ("vous", "u", "Sie", "Lei", "usted") or not
("tu", "je", "du", "tu", "tú"). A prompt that asks for the formal address is broken by an
answer that opens with "Salut ! Le transfert de ton numéro ...", and no fact or figure
says so.

The register a case expects is `expect.register`, else the one its own correct drafts
use (the `reference` and `known_right` drafts, every one that addresses the customer at
all in the same register): a case whose reference writes "votre numéro" expects "vous".
Each language's pronouns are data (`[register]` in languages/*.toml); a pronoun that is
formal only when capitalised inside a sentence (German "Sie", Italian "Lei", Danish "De")
is counted only so. English has one form: the check never applies to it.

Measured before it was kept: on every correct labelled answer of the five suites it fails
none; it fails the two wrong answers written in the other register.
"""

from __future__ import annotations

from functools import cache, lru_cache

import regex

from evals.checks.base import CheckInput, CheckResult, check, failed, passed, skipped, undecided
from evals.checks.language import detect
from evals.checks.lexicon import lexicon
from evals.checks.matching import MARKER
from evals.checks.prompt_register import prompt_register
from evals.suite.case import Case

REGISTERS = ("formal", "informal")


def _alt(words: tuple[str, ...]) -> str:
    body = "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
    # A word, not part of one ("tu" in "tutto", "u" in "u-bocht" is still "u": hyphens
    # are no letters, but an apostrophe before is: "l'u" is none).
    return rf"(?<![\p{{L}}'’])(?:{body})(?![\p{{L}}])" if body else r"(?!)"


@cache
def _patterns(lang: str) -> tuple[regex.Pattern[str], regex.Pattern[str], regex.Pattern[str]]:
    """The language's formal, informal and capitalised-formal patterns, compiled once."""
    reg = lexicon(lang).register
    capitalised = (
        # Inside a sentence: after a word (or a comma) and a space, never at its start.
        rf"(?<=[\p{{L}}\p{{N}},]\s+)(?:{'|'.join(map(regex.escape, reg.formal_capitalised))})"
        r"(?![\p{L}])"
        if reg.formal_capitalised
        else r"(?!)"
    )
    return (
        regex.compile(_alt(reg.formal), regex.IGNORECASE),
        regex.compile(_alt(reg.informal), regex.IGNORECASE),
        regex.compile(capitalised),
    )


def has_register(lang: str | None) -> bool:
    """Whether the language tells a formal from an informal address."""
    reg = lexicon(lang).register
    return bool(lang) and lexicon(lang).lang == lang and bool(reg.informal)


@lru_cache(maxsize=4096)
def address(text: str, lang: str) -> tuple[int, int]:
    """How often the text addresses the customer formally and informally."""
    plain = MARKER.sub(" ", text)
    formal, informal, capitalised = _patterns(lang)
    n_formal = len(formal.findall(plain)) + len(capitalised.findall(plain))
    return n_formal, len(informal.findall(plain))


def register_of(text: str, lang: str) -> str | None:
    """ "formal" or "informal" when the text addresses the customer one way only."""
    n_formal, n_informal = address(text, lang)
    if n_formal and not n_informal:
        return "formal"
    if n_informal and not n_formal:
        return "informal"
    return None


def _drafts(case: Case) -> tuple[str, ...]:
    ref = case.data.get("reference")
    right = case.data.get("known_right") or []
    out = [ref] if isinstance(ref, str) else []
    out += [d.get("draft") for d in right if isinstance(d, dict)]
    return tuple(d for d in out if isinstance(d, str) and d.strip())


def expected_register(case: Case, lang: str | None, prompt: str = "") -> tuple[str, str] | None:
    """The register the case expects and where it says so: `expect.register`, else the
    one all its correct drafts that address the customer use, else the one the suite's
    prompt asks for in the language. None when none says."""
    want = case.expect.get("register")
    if want in REGISTERS:
        return str(want), "expect.register"
    if not lang or not has_register(lang):
        return None
    used = _drafts_register(_drafts(case), lang)
    if used:
        return used, "the case's reference"
    asked = prompt_register(prompt, lang)
    return (asked, "prompt.txt") if asked else None


def case_language(case: Case) -> str | None:
    """The case's language: `expect.language`, else the one its customer writes in."""
    lang = case.expect.get("language")
    if isinstance(lang, str):
        return lang
    texts = list(case.user_texts) if _texts_ok(case) else []
    return detect(" ".join(texts)) if texts else None


def implied(case: Case) -> bool:
    """Whether the case expects a register (for the implied checks): read safely from a
    case that may not have validated (a question that is no string)."""
    if case.expect.get("register") in REGISTERS:
        return True
    return expected_register(case, case_language(case)) is not None


def _texts_ok(case: Case) -> bool:
    try:
        return all(isinstance(t, str) for t in case.user_texts)
    except (TypeError, AttributeError, KeyError):
        return False


@lru_cache(maxsize=4096)
def _drafts_register(drafts: tuple[str, ...], lang: str) -> str | None:
    used = {register_of(d, lang) for d in drafts} - {None}
    return used.pop() if len(used) == 1 else None


@check()
def address_register(inp: CheckInput) -> CheckResult:
    """The answer addresses the customer in the register the case expects: one that uses
    only the other register fails, unless it is the one prompt.txt asks for (the case and
    the prompt disagree); one that uses both is undecided."""
    lang = inp.lang
    want = expected_register(inp.case, lang, inp.settings.prompt)
    if want is None or not lang:
        return skipped(
            "no register expected (expect.register, the reference's address or prompt.txt)"
        )
    register, source = want
    if not has_register(lang):
        return skipped(f"the case's language ({lang}) has one form of address")
    n_formal, n_informal = address(inp.answer, lang)
    right, wrong = (n_formal, n_informal) if register == "formal" else (n_informal, n_formal)
    other = REGISTERS[1 - REGISTERS.index(register)]
    if wrong and not right:
        asked = prompt_register(inp.settings.prompt, lang)
        if asked == other:
            # The case and the prompt disagree (`invoke validate` warns of it): an answer
            # that follows the prompt may be the right one, and a person decides.
            return undecided(
                f"addresses the customer {other}ly, as prompt.txt asks in {lang}, but "
                f"{source} is {register}: the case and the prompt disagree"
            )
        return failed(f"addresses the customer {other}ly; {source} is {register}")
    if wrong:
        return undecided(f"addresses the customer both {register}ly and {other}ly")
    return passed(f"no {other} address ({source} is {register})")
