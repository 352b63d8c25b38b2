"""Phrasings taken from an answer: the short spans of its words a person would write as one
more phrasing of a fact (or as a forbidden claim), ranked by how well each would serve.

A span lies within one clause and between commas (a fact's words are matched within one
clause), starts with a word that carries meaning or a negation ("not counted", "no payroll
export": never "your", "and", "which"), ends on a word that carries meaning, and has no
citation marker. Spans are ranked against the case's other labelled answers: one that no
wrong answer states and most correct answers state is the one most likely to hold on answers
not labelled yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import regex

from evals.checks.clauses import claims, clauses
from evals.checks.expectations import Item
from evals.checks.language import month_names, stem, stop_words
from evals.checks.matching import NEG, Synonyms, content, find, states, tokens
from evals.checks.values import parse_figures

#: The longest span offered, in words: a phrasing a person writes is a few words, not a clause.
MAX_SPAN_WORDS = 6
# Short spans tried as a forbidden claim before the answer's whole clauses.
MAX_CLAIM_SPANS = 4
# Words joined by an apostrophe or hyphen are one word ("don't", "Enterprise-only").
_WORD = regex.compile(r"[\p{L}\p{N}]+(?:['’\-][\p{L}\p{N}]+)*")
# A comma, a bracket or a dash parts a clause's phrases as find() reads them.
_PIECE = regex.compile(r"[^,()\[\]–—]+")


def tidy(text: str) -> str:
    """The span as a person would write it: one space between words, no punctuation around it
    (a blanked citation marker leaves "Roles , after": the comma belongs to the word before)."""
    text = regex.sub(r"\s+([,.;:!?])", r"\1", " ".join(text.split()))
    return text.strip(" .,;:!?–—-\"'")


@lru_cache(maxsize=65536)
def _kind(word: str, lang: str | None) -> tuple[bool, bool]:
    """Whether the word carries meaning (a content word or a number), and whether it negates."""
    toks = tokens(word, lang)
    return bool(content(toks, lang)), NEG in toks


def stems(text: str, lang: str | None, synonyms: Synonyms = ()) -> set[str]:
    """The content words of `text` as the checks read them (stems, numbers as digits)."""
    return content(tokens(text, lang, synonyms), lang)


def both(text: str, lang: str | None, synonyms: Synonyms) -> set[str]:
    """The content words of `text` read with the suite's synonyms and without them (a span
    cut inside a synonym, "on every" of "on every plan", is read without)."""
    return stems(text, lang, synonyms) | stems(text, lang)


@lru_cache(maxsize=16)
def common_words(lang: str | None) -> frozenset[str]:
    """The language's stop words, broad list ("still", "every", "today"): a word of these is
    no answer's own word for a fact, and a span that starts or ends on one is ragged."""
    return frozenset(stem(w, lang) for w in stop_words(lang or "en"))


def spans(answer: str, lang: str | None, max_words: int = MAX_SPAN_WORDS) -> list[str]:
    """Every candidate phrasing in the answer, each once, in the answer's order."""
    out: dict[str, None] = {}
    for _, clause in clauses(answer):
        for piece in _PIECE.finditer(clause):
            words = list(_WORD.finditer(piece.group(0)))
            kinds = [_kind(w.group(0), lang) for w in words]
            for i, (meant, negates) in enumerate(kinds):
                if not (meant or negates):
                    continue  # no leading glue
                weight = 0
                for j in range(i, min(len(words), i + max_words)):
                    weight += kinds[j][0] + kinds[j][1]
                    if kinds[j][0] and weight >= 2:
                        text = tidy(piece.group(0)[words[i].start() : words[j].end()])
                        out.setdefault(text, None)
    return list(out)


@dataclass(frozen=True)
class Ranked:
    """A candidate phrasing and what the case's other labelled answers make of it."""

    text: str
    wrong: int  # wrong answers of the case that state it
    right: int  # correct answers of the case that state it
    fit: int  # how well it stands for the fact (see fact_phrasings)
    words: int
    # It starts or ends on a common word ("pay for every employee who still").
    ragged: bool = False

    @property
    def key(self) -> tuple[int, ...]:
        # A phrasing no wrong answer states first; then a clean cut, then the one that best
        # stands for the fact, then the one most correct answers share (it is how people say
        # it), then the shortest.
        return (self.wrong > 0, self.ragged, -self.fit, -self.right, self.words)


