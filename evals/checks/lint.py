"""Expectations that are brittle in known ways: warnings for `invoke validate`, not errors.

Each finding is something the labelled answers of many suites have shown to fail correct
answers or pass wrong ones: a bare number as a fact, a whole sentence as a fact, a
forbidden phrase the case's own passages or reference contain, a figure written as a fact.
"""

from __future__ import annotations

import regex
from stop_words import LANGUAGE_MAPPING

from evals.checks.clauses import claims
from evals.checks.expectations import items
from evals.checks.language import detect
from evals.checks.lexicon import SUPPORTED
from evals.checks.matching import tokens
from evals.checks.prompt_register import prompt_register
from evals.checks.register import case_language, expected_register
from evals.checks.things import archived
from evals.checks.values import contains_value, parse_one
from evals.errors import Problem
from evals.suite.case import Case

_BARE_NUMBER = regex.compile(r"^\s*[\d.,:\s]+\s*$")
# A regex that pins word order between words: a fact with alternatives says the same, tolerantly.
_WORD_ORDER = regex.compile(r"[A-Za-zÀ-ÿ]{3,}(?:\\s[+*?]|\s)+(?:\(\?:)?[A-Za-zÀ-ÿ]{3,}")
LONG_FACT_WORDS = 8
_RETIRED = regex.compile(
    r"\b(?:archived|retired|deprecated|archiviert|archivé|archivado|archiviato|archiviata|"
    r"gearchiveerd|arquivado|arquivada|arkiveret)\b",
    regex.I,
)


def _warning(path: str, pointer: str, message: str) -> Problem:
    """A brittle expectation, printed like a problem but marked as a warning."""
    return Problem(path, pointer, f"warning: {message}")


def unread_language(case: Case) -> Problem | None:
    """A ticket in a language the checks do not read, with no `expect.language`: its answers
    would be read with English words, so `validate` says so."""
    if case.expect.get("language"):
        return None
    text = " ".join(case.user_texts)
    everyone = tuple(sorted(LANGUAGE_MAPPING))
    got = detect(text, everyone)
    if got is None or got in SUPPORTED:
        return None
    return _warning(
        str(case.path),
        "/question",
        f"the ticket reads as {got!r}, which the checks do not read (supported: "
        f"{', '.join(SUPPORTED)}): its answers are read with English words",
    )


def register_conflict(case: Case, prompt: str) -> Problem | None:
    """A case that expects the other register than the one prompt.txt asks for in its
    language: a correct answer follows the prompt, so one of the two is a mistake."""
    lang = case_language(case)
    asked = prompt_register(prompt, lang)
    own = expected_register(case, lang)
    if asked is None or own is None or own[0] == asked:
        return None
    where = "/expect/register" if own[1] == "expect.register" else "/reference"
    return _warning(
        str(case.path),
        where,
        f"{own[1]} is {own[0]}, but prompt.txt asks for {asked} address in {lang}: an answer "
        "that follows the prompt fails address_register",
    )


def brittle(case: Case, prompt: str = "") -> list[Problem]:
    """Every brittle expectation of one case (`prompt`: the suite's prompt.txt)."""
    path = str(case.path)
    expect = case.expect
    out: list[Problem] = []
    unread = unread_language(case)
    if unread is not None:
        out.append(unread)
    conflict = register_conflict(case, prompt)
    if conflict is not None:
        out.append(conflict)
    for i, it in enumerate(items(expect.get("facts"))):
        where = f"/expect/facts/{i}"
        if all(parse_one(a) is not None and len(tokens(a)) <= 3 for a in it.alternatives):
            note = "is a figure: expect.figures matches it in every spelling (€45, EUR 45)"
            out.append(_warning(path, where, f"{it.label} {note}"))
        for alt in it.alternatives:
            if _BARE_NUMBER.match(alt):
                note = "is a bare number: it matches times, dates and prices; use expect.figures"
                out.append(_warning(path, where, f"{alt!r} {note}"))
            elif len(alt.split()) > LONG_FACT_WORDS:
                note = "is a whole sentence: an answer in other words misses it; shorten it"
                out.append(_warning(path, where, f"{alt!r} {note}, or list accepted phrasings"))
    for i, it in enumerate(items(expect.get("mentions"))):
        for pat in it.alternatives:
            if _WORD_ORDER.search(pat):
                out.append(
                    _warning(
                        path,
                        f"/expect/mentions/{i}",
                        f"pattern {pat!r} pins a word "
                        "order; a fact with accepted phrasings or a figure is sturdier",
                    )
                )
    # A retired passage states the wrong answer on purpose: that is the trap, not a brittleness.
    texts = {
        f"passage {r.get('ref')}": text
        for r in case.retrieved
        if not (_RETIRED.search((text := str(r.get("text") or ""))[:80]) or archived(text))
    }
    if isinstance(case.data.get("reference"), str):
        texts["the reference"] = case.data["reference"]
    for i, phrase in enumerate(expect.get("must_not_contain") or []):
        if not isinstance(phrase, str):
            continue
        for name, text in texts.items():
            if claims(text, phrase):
                out.append(
                    _warning(
                        path,
                        f"/expect/must_not_contain/{i}",
                        f"{phrase!r} is stated by {name}: a correct answer quoting it fails",
                    )
                )
                break
    # A forbidden figure that a current passage states: a correct answer that quotes it in the
    # passage's own role ("a minimum of 3,00 €") fails; forbid the claim it must not make.
    for i, text in enumerate(expect.get("forbidden_figures") or []):
        want = parse_one(text) if isinstance(text, str) else None
        if want is None:
            continue
        rest = text[want.end :].strip(" .,;:")
        if rest and want.kind != "day":
            # "1.000 € zurück": only the figure is read; the words after it are dropped.
            out.append(
                _warning(
                    path,
                    f"/expect/forbidden_figures/{i}",
                    f"only {text[: want.end].strip()!r} is read as the figure, not {rest!r}: "
                    "forbid a claim in words with must_not_contain",
                )
            )
        for name, passage in texts.items():
            if name.startswith("passage") and contains_value(passage, want):
                out.append(
                    _warning(
                        path,
                        f"/expect/forbidden_figures/{i}",
                        f"{text!r} is stated by {name}: a correct answer quoting it fails; "
                        "forbid the wrong claim instead (must_not_contain)",
                    )
                )
                break
    return out
