"""Which name a figure is stated about: in "Basic costs 29 € a month, Plus 39 €" the 29 € is
Basic's and the 39 € is Plus's; in "The deposit is 50 € on Basic and 100 € on Plus" the names
follow their figures.

A name is a capitalised word that is not a glue word (a plan, a product, a city, an
integration). Within one sentence (or list line) the names are shared out among the
figures of one kind: when the sentence names something before its first figure, each name
belongs to the figure after it ("Basic 29 €, Plus 39 €"); otherwise to the figure before it
("29 € for Basic, 39 € for Plus").
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.matching import MARKER, content, tokens
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

# A capitalised word, or one with capitals inside ("DATEV", "eBay"); digits may follow.
_NAME = regex.compile(r"(?<![\p{L}\p{N}])\p{L}*\p{Lu}[\p{L}\p{N}]*(?:[-’'][\p{L}\p{N}]+)*")
# A unit symbol is written with capitals but names nothing a figure is about: in
# "Variabel 0,27 € per kWh, Vast 1 jaar 0,29 € per kWh" every price is per kWh.
_UNIT_SYMBOL = regex.compile(r"[kMGT]?W[hp]?|[kMGT]i?B|[kMG]?Hz|mAh|kVA|MB|GB|TB")


@lru_cache(maxsize=4096)
def _names(sentence: str, lang: str | None) -> tuple[tuple[int, str], ...]:
    """The names of a sentence with their offsets, as stems (case-folded, so that the answer's
    "Plus" meets the passage's "Plus" whatever the inflection)."""
    plain = MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
    out = []
    for m in _NAME.finditer(plain):
        if _UNIT_SYMBOL.fullmatch(m.group(0)):
            continue
        stems = content(tokens(m.group(0), lang), lang)
        # A glue word that opens a sentence ("The", "After", "Wenn") is no name.
        out.extend((m.start(), s) for s in sorted(stems) if not s.isdigit())
    return tuple(out)


def _alike(a: Figure, b: Figure) -> bool:
    return (a.kind, a.unit) == (b.kind, b.unit)


# Where one item of a list ends: punctuation (not a bracket: "Starter (€29)" is one item),
# or "and" in the languages read ("50 € on Basic and 100 € on Plus"); a comma or colon
# inside a number ("9,50 €", "17:00") parts nothing.
_ITEM_BREAK = regex.compile(
    r"[;–—]|(?<!\d)[,:]|[,:](?!\d)|(?<![\p{L}])(?:and|und|et|y|e|ed|en|og|och)(?![\p{L}])",
    regex.IGNORECASE,
)


def list_items(sentence: str) -> list[tuple[int, int]]:
    """The spans of a sentence's list items, cut at punctuation and "and"."""
    out, last = [], 0
    for m in _ITEM_BREAK.finditer(sentence):
        out.append((last, m.start()))
        last = m.end()
    out.append((last, len(sentence)))
    return out


@lru_cache(maxsize=4096)
def owned_names(text: str, fig: Figure, lang: str | None = None) -> frozenset[str]:
    """The names `text` states `fig` about (stems), from the list item of its sentence
    that holds it.

    A sentence's figures of one kind are read as a list: the names in a figure's item are
    its own ("Basic costs 29 €, Plus 39 €"). The names before the first figure head the
    sentence: they belong to the first figure when the later items name their subject
    first ("..., Plus 39 €"), and to every figure when the later items name it after their
    figure ("The deposit is 50 € on Basic and 100 € on Plus"). Figures that share an item
    share its names."""
    for start, sentence in sentences(text):
        if start <= fig.start < start + len(sentence):
            break
    else:
        return frozenset()
    lang = lang or detect(text)
    inside = [f for f in parse_figures(text, lang) if start <= f.start < start + len(sentence)]
    peers = sorted({(f.start - start, f.end - start) for f in (*inside, fig) if _alike(f, fig)})
    names = [
        (pos, n) for pos, n in _names(sentence, lang) if not any(a <= pos < b for a, b in peers)
    ]
    if len(peers) > 1 and all(pos < peers[0][0] for pos, _ in names):
        # "Basic and Plus cost 29 € and 39 € respectively": names all before the figures
        # cannot be shared out by position.
        return frozenset()
    # Citation markers hold colons ("[doc:a]"): items are cut on the text without them.
    items = list_items(MARKER.sub(lambda m: " " * len(m.group(0)), sentence))

    def item_of(pos: int) -> int:
        # The item a position falls in (a break between two items counts to the first).
        return max(i for i, (a, _) in enumerate(items) if a <= pos) if pos >= 0 else 0

    owner_items = sorted({item_of(a) for a, _ in peers})
    mine = item_of(fig.start - start)
    first_pos = peers[0][0]
    # Later items that name their subject before their figure ("..., Plus 39 €").
    lead = any(
        any(items[i][0] <= pos < a for pos, _ in names)
        for i in owner_items[1:]
        for a, _ in peers
        if item_of(a) == i
    )
    # A later item that holds a figure of another kind and none of this one names that
    # figure's subject: in "the notice is 1 month, at 60 € a month for Fiber 1000" Fiber is
    # the price's.
    foreign = {item_of(f.start - start) for f in inside if not _alike(f, fig)} - set(owner_items)
    named_items = {item_of(pos) for pos, _ in names}
    # A head before the first item's own label ("Nederland (Amsterdam, ...): Flex desk 189 €,
    # Fixed desk 289 €") is every figure's: the label names the first item, the head all.
    labelled = any(item_of(pos) == owner_items[0] and pos < first_pos for pos, _ in names)
    out = set()
    for pos, name in names:
        i = item_of(pos)
        if lead and labelled and pos < first_pos and i < owner_items[0]:
            out.add(name)
            continue
        if pos < first_pos and i <= owner_items[0]:
            # The sentence's head ("Starter costs 29 € ... with up to 20 seats") names what
            # every figure of the sentence is about, whatever their kinds.
            if not lead or mine == owner_items[0]:
                out.add(name)
            continue
        if i in foreign:
            continue
        # An item without a figure names the subject of the figure after it when items name
        # their subject first ("con Base e Cargo la franchigia è di 300 €"), and describes
        # the figure before it otherwise ("50 € on Basic, helmet included").
        after = min((j for j in owner_items if j >= i), default=None)
        if lead:
            owner = owner_items[-1] if after is None else after
        elif i not in owner_items and after is not None and after not in named_items:
            # Unless the next figure's item names nothing of its own: "ein Mindestalter von
            # 23 Jahren und ein Führerschein, den Sie seit 3 Jahren besitzen".
            owner = after
        else:
            owner = max((j for j in owner_items if j <= i), default=owner_items[0])
        if owner == mine:
            out.add(name)
    return frozenset(out)


def names_in(text: str, lang: str | None = None) -> frozenset[str]:
    """Every name `text` gives (stems): what a ticket says the customer has ("my Plus")."""
    lang = lang or detect(text)
    return frozenset(n for _, sentence in sentences(text) for _, n in _names(sentence, lang))


def inner_names(text: str, lang: str | None = None) -> frozenset[str]:
    """The names `text` writes after the first word of a sentence: a capitalised first word
    may be any word."""
    lang = lang or detect(text)
    out = set()
    for _, sentence in sentences(text):
        lead = len(sentence) - len(sentence.lstrip())
        first = _NAME.match(sentence, lead)
        out.update(n for pos, n in _names(sentence, lang) if first is None or pos > first.end())
    return frozenset(out)
