"""Figures bound to what they are about: "data kept 30 days" and "backups within 30 days" are
different claims, though both contain 30 days.

A figure's subject is the content words of the clause it stands in, less the figure itself.
An expected figure may name its subject (`{"any": "30 days", "about": "data kept"}`); a cited
figure is held to the passage clause that states the same value.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.clauses import clauses, sentence_at
from evals.checks.figure_items import (
    clause_of,
    list_head,
    own_item,
    subject,
    subject_clause,
    subject_words,
)
from evals.checks.language import detect
from evals.checks.matching import Synonyms, content, tokens
from evals.checks.owners import inner_names, names_in, owned_names
from evals.checks.qualifiers import qualified
from evals.checks.result_subject import terms_about, totalled_result
from evals.checks.subject_hints import antecedent, computation_cut, first_of_kind
from evals.checks.text import sentences
from evals.checks.values import Figure, parse_figures


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
    answer: str,
    fig: Figure,
    passage: str,
    lang: str | None,
    synonyms: Synonyms = (),
    asked: frozenset[str] = frozenset(),
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
    named = _by_names(answer, fig, passage, same, others, lang, asked)
    if named is not None:
        return named
    told = qualified(answer, fig, passage, same, others, lang)
    if told is not None:
        return Binding(*told)
    # An answer in the ticket's language cites a help centre written in another: their
    # content words cannot be compared, so only names and numbers (above) bind across them.
    said_in = detect(passage)
    if lang and said_in and said_in != lang:
        return Binding(True, None)
    mine = subject(computation_cut(answer, fig), fig, lang, synonyms)
    # Words the clauses of three or more of the passage's figures share ("fino a 2.000 € per
    # animale per anno solare", "... 5.000 € per animale per anno solare") tell none of
    # them apart: "50 € per animale per anno solare" is not the cap's for saying so.
    seen = Counter(w for p in (*same, *others) for w in subject(passage, p, lang, synonyms, True))
    common = {w for w, n in seen.items() if n >= _COMMON}
    if not mine:
        return Binding(True, None)
    best_same = max(
        (
            len(
                mine
                & (
                    subject(passage, p, lang, synonyms, True)
                    | _sentence_head(passage, p, lang, synonyms)
                    | list_head(passage, p, lang, synonyms)
                    | antecedent(passage, p, lang, synonyms)
                )
            )
            for p in same
        ),
        default=0,
    )
    # What the passage says of the figure's own value, its names aside: a rival sentence
    # that says all of it and more is a parallel one whose extra words the figure's sentence
    # leaves out ("Mini costs 15 € with 5 GB mobile data. Plus costs 25 € with 30 GB.").
    said = set().union(
        *(subject(passage, p, lang, synonyms, True) - owned_names(passage, p, lang) for p in same)
    )
    for p in others:
        # A rival shares the head of a list with the figure ("The premium is 120 € for Base,
        # ... and 264 € for Totale"): its own words are those of its item.
        words = subject(passage, p, lang, synonyms, True) - list_head(passage, p, lang, synonyms)
        if (
            said
            and said <= words
            and sentence_at(passage, p.start) != sentence_at(passage, same[0].start)
        ):
            words = words & (said | owned_names(passage, p, lang))
        theirs = len((mine & words) - common)
        # A rival wins outright over a figure that shares nothing, and by two words over one
        # that shares some ("request a pause at least 30 days before" is the notice's clause,
        # though the 30 days' sentence is about pauses too).
        if theirs > best_same and (not best_same or theirs - best_same >= 2):
            return Binding(False, clause_of(passage, p.start).strip())
    return Binding(True, None)


_WORDS = regex.compile(r"[\p{L}\p{N}]+")
#: Figures of a passage whose clauses share a word before it tells none of them apart.
_COMMON = 3


def _by_names(
    answer: str,
    fig: Figure,
    passage: str,
    same: list[Figure],
    others: list[Figure],
    lang: str | None,
    ticket_names: frozenset[str] = frozenset(),
) -> Binding | None:
    """Bound when a figure of the same value belongs to a name the answer's figure belongs
    to; swapped when each such figure belongs to another name while a rival value in its
    sentence belongs to the answer's; None when names do not tell. A figure whose sentence
    names nothing is about what the ticket names (`ticket_names`: "I want to cancel my Plus": the
    deposit the answer gives is Plus's, not Cargo's).

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
    said_in = detect(passage)
    if lang and said_in and said_in != lang:
        # Across languages a name is the same thing only spelled the same ("Plus", "Comfort");
        # "Italien" and "Italy" share a stem by chance, and a German noun is no name.
        spelled = {w.casefold() for w in _WORDS.findall(passage)}
        mine &= {
            s
            for w in _WORDS.findall(where)
            if w.casefold() in spelled
            for s in content(tokens(w, lang), lang)
        }
    if not mine and not any(
        (f.kind, f.unit) == (fig.kind, fig.unit) and owned_names(answer, f, lang)
        for f in parse_figures(answer, lang)
    ):
        # Only when no figure of its kind in the answer names its own subject: an answer
        # that names the other plan for one figure speaks of both.
        mine = ticket_names
        asked = True
    else:
        asked = False
    if not mine:
        return None
    swapped: str | None = None
    inner = inner_names(passage)
    for p in same:
        where = sentence_at(passage, p.start)
        # Rivals in its own sentence first; a plan list with one sentence a plan ("Starter
        # costs 29 €. Pro costs 45 €.") has them in the next sentences.
        rivals = [o for o in others if sentence_at(passage, o.start) == where]
        if not rivals and asked:
            # The ticket's name against another sentence tells nothing, unless that
            # sentence names its own plan ("alleen bij een Private office mag je maximaal
            # 4 uur meenemen"): then it is that plan's figure, or the ticket's.
            named_here = owned_names(passage, p)
            if named_here & mine:
                return Binding(True, None)
            if named_here:
                continue
            return None
        rivals = rivals or others
        owners = [owned_names(passage, q) for q in (p, *rivals)]
        telling = frozenset().union(*owners) - frozenset.intersection(*owners)
        named = names_in(sentence_at(answer, fig.start), lang) & telling if asked else frozenset()
        said = named if first_of_kind(answer, fig, lang) else frozenset()
        if named and (not said or sum(1 for o in owners if o & said) > 1):
            return None  # "Basic and Plus cost 29 € and 39 €": the answer's own names
        # The sentence names one item's name before its figures ("Met je Fixed desk heb je
        # 4 uur ..., dus ... nog 2 uur"): that name, not the ticket's, is the figure's.
        own, mine_t = owners[0] & telling, (said or mine) & telling
        hit = next((r for r, o in zip(rivals, owners[1:], strict=True) if o & mine_t), None)
        if own & mine_t:
            # A ticket that names both ("Fixed or Variable?") does not say which is meant.
            if asked and hit is not None:
                return None
            return Binding(True, None)
        # The figure's own name must be one the passage writes inside a sentence: a
        # capitalised first word ("Superado ese límite, se cobran 0,20 €", "Ontbreekt de
        # voeding ...") names nothing, so it cannot make the figure another thing's.
        if not own or hit is None:
            return None
        if (
            not own & inner
            and not _named_close(passage, p)
            and owners[rivals.index(hit) + 1] & inner
        ):
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
    ticket: str = "",
    passages: tuple[str, ...] = (),
) -> str:
    """`bound` when the figure's clause names its subject (or its sentence does, and no rival
    subject stands in the clause); `other` when the clause names a rival subject (another
    expected figure's) instead; `unknown` when nothing says what the figure is about.

    A sentence that names no subject at all may take it from the sentence before ("the
    yearly premium of Totale is 264 €. Paid monthly, you pay 23,10 € a month"), or, for the
    answer's first figure of its kind, from the `ticket` it answers ("What does cancelling
    cost?" "In short: 100 €"), when that names the subject and no rival, and none of the
    other things the `passages` give a figure of that kind for ("how long until our data is
    gone, backups included?" asks of two)."""
    want = subject_words(about, lang, synonyms)
    mine = subject(answer, fig, lang, synonyms)
    if want & mine:
        return "bound"
    # A rival named in the figure's clause but in another figure's item ("a new SIM costs
    # 7,50 € and you have it within 2 working days") is that figure's subject, not this one's.
    item = own_item(answer, fig, lang, synonyms)
    for rival in rivals:
        if content(tokens(rival, lang, synonyms), lang) - want & mine & item:
            return "other"
    sentence = next((p for s, p in clauses(answer) if s <= fig.start < s + len(p)), "")
    if want & content(tokens(sentence, lang, synonyms), lang):
        return "bound"
    state = _headed(answer, fig, want, rivals, lang, synonyms)
    # A rival named in the figure's own item of its sentence says it is not about `about`.
    if state != "unknown" or _names_any(subject_clause(answer, fig, lang), rivals, lang, synonyms):
        return state
    before = _sentence_before(answer, fig.start)
    if before and _names(before, want, rivals, lang, synonyms):
        return "bound"
    if terms_about(answer, fig, want, lang, synonyms) or totalled_result(answer, fig, want, lang):
        return "bound"
    first = all(
        f.start >= fig.start
        for f in parse_figures(answer, lang)
        if (f.kind, f.unit) == (fig.kind, fig.unit)
    )
    if first and ticket and _names(ticket, want, rivals, lang, synonyms):
        others = _passage_subjects(fig, passages, lang, synonyms) - want
        asked = content(tokens(ticket, lang, synonyms), lang)
        if not any(_akin(w, o) for w in asked for o in others):
            return "bound"
    return "unknown"