@dataclass(frozen=True)
class Context:
    """Where the case's own texts (its passages and question) state a fact, and where not."""

    around: frozenset[str]  # the fact's words and those of the clauses that state it
    elsewhere: tuple[frozenset[str], ...]  # the content words of each other clause


def fact_context(it: Item, texts: Iterable[str], lang: str | None, synonyms: Synonyms) -> Context:
    """The content words around the fact where the case's texts state it (what an answer's
    phrasing of it is anchored to), and those of every clause that does not state it."""
    around = set().union(*(both(a, lang, synonyms) for a in it.alternatives))
    elsewhere = []
    for text in texts:
        for _, piece in clauses(text):
            words = frozenset(w for w in both(piece, lang, synonyms) if not w.isdigit())
            if any(find(piece, a, lang=lang, synonyms=synonyms) for a in it.alternatives):
                around |= words
            elif words:
                elsewhere.append(words)
    return Context(frozenset(around), tuple(elsewhere))


def _numbers_fit(mine: set[str], fact: set[str], said: set[str]) -> bool:
    """A fact's numbers are its point: a span of it holds them all (or, where the answer
    gives the value in other units, "two weeks" for 14 days, a number of its own); a span of
    a fact without numbers holds none (a date or a price ties it to one answer)."""
    if not fact:
        return not mine
    return fact <= mine if fact <= said else bool(mine)


def fact_phrasings(
    answer: str,
    it: Item,
    context: Context,
    others: list[Item],
    right: Iterable[str],
    wrong: Iterable[str],
    lang: str | None,
    synonyms: Synonyms = (),
) -> list[Ranked]:
    """The answer's spans that could state a fact missing from it, best first: each one the
    answer states (not negated), that shares a word with the fact's context, and that states
    none of the case's other facts (`others`), the fact's numbers and no others, and not only what a clause of the passages or question
    that does not state the fact says ("seats are billed until" restates "removed seats are
    charged until the end of the month", not "archived employees do not count as seats").

    How well a span stands for the fact (`fit`): the words it shares with the context and
    with the fact itself (two of each at most), and one more when it also has a word the
    context lacks (the answer's own word for the
    fact: "ended" for "discontinued", a word neither the passages nor the question use). A
    span that does not negate where every phrasing of the fact does, or the other way round,
    is left out ("seats are still billed" is never a phrasing of "not billed"), and so is one
    that names a month (a date ties it to one answer as a number does). Each word past three
    costs half a point: a long span gains nothing by its length.
    """
    right, wrong = list(right), list(wrong)
    fact = set().union(*(both(a, lang, synonyms) for a in it.alternatives))
    # Numbers of the fact's figures ("14 days"), not a number word of its wording ("one way").
    numbers = {
        w
        for a in it.alternatives
        if parse_figures(a, lang)
        for w in stems(a, lang, synonyms)
        if w.isdigit()
    }
    polarity = {NEG in tokens(a, lang, synonyms) for a in it.alternatives}
    said = set(tokens(answer, lang))  # "two weeks" for 14 days: no span can carry the 14
    common = common_words(lang)
    months = {stem(m, lang) for m in month_names(lang or "en")}
    out = []
    for text in spans(answer, lang):
        toks = tokens(text, lang, synonyms)
        mine = content(toks, lang)
        if not _numbers_fit({w for w in mine if w.isdigit()}, numbers, said):
            continue
        plain = {w for w in both(text, lang, synonyms) if not w.isdigit()}
        anchors = (plain & context.around) | (mine & numbers)
        novel = plain - context.around - set().union(*context.elsewhere)
        if not anchors or polarity == {NEG not in toks} or plain & months:
            continue
        # Read with the synonyms or without: "available on" may be read as "part of".
        readings = [
            {w for w in stems(text, lang, syn) if not w.isdigit()} for syn in ((), synonyms)
        ]
        if any(r <= other for other in context.elsewhere for r in readings):
            continue
        if any(find(text, a, lang=lang, synonyms=synonyms) for o in others for a in o.alternatives):
            continue
        if not states(answer, text, lang=lang, synonyms=synonyms):
            continue
        words = len(_WORD.findall(text))
        fit = 2 * (min(len(anchors), 2) + min(len(mine & fact), 2) + bool(novel))
        fit -= max(0, words - 3)  # past three words, each word must earn its place
        # A negation opens a phrasing as well as any word ("don't reach Rotaboard").
        ends = [stem(w.casefold(), lang) for w in _WORD.findall(text) if not _kind(w, lang)[1]]
        out.append(
            Ranked(
                text,
                sum(states(w, text, lang=lang, synonyms=synonyms) for w in wrong),
                sum(states(r, text, lang=lang, synonyms=synonyms) for r in right),
                fit,
                words,
                bool({ends[0], ends[-1]} & (common - fact - (novel if len(novel) == 1 else set())))
                if ends
                else True,
            )
        )
    return sorted(out, key=lambda r: r.key)


