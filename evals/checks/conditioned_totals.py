"""A worked total that adds in an amount a passage charges only under a condition: "30 € +
50 € = 80 €" where the passage says "if the next customer loses the booking, a fee of 50 €
is added", for a customer who is only late."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import MARKER, content, tokens
from evals.checks.retired import quoted
from evals.checks.text import phrase_pattern, sentences
from evals.checks.unmarked import figures_between, unmarked_figures
from evals.checks.values import Figure, parse_figures
from evals.checks.worked import term_of_sum


@lru_cache(maxsize=16)
def _if_cues(lang: str) -> regex.Pattern[str]:
    """What opens a condition a passage attaches to an amount ("if", "se", "only"): the
    language's condition words that are also cues of one."""
    lex = lexicon(lang)
    # Not a pronoun a hyphen joins to its verb ("soma-se", "dá-se").
    return phrase_pattern(tuple(sorted(set(lex.conditional) & set(lex.provided))), True)


@lru_cache(maxsize=16)
def _any_cue(lang: str) -> regex.Pattern[str]:
    lex = lexicon(lang)
    return phrase_pattern(tuple(sorted({*lex.conditional, *lex.provided})), True)


def _condition_words(sentence: str, cue: regex.Match[str], lang: str) -> set[str]:
    """The content words of the condition a cue opens: to the next comma or the end."""
    rest = sentence[cue.end() :]
    comma = rest.find(",")
    return content(tokens(rest if comma == -1 else rest[:comma], lang), lang)


def summed_without_condition(
    answer: str, passages: tuple[str, ...], ticket: str, lang: str | None
) -> list[tuple[str, str]]:
    """The answer's sentences that add into a worked total ("30 € + 50 € = 80 €") an amount
    the passage charges only under a condition ("Se o próximo cliente perder a reserva ...,
    acresce uma taxa de 50 €") that no sentence of the answer holding the amount states, and
    that neither the ticket nor the answer names in half its words: a total that counts a
    charge the customer's case may not incur. Each with the passage sentence. An answer
    that names half the condition's words while naming the charge ("with the lock" for "if
    the bike comes back without its lock") reads as stating it: a limit of the check.

    Measured before it was kept: on every labelled answer of the example suite and the
    suites under bench/suites/, three wrong answers and no correct one."""
    lang = lang or FALLBACK
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), answer)
    terms = [
        f for f in unmarked_figures(answer, lang) if f.kind == "money" and term_of_sum(plain, f)
    ]
    # The passages' amounts under a condition, read once per passage: most answers add up
    # none of them, and are not read further.
    conditioned = [c for p in passages for c in _conditioned_amounts(p, lang)]
    terms = [t for t in terms if any(t.same(c) for c, _, _ in conditioned)]
    if not terms:
        return []
    own = sentences(plain)
    said = content(tokens(f"{ticket}\n{plain}", lang), lang)
    out: list[tuple[str, str]] = []
    for term in terms:
        holding = [
            s
            for at, s in own
            if any(term.same(f) for f in figures_between(answer, lang, at, at + len(s)))
        ]
        if any(_any_cue(lang).search(s) for s in holding):
            continue
        hit = next(
            (
                text
                for c, words, text in conditioned
                # A condition in another language than the answer cannot be read in its
                # words ("If you cancel within the minimum term" for "je zit op 4").
                if term.same(c)
                and detect(text) in (None, lang)
                and len(words & said) * 2 < len(words)
            ),
            None,
        )
        if hit is not None:
            where = next((s for at, s in own if at <= term.start < at + len(s)), plain)
            out.append((quoted(where), hit))
    return out


@lru_cache(maxsize=1024)
def _conditioned_amounts(passage: str, lang: str) -> tuple[tuple[Figure, frozenset[str], str], ...]:
    """Each amount a passage sentence states under a condition (an `_if_cues` word), with the
    content words of that condition and the sentence."""
    out = []
    for _, theirs in sentences(passage):
        reading = detect(theirs) or lang
        cue = _if_cues(reading).search(theirs)
        if cue is None:
            continue
        words = frozenset(_condition_words(theirs, cue, reading))
        if not words:
            continue
        for f in parse_figures(theirs, reading):
            if f.kind == "money":
                out.append((f, words, theirs.strip()))
    return tuple(out)
