"""What else in a text tells a figure's subject: the sentence a pronoun points back to, the
first figure of its kind in a sentence (the one a name before the figures names), and the
words of a computation after a figure, which say nothing of what it is about."""

from __future__ import annotations

import regex

from evals.checks.clauses import sentence_at
from evals.checks.figure_items import clause_of
from evals.checks.language import detect
from evals.checks.lexicon import FALLBACK, lexicon
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

_WORDS = regex.compile(r"[\p{L}\p{N}]+")


def antecedent(text: str, fig: Figure, lang: str | None, synonyms: Synonyms) -> frozenset[str]:
    """The content words of the sentence before the figure's when the figure's clause names
    its subject with a pronoun ("En France, la franchise est de 1 200 €. Pour les moins de
    25 ans, elle est de 1 700 €": the 1 700 € is the franchise's too)."""
    reading = lang or detect(text) or FALLBACK
    pronouns = lexicon(reading).pronouns
    clause = clause_of(text, fig.start)
    if not pronouns or not pronouns & {w.casefold() for w in _WORDS.findall(clause)}:
        return frozenset()
    before = [s for start, s in sentences(text) if start + len(s) <= fig.start]
    if not before:
        return frozenset()
    return frozenset(content(tokens(before[-1], reading, synonyms), reading))


def first_of_kind(answer: str, fig: Figure, lang: str | None) -> bool:
    """Whether the figure is the first of its kind in its sentence."""
    where = sentence_at(answer, fig.start)
    at = answer.find(where)
    return not any(
        (f.kind, f.unit) == (fig.kind, fig.unit) and at <= f.start < fig.start
        for f in parse_figures(answer, lang)
    )


# After a figure, its citations, then a sign of arithmetic: "129 € [doc:a] × 3 meses = 387 €".
_ARITHMETIC_AFTER = regex.compile(r"(?:\s*\[[^\]\n]*\])*\s*[×x*·+−=](?=\s)")


def computation_cut(answer: str, fig: Figure) -> str:
    """The answer with what follows the figure blanked to its line's end when arithmetic
    follows it: the count it is multiplied by and the result are the computation's words,
    not what the figure is about (offsets kept)."""
    m = _ARITHMETIC_AFTER.match(answer, fig.end)
    if m is None:
        return answer
    end = answer.find("\n", fig.end)
    end = len(answer) if end < 0 else end
    return answer[: fig.end] + " " * (end - fig.end) + answer[end:]
