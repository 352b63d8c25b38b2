"""Figures bound to what they are about: "data kept 30 days" and "backups within 30 days" are
different claims, though both contain 30 days.

A figure's subject is the content words of the clause it stands in, less the figure itself.
An expected figure may name its subject (`{"any": "30 days", "about": "data kept"}`); a cited
figure is held to the passage clause that states the same value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.clauses import clauses, sentence_at
from evals.checks.language import detect
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.owners import list_items, owned_names
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures

# A comma that parts a list, not one inside a number ("9,50 €", "1,000").
_LIST_COMMA = regex.compile(r",(?!\d)|(?<!\d),")


# Memoised: the same answer and passages are bound figure by figure, check by check.
@lru_cache(maxsize=4096)
def clause_of(text: str, pos: int) -> str:
    """The clause of `text` (cut at sentence ends, ';', ':', 'but' and commas) holding `pos`."""
    for start, piece in clauses(text):
        if start <= pos < start + len(piece):
            offset = pos - start
            # Commas part subjects too: "data kept 14 days, backups within 30"; a decimal
            # comma does not ("6,80 € up to 2 kg, 9,50 € up to 10 kg").
            cuts = [m.start() for m in _LIST_COMMA.finditer(piece)]
            lo = max((c + 1 for c in cuts if c < offset), default=0)
            hi = min((c for c in cuts if c >= offset), default=len(piece))
            return piece[lo:hi]
    return text


# What joins the two ends of a span; "and" only between times or dates ("between 8:00 and
# 20:00"), where between two prices it joins two list items ("29 € and 39 €").
_SPAN_GAP = regex.compile(
    r"\s*(?:[-–—/]|to|till?|until|tot|bis|à|a|al|alle|au|hasta|até)?\s*", regex.IGNORECASE
)
_TIME_SPAN_GAP = regex.compile(
    r"\s*(?:[-–—/]|to|till?|until|tot|bis|à|a|al|alle|au|hasta|até|and|und|et|y|e|en|og)?\s*",
    regex.IGNORECASE,
)


def _own_stretch(text: str, fig: Figure, lang: str | None) -> str:
    """The figure's clause, cut at the figures of its kind beside it: in "180 € a year or
    15,75 € a month" the month is the other figure's. What stands before the clause's first
    figure of the kind heads them all and is kept ("Business accounts get 10 % from 50
    parcels and 15 % from 200": the 15 % is a business account's too)."""
    clause = clause_of(text, fig.start)
    for start, piece in clauses(text):
        if start <= fig.start < start + len(piece):
            break
    else:
        return clause
    c_lo = start + piece.find(clause) if clause and clause in piece else -1
    if c_lo < start:
        return clause
    c_hi = c_lo + len(clause)
    peers = sorted(
        (f.start, f.end)
        for f in parse_figures(text, lang)
        if (f.kind, f.unit) == (fig.kind, fig.unit)
        and c_lo <= f.start < c_hi
        and f.start != fig.start
    )
    # The two ends of a span are one figure ("dalle 9:00 alle 13:00", "9:00–13:00").
    gap = _TIME_SPAN_GAP if fig.kind in ("time", "date") else _SPAN_GAP
    peers = [
        (a, b)
        for a, b in peers
        if not gap.fullmatch(text[b : fig.start] if b <= fig.start else text[fig.end : a])
    ]
    if not peers:
        return clause
    lo = max((e for _, e in peers if e <= fig.start), default=c_lo)
    hi = min((s for s, _ in peers if s > fig.start), default=c_hi)
    head = text[c_lo : min(peers[0][0], fig.start)] if lo > c_lo else ""
    return f"{head} {text[lo:hi]}"


@lru_cache(maxsize=4096)
def subject(text: str, fig: Figure, lang: str | None, synonyms: Synonyms = ()) -> frozenset[str]:
    """The content words of the figure's own stretch of its clause (up to the figures of its
    kind beside it), the figure's own words left out."""
    clause = _own_stretch(text, fig, lang)
    own = set(tokens(fig.text, lang, synonyms))
    return frozenset(
        content(tokens(clause, lang, synonyms), lang)
        - own
        - {w for w in tokens(clause, lang) if any(ch.isdigit() for ch in w)}
    )


@dataclass(frozen=True)
class Binding:
    """How a figure in an answer relates to what a passage says about that value."""

    bound: bool  # the passage states the value about (some of) the same words
    other: str | None  # the passage clause whose subject the answer's words match instead


def _sentence_head(text: str, fig: Figure, lang: str | None, synonyms: Synonyms) -> frozenset[str]:
    """The content words of the figure's sentence that stand in no clause holding another
    figure of its kind: "Pauses: up to 2 a year, for up to 30 days each time" says the
    30 days are about pauses, though its clause says only "each time"."""
    out: set[str] = set()
    for start, sentence in sentences(text):
        if not start <= fig.start < start + len(sentence):
            continue
        peers = [
            p.start
            for p in parse_figures(text, lang)
            if (p.kind, p.unit) == (fig.kind, fig.unit) and start <= p.start < start + len(sentence)
        ]
        for cstart, piece in clauses(text):
            if not start <= cstart < start + len(sentence):
                continue
            if not any(cstart <= p < cstart + len(piece) for p in peers):
                out |= content(tokens(piece, lang, synonyms), lang)
    return frozenset(w for w in out if not any(ch.isdigit() for ch in w))


@lru_cache(maxsize=4096)
def bind(
    answer: str, fig: Figure, passage: str, lang: str | None, synonyms: Synonyms = ()
) -> Binding:
    """Whether the passage states `fig` about what the answer's clause is about, or states it
    about something else while another value of the same kind belongs to the answer's subject
    (two figures swapped between their subjects).

    Names decide first: "Plus costs 29 €" against "Basic costs 29 €, Plus 39 €" is Basic's
    figure given to Plus. Then the content words: the passage's figure is read with its
    clause and the head of its sentence, a rival figure with its own clause only, so that a
    rival wins only on words that are its own."""
    stated = parse_figures(passage)
    same = [p for p in stated if p.same(fig)]
    others = [p for p in stated if (p.kind, p.unit) == (fig.kind, fig.unit) and not p.same(fig)]
    if not same:
        return Binding(True, None)  # derived (a sum, a product, a span): no clause to bind to
    if not others:
        return Binding(True, None)
    named = _by_names(answer, fig, passage, same, others, lang)
    if named is not None:
        return named
    qualified = _by_qualifiers(answer, fig, passage, same, others, lang)
    if qualified is not None:
        return qualified
    # An answer in the ticket's language cites a help centre written in another: their
    # content words cannot be compared, so only names (above) can bind across them.
    said_in = detect(passage)
    if lang and said_in and said_in != lang:
        return Binding(True, None)
    mine = subject(answer, fig, lang, synonyms)
    if not mine:
        return Binding(True, None)
    best_same = max(
        (
            len(
                mine
                & (subject(passage, p, lang, synonyms) | _sentence_head(passage, p, lang, synonyms))
            )
            for p in same
        ),
        default=0,
    )
    for p in others:
        theirs = len(mine & subject(passage, p, lang, synonyms))
        # A rival wins outright over a figure that shares nothing, and by two words over one
        # that shares some ("request a pause at least 30 days before" is the notice's clause,
        # though the 30 days' sentence is about pauses too).
        if theirs > best_same and (not best_same or theirs - best_same >= 2):
            return Binding(False, clause_of(passage, p.start).strip())
    return Binding(True, None)


# A number beside a figure in its own stretch, with the word or sign after it: "9,50 € up
# to 10 kg", "15 % from 200 parcels". Figures of one kind listed for several bands or tiers
# are told apart by them, in any language ("kg" is "kg" in all of them).
_QUALIFIER = regex.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*([\p{L}%]{1,3})?")


def _qualifiers(text: str, fig: Figure, lang: str | None) -> frozenset[str]:
    """The numbers that stand beside `fig` in its own stretch (not its own, not a figure of its
    kind), each with the start of the unit that follows it ("10kg")."""
    stretch = _own_stretch(text, fig, lang)
    # Within the list item that holds the figure: "9,50 € up to 10 kg and 14,90 € up to 23
    # kg" gives each price its own weight.
    for start, sentence in sentences(text):
        if start <= fig.start < start + len(sentence):
            item = next(
                (sentence[a:b] for a, b in list_items(sentence) if a <= fig.start - start < b),
                "",
            )
            if fig.text in item:
                stretch = item
            break
    # The figure and the others of its kind are what is told apart, not what tells.
    for peer in parse_figures(stretch, lang):
        if (peer.kind, peer.unit) == (fig.kind, fig.unit):
            stretch = stretch[: peer.start] + " " * (peer.end - peer.start) + stretch[peer.end :]
    out = set()
    for m in _QUALIFIER.finditer(stretch):
        number = m.group(1).replace(",", ".")
        if "." in number:
            number = number.rstrip("0").rstrip(".")
        out.add(number + (m.group(2) or "").lower()[:2])
    return frozenset(out)


def _by_qualifiers(
    answer: str,
    fig: Figure,
    passage: str,
    same: list[Figure],
    others: list[Figure],
    lang: str | None,
) -> Binding | None:
    """Bound when the passage's figure of the same value stands beside a number the answer's
    figure stands beside too ("9,50 € up to 10 kg"); swapped when only a rival does and the
    passage's own figures stand beside other numbers; None when the numbers do not tell."""
    mine = _qualifiers(answer, fig, lang)
    if not mine:
        return None
    said = detect(passage)
    own = [_qualifiers(passage, p, said) for p in same]
    if any(q & mine for q in own):
        return Binding(True, None)
    if not all(own):
        return None
    for o in others:
        if _qualifiers(passage, o, said) & mine:
            return Binding(False, clause_of(passage, o.start).strip())
    return None


def _by_names(
    answer: str,
    fig: Figure,
    passage: str,
    same: list[Figure],
    others: list[Figure],
    lang: str | None,
) -> Binding | None:
    """Bound when a figure of the same value belongs to a name the answer's figure belongs
    to; swapped when each such figure belongs to another name while a rival value in its
    sentence belongs to the answer's; None when names do not tell.

    Names are compared within one passage sentence where it has rivals: there, a name
    every figure shares ("im Monat") tells nothing, and a name in another sentence is
    about another thing (the prices' Basic is not the deposits' Basic)."""
    mine = owned_names(answer, fig, lang)
    # A name the answer gives another value of its kind too ("Plus costs 10 € more than
    # Basic, so 39 € instead of 29 €") does not say which of them is its.
    where = sentence_at(answer, fig.start)
    for f in parse_figures(answer, lang):
        alike = (f.kind, f.unit) == (fig.kind, fig.unit) and not f.same(fig)
        if alike and sentence_at(answer, f.start) == where:
            mine -= owned_names(answer, f, lang)
    if not mine:
        return None
    swapped: str | None = None
    for p in same:
        where = sentence_at(passage, p.start)
        # Rivals in its own sentence first; a plan list with one sentence a plan ("Starter
        # costs 29 €. Pro costs 45 €.") has them in the next sentences.
        rivals = [o for o in others if sentence_at(passage, o.start) == where] or others
        owners = [owned_names(passage, q) for q in (p, *rivals)]
        telling = frozenset().union(*owners) - frozenset.intersection(*owners)
        own, mine_t = owners[0] & telling, mine & telling
        if own & mine_t:
            return Binding(True, None)
        hit = next((r for r, o in zip(rivals, owners[1:], strict=True) if o & mine_t), None)
        if not own or hit is None:
            return None
        swapped = where.strip()
    return Binding(False, swapped) if swapped else None


def about_state(
    answer: str,
    fig: Figure,
    about: str,
    rivals: list[str],
    lang: str | None,
    synonyms: Synonyms = (),
) -> str:
    """`bound` when the figure's clause names its subject (or its sentence does, and no rival
    subject stands in the clause); `other` when the clause names a rival subject (another
    expected figure's) instead; `unknown` when nothing says what the figure is about."""
    want = content(tokens(about, lang, synonyms), lang)
    mine = subject(answer, fig, lang, synonyms)
    if want & mine:
        return "bound"
    for rival in rivals:
        if content(tokens(rival, lang, synonyms), lang) - want & mine:
            return "other"
    sentence = next((p for s, p in clauses(answer) if s <= fig.start < s + len(p)), "")
    if want & content(tokens(sentence, lang, synonyms), lang):
        return "bound"
    return _headed(answer, fig, want, rivals, lang, synonyms)


def _headed(
    answer: str,
    fig: Figure,
    want: set[str],
    rivals: list[str],
    lang: str | None,
    synonyms: Synonyms,
) -> str:
    """`bound` when the figure's whole sentence (or list line) names the subject, as a head
    before a colon ("Deposit: 250 € a bike, so 750 € in all", "Monthly cost: €19"), and
    names no rival subject; else `unknown`."""
    words = content(tokens(sentence_at(answer, fig.start), lang, synonyms), lang)
    rival = set().union(*(content(tokens(r, lang, synonyms), lang) for r in rivals)) - want
    if any(_akin(w, r) for w in words for r in rival):
        return "unknown"
    return "bound" if any(_akin(w, t) for w in words for t in want) else "unknown"


def _akin(a: str, b: str) -> bool:
    """The same stem, or one a longer form of the other ("month", "monthli")."""
    short, long = sorted((a, b), key=len)
    return a == b or (len(short) >= 5 and long.startswith(short))