_LEAD = regex.compile(r"\s*(?:[-•*]\s*)?\S+(?:\s+\S+){0,2}\s*$")


def _named_close(passage: str, fig: Figure) -> bool:
    """Whether the figure stands within the first words of its sentence ("Basic costs 29 €"):
    there a capitalised first word is the name it is priced under, not any word."""
    start = next((s for s, p in sentences(passage) if s <= fig.start < s + len(p)), 0)
    return _LEAD.fullmatch(passage, start, fig.start) is not None


def _passage_subjects(
    fig: Figure, passages: tuple[str, ...], lang: str | None, synonyms: Synonyms
) -> frozenset[str]:
    """The words the passages state other figures of `fig`'s kind about, less those they
    state `fig`'s own value about ("50 € with up to 1,5 years left, 100 € with more": both
    are about the years left; only "more" is the other's)."""
    ours: set[str] = set()
    theirs: set[str] = set()
    for text in passages:
        for p in parse_figures(text):
            if (p.kind, p.unit) == (fig.kind, fig.unit):
                words = subject(text, p, lang, synonyms, True) | list_head(text, p, lang, synonyms)
                (ours if p.same(fig) else theirs).update(words)
    return frozenset(theirs - ours)


def _sentence_before(text: str, pos: int) -> str:
    """The sentence of `text` before the one that holds `pos` ("" for the first)."""
    prev = ""
    for start, sentence in sentences(text):
        if start <= pos < start + len(sentence):
            return prev
        prev = sentence
    return ""


def _rival_words(rivals: list[str], want: set[str], lang: str | None, syn: Synonyms) -> set[str]:
    return set().union(*(content(tokens(r, lang, syn), lang) for r in rivals)) - want


def _names_any(text: str, rivals: list[str], lang: str | None, syn: Synonyms) -> bool:
    """Whether `text` names a rival subject (another expected figure's)."""
    words = content(tokens(text, lang, syn), lang)
    return any(_akin(w, r) for w in words for r in _rival_words(rivals, set(), lang, syn))


def _names(text: str, want: set[str], rivals: list[str], lang: str | None, syn: Synonyms) -> bool:
    """Whether `text` names the subject (a word of it, or a longer or shorter form: "opzeg",
    "opzegvergoeding") and no rival subject."""
    words = content(tokens(text, lang, syn), lang)
    rival = _rival_words(rivals, want, lang, syn)
    if any(_akin(w, r) for w in words for r in rival):
        return False
    return any(_akin(w, t) for w in words for t in want)


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