def claim_phrasings(
    answer: str, right: Iterable[str], lang: str | None, synonyms: Synonyms = ()
) -> list[str]:
    """Forbidden claims taken from a wrong answer, each one no correct answer of the case
    claims: first its short spans, cut clean of common words ("otherwise", "today"), that
    hold a word no correct answer uses and that is no common word (the fewest words
    that say what is wrong, so that the claim also catches the same mistake worded a little
    differently), the one with the most such words first; then its whole clauses."""
    right = list(right)
    used = set().union(*(stems(r, lang) for r in right))
    common = common_words(lang)
    short, whole = [], []
    for text in spans(answer, lang):
        novel = stems(text, lang) - used - common
        ends = [stem(w.casefold(), lang) for w in _WORD.findall(text) if not _kind(w, lang)[1]]
        if not novel or not ends or {ends[0], ends[-1]} & common:
            continue  # nothing only wrong answers say, or a ragged cut ("otherwise chat")
        if not any(claims(r, text, lang=lang, synonyms=synonyms) for r in right):
            short.append((-len(novel), len(_WORD.findall(text)), text))
    for _, piece in clauses(answer):
        text = tidy(piece)
        words = stems(text, lang)
        if len(words) < 2 or any(claims(r, text, lang=lang, synonyms=synonyms) for r in right):
            continue
        whole.append((-len(words - used), len(text), text))
    found = [text for *_, text in sorted(short)[:MAX_CLAIM_SPANS]]
    return list(dict.fromkeys(found + [text for *_, text in sorted(whole)]))


def differing(clause: str, alt: str, lang: str | None, tries: int) -> list[tuple[str, str]]:
    """The one word of the fact the clause lacks, paired with each clause word the fact lacks,
    the word standing where the fact's word stands first: the candidates for a synonym."""

    def words(text: str) -> list[tuple[str, set[str]]]:
        return [(w, stems(w, lang)) for w in _WORD.findall(text.casefold()) if "'" not in w]

    fact = [(w, s) for w, s in words(alt) if s]
    said = [(w, s) for w, s in words(clause) if s]
    said_stems = set().union(*(s for _, s in said))
    fact_stems = set().union(*(s for _, s in fact))
    lacking = [(i, w) for i, (w, s) in enumerate(fact) if not s & said_stems]
    extra = [(i, w) for i, (w, s) in enumerate(said) if not s & fact_stems and not w.isdigit()]
    if len(lacking) != 1 or not extra:
        return []
    where = lacking[0][0] / len(fact)
    extra.sort(key=lambda e: abs(e[0] / len(said) - where))
    return [(lacking[0][1], w) for _, w in extra[:tries]]


def closest_clause(answer: str, it: Item, lang: str | None) -> tuple[str, str] | None:
    """The answer's shortest clause sharing the most content words with a phrasing of the
    fact, and that phrasing (where a synonym is sought)."""
    best: tuple[int, int, str, str] | None = None
    for _, piece in clauses(answer):
        text = tidy(piece)
        words = stems(text, lang)
        for alt in it.alternatives:
            shared = len(words & stems(alt, lang))
            key = (-shared, len(text))
            if shared and (best is None or key < best[:2]):
                best = (*key, text, alt)
    return (best[2], best[3]) if best else None
