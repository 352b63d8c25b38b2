"""The assistant's own actions and promises: "I've refunded the double charge", "I have
enabled the agreement for you", "we'll make an exception", "a callback is on its way",
"Ich habe den Vorschuss bereits für Sie beantragt", "ik beloof je dat het maandag opgelost
is", "Le confermo che riceverà 650 €". An assistant answering from passages can do none of
that; passing the request to a person ("I've forwarded this to billing", "je transmets
votre demande") is the hand-over, not an action.

Read by structure, in the answer's own language's `[actions]` words (languages/*.toml):

- the first person in the perfect with an account action ("ik heb ... geregistreerd");
- the first person in the perfect with "already" ("ho già aperto la pratica", "j'ai déjà
  contacté"), whatever the verb, unless it is one of reading, telling, computing or handing
  over ("ho già verificato", "wie ich bereits erklärt habe" is no claim);
- a first-person promise ("I promise", "ich garantiere", "prometto");
- a first-person assurance whose sentence states an outcome in the future ("Le confermo che
  riceverà", "I can confirm you will get");
- a first-person future account action ("we'll make an exception").

A negation in the clause ("ik heb nog niets gewijzigd", "non ho attivato") takes it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import SUPPORTED, lexicon
from evals.checks.matching import MARKER, content, tokens
from evals.checks.text import sentences

#: How far (characters) an account action or "already" may stand from its auxiliary: one
#: clause ("Ich habe den Vorschuss bereits für Sie beantragt"; a Dutch or German verb comes
#: last: "Ik heb voor morgen van 10:00 tot 12:00 een vergaderruimte voor je geboekt").
REACH = 100
#: Words before a promise within which a negation takes it back ("non Le prometto").
NEG_REACH = 3
# A clause ends at these: "already" in the next clause is about something else.
# A clock time's colon ("10:00") ends nothing.
_CLAUSE_END = regex.compile(r"[.!?;,]|(?<!\d):(?!\d)|\s[–—-]\s")
_WORD = regex.compile(r"[\p{L}'’]+")


def _alt(phrases: tuple[str, ...]) -> str:
    body = "|".join(
        r"\s+".join(regex.escape(w) for w in p.split())
        for p in sorted(phrases, key=len, reverse=True)
    )
    return rf"(?<![\p{{L}}'’])(?:{body})(?![\p{{L}}])" if body else r"(?!)"


@dataclass(frozen=True)
class _Patterns:
    perfect: regex.Pattern[str]
    perfect_we: regex.Pattern[str]
    you: regex.Pattern[str]
    you_capitalised: regex.Pattern[str]
    already: regex.Pattern[str]
    not_already: regex.Pattern[str]
    done: regex.Pattern[str]
    not_done: tuple[str, ...]
    forwarded: tuple[str, ...]
    recipients: tuple[str, ...]
    will: tuple[regex.Pattern[str], ...]
    past: tuple[regex.Pattern[str], ...]
    promise: regex.Pattern[str]
    assure: regex.Pattern[str]
    future: tuple[regex.Pattern[str], ...]
    negators: frozenset[str]
    first_person: frozenset[str]
    vouch: tuple[str, ...]
    #: a word that opens with a verb of promising: sentences without one are not read word by word
    vouch_word: regex.Pattern[str]
    conditional: frozenset[str]


@cache
def _patterns(lang: str) -> _Patterns:
    """One language's patterns, compiled once per process."""
    lex = lexicon(lang)
    a = lex.actions
    flags = regex.IGNORECASE
    return _Patterns(
        perfect=regex.compile(_alt(a.perfect), flags),
        perfect_we=regex.compile(_alt(a.perfect_we), flags),
        you=regex.compile(_alt(a.you or (*lex.register.formal, *lex.register.informal)), flags)
        if a.you or lex.register.informal
        else regex.compile(r"(?!)"),
        # "Ihnen", "Le", "Dem": the customer only capitalised (case kept).
        you_capitalised=regex.compile(_alt(lex.register.formal_capitalised)),
        already=regex.compile(_alt(a.already), flags),
        not_already=regex.compile(_alt(a.not_already), flags),
        done=regex.compile(_alt(a.done), flags),
        not_done=a.not_done,
        forwarded=a.forwarded,
        recipients=a.recipients,
        will=tuple(regex.compile(p, flags) for p in (*a.will, *a.past)),
        past=tuple(regex.compile(p, flags) for p in a.past),
        promise=regex.compile(_alt(a.promise), flags),
        assure=regex.compile(_alt(a.assure), flags),
        future=tuple(regex.compile(p, flags) for p in a.future),
        negators=lex.negators | frozenset(a.negators),
        first_person=frozenset(a.first_person),
        vouch=a.vouch,
        vouch_word=regex.compile(
            rf"(?<![\p{{L}}'’])(?:{'|'.join(map(regex.escape, a.vouch)) or '(?!)'})", flags
        ),
        conditional=lex.conditional,
    )


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _clause_after(sentence: str, at: int) -> str:
    """The sentence from `at` to the end of its clause, at most REACH characters."""
    rest = sentence[at : at + REACH]
    cut = _CLAUSE_END.search(rest)
    return rest[: cut.start()] if cut else rest


