"""A policy the answer inverts: "la manutenzione ordinaria non è inclusa e si paga a parte"
where the passage says "La manutenzione ordinaria è inclusa in tutti i piani".

Each clause that says a thing is covered by the price ("included", "free of charge") or not
("not included", "charged separately"), in each language file's `included` and `charged`,
or that what is left over is kept ("unused kilometres carry over") or lapses ("expire at
the end of the month"), its `kept` and `lapses`, has a polarity; an answer clause whose polarity is the opposite of a current passage clause
about the same thing (a content word shared, two when the answer says "not covered" and
the passage clause attaches a condition; and no name the passage clause does not name:
"not included in Starter" against "included in Pro" is about another plan) is one to
review. Never a fail: a person or the judge decides.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.clauses import clauses
from evals.checks.lexicon import FALLBACK, capitalises_nouns, lexicon
from evals.checks.matching import NEG, content, tokens
from evals.checks.text import normalise

_NAME = regex.compile(r"(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}]*")
#: Words before a covering word within which a negation denies it ("non è inclusa"); two
#: before a keeping one, whose subject is often negated itself ("i chilometri non percorsi
#: vengono riportati" keeps them; "non vengono riportati" does not).
REACH = (3, 2)
#: Content words an answer clause must share with the passage clause it inverts ("the
#: chain is charged separately" against "wear parts such as the chain ... free of
#: charge"); one more when it says "not covered" and the passage clause attaches a
#: condition the customer's case may fail.
MIN_SHARED = 1


@lru_cache(maxsize=16)
def _patterns(lang: str) -> tuple[tuple[regex.Pattern[str], regex.Pattern[str]], ...]:
    """Each policy's (said, denied) words: covered or charged, kept or lapsing."""
    lex = lexicon(lang)

    def alt(words: tuple[str, ...]) -> regex.Pattern[str]:
        body = "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
        return regex.compile(rf"(?<![\p{{L}}])(?:{body})(?![\p{{L}}])" if body else r"(?!)")

    return ((alt(lex.included), alt(lex.charged)), (alt(lex.kept), alt(lex.lapses)))


def _polarity(clause: str, lang: str) -> tuple[int, bool, str] | None:
    """The policy the clause states (its index in `_patterns`), True when it says its thing
    is covered (or kept), False when not; with the clause's words that say so removed (its
    subject). None when it says neither."""
    text = normalise(clause)
    for policy, (inc, chg) in enumerate(_patterns(lang)):
        m_chg = chg.search(text)
        if m_chg is not None:
            return policy, False, text[: m_chg.start()] + " " + text[m_chg.end() :]
        m_inc = inc.search(text)
        if m_inc is None:
            continue
        before = tokens(text[: m_inc.start()], lang)[-REACH[policy] :]
        return policy, NEG not in before, text[: m_inc.start()] + " " + text[m_inc.end() :]
    return None


def _conditional(clause: str, lang: str) -> bool:
    """Whether the passage clause attaches a condition ("only if", "solo se", "wenn")."""
    lex = lexicon(lang)
    said = f" {normalise(clause)} "
    return any(f" {w} " in said for w in (*lex.provided, *lex.restrictive))


def _names(clause: str) -> set[str]:
    return {m.group(0).casefold() for m in _NAME.finditer(clause)}


_Said = tuple[int, bool, set[str], set[str], str]


def _said(text: str, lang: str) -> list[_Said]:
    out = []
    for _, piece in clauses(text):
        got = _polarity(piece, lang)
        if got is None:
            continue
        policy, covered, rest = got
        # Numbers and ordinals ("1e" of "eerste") name no thing: "vanaf de eerste dag" and
        # "de eerste verschijnselen" are about different things.
        words = {w for w in content(tokens(rest, lang), lang) if not any(c.isdigit() for c in w)}
        out.append((policy, covered, words, _names(piece.split(" ", 1)[-1]), piece.strip()))
    return out


@lru_cache(maxsize=1024)
def _passage_said(passage: str, lang: str) -> tuple[_Said, ...]:
    """`_said` of a passage, once per passage text."""
    return tuple(_said(passage, lang))


def inversions(answer: str, passages: tuple[str, ...], lang: str | None) -> list[tuple[str, str]]:
    """The answer's clauses that invert a current passage's covered-or-charged claim about
    the same thing, each with that passage clause."""
    lang = lang or FALLBACK
    theirs = [c for p in passages for c in _passage_said(p, lang)]
    out = []
    # Where every noun is capitalised, only names the passages use tell two plans apart:
    # "Folgemonat" names no plan.
    known = {n for p in passages for n in _names(p)} if capitalises_nouns(lang) else None
    for policy, covered, words, names, piece in _said(answer, lang):
        if known is not None:
            names &= known
        for p_policy, p_covered, p_words, p_names, p_piece in theirs:
            if policy != p_policy or covered == p_covered or len(words & p_words) < MIN_SHARED:
                continue
            if names - p_names:
                continue  # about a plan or thing the passage clause does not name
            if _conditional(piece, lang) and _conditional(p_piece, lang):
                # "se i sintomi compaiono durante la carenza, non è coperta" beside "è coperta
                # solo ... dopo la carenza": each says when, and they agree.
                continue
            if (
                not covered
                and len(words & p_words) < MIN_SHARED + 1
                and _conditional(p_piece, lang)
            ):
                # "il furto non è coperto" beside "è coperto ... solo se ...": the
                # customer's case may fail the passage's condition; one shared word is
                # too little to say it is the claim turned round.
                continue
            out.append((piece, p_piece))
            break
    return out


def inverted(answer: str, passages: tuple[str, ...], lang: str | None) -> list[str]:
    """`inversions` as a detail quotes them."""
    return [
        f'{piece} (the passage: "{theirs}")' for piece, theirs in inversions(answer, passages, lang)
    ]
