"""The mutant that swaps a name (plan, product, place) for a similar one."""

from __future__ import annotations

import re
from functools import lru_cache

from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import MAX_PER_OPERATOR, Variant, operator
from evals.mutate.text import splice
from evals.suite.case import Case


@lru_cache(maxsize=4096)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")


@lru_cache(maxsize=4096)
def _doubled(name: str) -> re.Pattern[str]:
    """The name listed beside itself: what swapping one list member for another leaves."""
    w = re.escape(name)
    gap = r"\s*(?:,|/|&|\b(?:and|or|und|oder|y|o|et|ou)\b)\s*"
    return re.compile(rf"(?<![\w-]){w}{gap}{w}(?![\w-])", re.IGNORECASE)


@operator("entity_swap", "mutant", "a name (plan, product, place) swapped for a similar one")
def entity_swap(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    names = ctx.names
    taken = [(c.start, c.end) for c in ans.cites]
    present: dict[str, list[tuple[int, int]]] = {}
    # longest names first, so "Microsoft Teams" is one name and not "Teams" inside it
    for word in sorted(names.contexts, key=len, reverse=True):
        hits = []
        for m in _whole_word(word).finditer(ans.text):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                hits.append((m.start(), m.end()))
        if hits:
            present[word] = hits
            taken += hits
    out = []
    for word in sorted(present, key=lambda w: present[w][0]):
        # a name seen in the same place or the same list: "Pro plan" / "Business plan"
        new = names.closest(word, avoid=set(present))
        if (
            new is None
            or new.casefold().startswith(word.casefold())
            or word.casefold().startswith(new.casefold())
        ):
            continue  # "Preis -> Preise", "App -> App-Chat": the same word
        text = splice(ans.text, [(s, e, new) for s, e in present[word]])
        if _doubled(new).search(text) and not _doubled(new).search(ans.text):
            continue  # "pro Platz und Monat" -> "pro Monat und Monat" says nothing wrong
        out.append(Variant("entity_swap", text, f"{word} -> {new}"))
        if len(out) >= MAX_PER_OPERATOR:
            break
    return out