def _lead(sentence: str, at: int) -> list[str]:
    """The last words of the clause before `at` ("non" in "non Le prometto", not "geen" in
    "geen zorgen: ik beloof")."""
    ends = [m.end() for m in _CLAUSE_END.finditer(sentence, 0, at)]
    return _words(sentence[ends[-1] if ends else 0 : at])[-NEG_REACH:]


def _negated(p: _Patterns, sentence: str, at: int, clause: str = "") -> bool:
    """A negation just before `at` in its clause, or inside `clause`."""
    return bool(p.negators & {*_lead(sentence, at), *_words(clause)})


def _perfect_claim(p: _Patterns, sentence: str) -> bool:
    """The first person in the perfect with an account action, or with "already" and no
    verb of reading, telling or handing over."""
    plural = [(m, True) for m in p.perfect_we.finditer(sentence)]
    for m, we in [*((m, False) for m in p.perfect.finditer(sentence)), *plural]:
        clause = _clause_after(sentence, m.end())
        if we and not (p.you.search(clause) or p.you_capitalised.search(clause)):
            continue  # "we have added a feature": the company's doing, not the account's
        if _negated(p, sentence, m.start(), clause):
            continue
        if p.done.search(clause):
            return True
        # "Ya he registrado": the word may stand just before the auxiliary too.
        last = _lead(sentence, m.start())[-1:]
        ahead = any(not p.not_already.match(clause, a.start()) for a in p.already.finditer(clause))
        if not (ahead or (last and p.already.fullmatch(last[0]))):
            continue
        said = " ".join(w for w in _words(clause) if not p.already.fullmatch(w))
        if any(s in said for s in p.forwarded) and not any(r in said for r in p.recipients):
            return True  # passed on already, to someone who is no colleague: an act
        if not any(stem in said for stem in p.not_done):
            return True
    return False


#: How many words before a verb of promising its first-person word may stand.
VOUCH_REACH = 5


def _vouched(p: _Patterns, sentence: str) -> bool:
    """A first-person word and a verb of promising or assuring in one clause, whatever stands
    between them ("kann ich Ihnen schon jetzt zusichern", "posso già garantirLe"), not
    negated, with a future outcome after the verb."""
    if not p.vouch or p.vouch_word.search(sentence) is None:
        return False
    start = 0
    for end in [*(m.start() for m in _CLAUSE_END.finditer(sentence)), len(sentence)]:
        clause = sentence[start:end]
        for m in _WORD.finditer(clause):
            w = m.group(0).casefold()
            if not w.startswith(p.vouch):
                continue
            # The first person before the verb, close to it ("kann ich Ihnen schon jetzt
            # zusichern"); "a coupon promised in a call isn't something I can confirm" is none.
            lead = _words(clause[: m.start()])
            if not p.first_person & set(lead[-VOUCH_REACH:]):
                continue
            if p.negators & set(lead):
                break  # "ich kann Ihnen leider nicht zusichern"
            at = start + m.start()
            if any(f.search(sentence, at + len(w)) for f in p.future):
                return True
        start = end + 1
    return False


