"""The numbers beside a figure that tell figures of one kind apart: "9,50 € up to 10 kg",
"15 % from 200 parcels"; bands and tiers listed in one passage sentence are bound by them,
in any language ("kg" is "kg" in all of them)."""

from __future__ import annotations

import regex

from evals.checks.clauses import sentence_at
from evals.checks.figure_items import clause_of, subject_clause
from evals.checks.language import detect
from evals.checks.values import Figure, parse_figures

# A number beside a figure in its own item, with the word or sign after it: "9,50 € up to
# 10 kg", "15 % from 200 parcels". Figures of one kind listed for several bands or tiers are
# told apart by them, in any language ("kg" is "kg" in all of them).
_QUALIFIER = regex.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*([\p{L}%]{1,3})?")


def _qualifiers(text: str, fig: Figure, lang: str | None) -> frozenset[str]:
    """The numbers that stand beside `fig` in its own item, each with the start of the unit
    that follows it ("10kg"); the figure and the others of its kind are what is told apart,
    not what tells."""
    item = subject_clause(text, fig, lang)
    offset = text.find(item) if item else -1
    for peer in parse_figures(text, lang):
        if (peer.kind, peer.unit) == (fig.kind, fig.unit) and offset >= 0:
            a, b = peer.start - offset, peer.end - offset
            if a >= 0 and b <= len(item):
                item = item[:a] + " " * (b - a) + item[b:]
    # The figure's own number and its peers' (where the item could not be blanked) tell
    # nothing, nor does a count after a times sign ("129 € × 3 meses"): it multiplies.
    peers = {
        _plain(m.group(1))
        for f in parse_figures(text, lang)
        if (f.kind, f.unit) == (fig.kind, fig.unit)
        for m in _QUALIFIER.finditer(f.text)
    }
    out = set()
    for m in _QUALIFIER.finditer(item):
        number = _plain(m.group(1))
        if number in peers or _TIMES.search(item, max(0, m.start() - 3), m.start()):
            continue
        out.add(number + (m.group(2) or "").lower()[:2])
    return frozenset(out)


def _plain(number: str) -> str:
    number = number.replace(",", ".")
    return number.rstrip("0").rstrip(".") if "." in number else number


_TIMES = regex.compile(r"[×x*·]\s*$")


def qualified(
    answer: str,
    fig: Figure,
    passage: str,
    same: list[Figure],
    others: list[Figure],
    lang: str | None,
) -> tuple[bool, str | None] | None:
    """(True, None) when the passage's figure of the same value stands beside a number the
    answer's figure stands beside too ("9,50 € up to 10 kg"); (False, the rival's clause)
    when only a rival does and the passage's own figures stand beside other numbers; None
    when the numbers do not tell."""
    mine = _qualifiers(answer, fig, lang)
    if not mine:
        return None
    said = detect(passage)
    own = [_qualifiers(passage, p, said) for p in same]
    if any(q & mine for q in own):
        return True, None
    if not all(own):
        return None
    # The answer's sentence names the passage figure's own numbers elsewhere ("3 dagen per
    # week kost 1.190 € voor een peuter of 1.290 € voor een baby (0-1 jaar)"): its item's
    # numbers do not make the figure a rival's.
    where = sentence_at(answer, fig.start)
    in_sentence = {
        _plain(m.group(1)) + (m.group(2) or "").lower()[:2] for m in _QUALIFIER.finditer(where)
    }
    if any(
        (q - _head_numbers(passage, p, same, others)) & in_sentence
        for q, p in zip(own, same, strict=True)
    ):
        return None
    for o in others:
        # What the sentence's head says before its first figure ("A box for 4 people costs
        # 5,50 € ... and 4,95 € ...") is every item's, not the rival's alone.
        shared = _head_numbers(passage, o, same, others)
        if (_qualifiers(passage, o, said) - shared) & mine:
            return False, clause_of(passage, o.start).strip()
    return None


def _head_numbers(
    passage: str, fig: Figure, same: list[Figure], others: list[Figure]
) -> frozenset[str]:
    """The numbers of the head of the figure's passage sentence, before its first figure."""
    where = sentence_at(passage, fig.start)
    first = min(p.start for p in (*same, *others) if sentence_at(passage, p.start) == where)
    head = passage[passage.find(where) : first] if where in passage else ""
    return frozenset(
        _plain(m.group(1)) + (m.group(2) or "").lower()[:2] for m in _QUALIFIER.finditer(head)
    )
