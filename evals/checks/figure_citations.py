"""Which citation markers belong to a figure: those after it in its sentence, and its own,
the first refs that follow it with any set side by side ("[doc:a][doc:b]"); and which
passage a citation names for it (one before it in its sentence, one that states a figure
the customer gave instead of the passage cited)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import regex

from evals.checks.passage_figures import passage_states
from evals.checks.text import SENTENCE_END
from evals.checks.values import Figure, parse_figures
from evals.suite import patterns


def marks_after(
    answer: str, fig: Figure, cite: regex.Pattern[str], window: int
) -> list[regex.Match[str]]:
    """Citation markers after the figure before its sentence ends, or right after its full
    stop (offsets from the figure's end)."""
    text = answer[fig.end : fig.end + window]
    # Searched in the answer, so that what stands before the figure's end is seen: the "kr"
    # of "100 kr. pr. måned" makes its point no sentence end.
    stop = SENTENCE_END.search(answer, fig.end, fig.end + window)
    end = None if stop is None else (stop.start() - fig.end, stop.end() - fig.end)
    head = text if end is None else text[: end[0]]
    found = list(cite.finditer(head, timeout=patterns.MATCH_TIMEOUT_S))
    if end is not None:
        at = end[1]
        while (
            m := cite.match(
                text,
                at + len(text[at:]) - len(text[at:].lstrip()),
                timeout=patterns.MATCH_TIMEOUT_S,
            )
        ) is not None:
            found.append(m)
            at = m.end()
    return found


def ref_of(m: regex.Match[str]) -> str:
    return m.group(1) if m.groups() else m.group(0)


def sentence_citations(
    answer: str, fig: Figure, cite: regex.Pattern[str], window: int
) -> list[str]:
    """Refs cited after the figure before its sentence ends, or right after its full stop."""
    return [ref_of(m) for m in marks_after(answer, fig, cite, window)]


# Refs side by side: "[doc:a][doc:b]", "[doc:a], [doc:b]", "[doc:a] and [doc:b]".
_BESIDE = regex.compile(r"[\s,;&+/]*(?:(?:and|und|et|y|e|en|og|och)[\s]+)?", regex.IGNORECASE)


def own_citations(answer: str, fig: Figure, cite: regex.Pattern[str], window: int) -> list[str]:
    """The figure's own citation: the first refs that follow it, with any set side by side;
    a citation later in the sentence belongs to what stands before it, not to this figure."""
    marks = marks_after(answer, fig, cite, window)
    group = marks[:1]
    text = answer[fig.end : fig.end + window]
    for m in marks[1:]:
        gap = text[group[-1].end() : m.start()]
        if _BESIDE.fullmatch(gap) is None:
            break
        group.append(m)
    return [ref_of(m) for m in group]


# A list item: "- ...", "• ...", "1. ...", "2) ...".
_ITEM = regex.compile(r"\s*(?:[-•*–]|\d{1,2}[.)])\s")


def lead_citations(answer: str, fig: Figure, cite: regex.Pattern[str]) -> list[str]:
    """The refs cited by the line that opens the figure's list, when it ends with a colon
    ("facciamo due conti con i prezzi attuali [doc:pricing#plans]:" above "- 12 porzioni ×
    5,50 € = 66,00 €"): that line gives the list's source once. Empty when the figure stands
    in no list item, or the line above its list cites nothing."""
    start = answer.rfind("\n", 0, fig.start) + 1
    if _ITEM.match(answer, start) is None:
        return []
    while start > 0:
        prev = answer.rfind("\n", 0, start - 1) + 1
        line = answer[prev : start - 1]
        if _ITEM.match(line) is None:
            if not line.rstrip().endswith(":"):
                return []
            return [ref_of(m) for m in cite.finditer(line, timeout=patterns.MATCH_TIMEOUT_S)]
        start = prev
    return []


def stated_by_earlier_citation(
    answer: str,
    retrieved: Sequence[Mapping[str, object]],
    fig: Figure,
    start: int,
    cite: regex.Pattern[str],
) -> bool:
    """Whether a citation earlier in the figure's sentence names a passage that states this
    very figure ("La réduction à 25 % [doc:a] ne concerne que les engagements de 24 mois":
    one citation for the sentence's rule); an invented figure after it stays unsourced."""
    passages = {r.get("ref"): str(r.get("text") or "") for r in retrieved}
    for m in cite.finditer(answer, start, fig.start, timeout=patterns.MATCH_TIMEOUT_S):
        text = passages.get(ref_of(m))
        if text and any(fig.same(p) for p in parse_figures(text)):
            return True
    return False


def shares_a_citation(
    answer: str, fig: Figure, every: list[Figure], cite: regex.Pattern[str], window: int
) -> bool:
    """Whether another figure stands between the figure and the first citation after it."""
    marks = marks_after(answer, fig, cite, window)
    if not marks:
        return False
    first = fig.end + marks[0].start()
    return any(fig.end <= f.start < first for f in every if f is not fig)


def stated_elsewhere(
    answer: str, fig: Figure, cite: regex.Pattern[str], window: int, passages: dict[str, str]
) -> str:
    """The passage that states a figure the customer gave, when the answer cites another
    right after it, one that states no figure of its kind: the answer gives it as a passage's and names
    the wrong one. Empty when it does not."""
    refs = refs_right_after(answer, fig, cite, window)
    if not refs or any(passage_states(passages.get(r, ""), fig) for r in refs):
        return ""
    # A cited passage that gives a figure of its kind may set the rule the customer's figure
    # is read against ("up to 25 years" for "you are 26"); one that gives none cannot.
    if any(p.kind == fig.kind for r in refs for p in parse_figures(passages.get(r, ""))):
        return ""
    stating = (
        ref
        for ref, text in passages.items()
        if ref not in refs and any(fig.same(p) for p in parse_figures(text))
    )
    return next(stating, "")


def refs_right_after(answer: str, fig: Figure, cite: regex.Pattern[str], window: int) -> list[str]:
    """The figure's own refs when they are set right after it, or none: "a taxa de 20 €
    [doc:x]" gives the figure alone to its passage; a citation after more words may be for
    those words."""
    marks = marks_after(answer, fig, cite, window)
    if not marks or answer[fig.end : fig.end + marks[0].start()].strip(" ,"):
        return []
    return own_citations(answer, fig, cite, window)


def cited_as_stated(
    answer: str, fig: Figure, cite: regex.Pattern[str], window: int, passages: dict[str, str]
) -> bool:
    """Whether a citation set right after the figure names a passage that states it."""
    refs = refs_right_after(answer, fig, cite, window)
    return any(fig.same(p) for r in refs for p in parse_figures(passages.get(r, "")))