def _promise(p: _Patterns, sentence: str) -> bool:
    if _vouched(p, sentence):
        return True
    for m in p.promise.finditer(sentence):
        if not _negated(p, sentence, m.start()):
            return True
    for m in p.assure.finditer(sentence):
        if _negated(p, sentence, m.start()):
            continue
        if any(f.search(sentence, m.end()) for f in p.future):
            return True
    return False


def _done_without_auxiliary(p: _Patterns, lang: str, sentence: str) -> bool:
    """A language that tells its own past in a first-person form (Portuguese "registei")
    has no auxiliary: the form alone is the claim."""
    if lexicon(lang).actions.perfect:
        return False
    return any(not _negated(p, sentence, m.start()) for m in p.done.finditer(sentence))


def _said_as_fact(p: _Patterns, sentence: str, at: int) -> bool:
    """Not a hypothesis ("if I applied the discount, you would pay 36 €") or a negation."""
    return not (p.conditional & set(_lead(sentence, at))) and not _negated(p, sentence, at)


def _claims(lang: str, sentence: str) -> bool:
    p = _patterns(lang)
    return (
        _perfect_claim(p, sentence)
        or _done_without_auxiliary(p, lang, sentence)
        or _promise(p, sentence)
        or any(_said_as_fact(p, sentence, m.start()) for w in p.will for m in w.finditer(sentence))
    )


def acts(answer: str, lang: str | None = None) -> list[str]:
    """The answer's sentences in which the assistant claims to have acted on the account or
    promises an outcome, read in the answer's own language, else the case's (`lang`), else
    (too short to tell, no case language) in each language read."""
    known = detect(answer) or lang
    langs = [known] if known in SUPPORTED else list(SUPPORTED)
    plain = MARKER.sub(" ", answer)
    return [s.strip() for _, s in sentences(plain) if any(_claims(g, s) for g in langs)]


#: Of an action sentence's meaning words, the share a passage sentence must hold for the
#: sentence to restate that passage's policy.
RESTATED = 0.6


def _done_words(sentence: str, lang: str | None) -> list[str]:
    """The words by which the sentence says the assistant has acted: its perfect, "already",
    a first-person past ("registei", "I applied"); empty when it says none."""
    code = lang if lang in SUPPORTED else "en"
    p = _patterns(code)
    found = [
        m.group(0).casefold()
        for x in (p.perfect, p.perfect_we, p.already, *p.past)
        for m in x.finditer(sentence)
    ]
    if _done_without_auxiliary(p, code, sentence):
        found += [m.group(0).casefold() for m in p.done.finditer(sentence)]
    return found


def acts_beyond(answer: str, passages: tuple[str, ...], lang: str | None = None) -> list[str]:
    """`acts`, less the sentences that restate what a passage says the company does
    ("Ti rimborsiamo il valore delle porzioni" where the passage says "Ti rimborsiamo il
    valore delle porzioni della ricetta interessata"): the policy, not an action the
    assistant claims to take. A sentence that says it was done ("I have refunded",
    "cancelei") is an action unless the passage it restates says so in the same words
    (Portuguese "reembolsamos" is "we refund" as well as "we refunded")."""
    found = acts(answer, lang)
    if not found:
        return found
    # A short answer may not tell its language: the passages it restates then do.
    said = detect(answer) or lang or detect("\n".join(passages))
    policies = [
        (s.casefold(), frozenset(w for w in content(tokens(s, said), said) if not w.isdigit()))
        for text in passages
        for _, s in sentences(MARKER.sub(" ", text))
    ]
    out = []
    for sentence in found:
        words = {w for w in content(tokens(sentence, said), said) if not w.isdigit()}
        done = _done_words(sentence, said)
        restated = words and any(
            len(words & theirs) >= RESTATED * len(words) and all(d in text for d in done)
            for text, theirs in policies
        )
        if not restated:
            out.append(sentence)
    return out
