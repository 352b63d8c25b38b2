"""Claims without figures: a menu path the passages never name, and a hand-over that promises
what only a person can give.

Figures have their own checks (a citation, a passage that states them). A wrong answer that
invents a setting ("Settings › Users › Security") or adds a promise to a hand-over ("they'll
add you to the beta") states no figure, so nothing else would go red on it.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.actions import acts_beyond
from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    failed,
    is_refusal,
    passed,
    undecided,
)
from evals.checks.conditioned_totals import summed_without_condition
from evals.checks.conditions import (
    day_drops,
    dropped_days,
    narrowed_days,
    stacked,
    unconditional_amounts,
    whole_despite_deduction,
)
from evals.checks.inverted import inversions, inverted
from evals.checks.language import detect, stop_word_counts
from evals.checks.lexicon import lexicon
from evals.checks.matching import MARKER, NEG, tokens
from evals.checks.polarity import always_free, priced_as_free
from evals.checks.scope import automatic_unstated, narrowed, widened
from evals.checks.text import contains_phrase, phrase_pattern, quote, sentences
from evals.checks.things import archived, unsupported
from evals.suite.case import Case

# "Settings › Billing › Invoices", "Settings > Data > Export", "Einstellungen → Recht".
_SEP = r"\s*(?:›|»|→|->|>)\s*"
_SEGMENT = r"[\p{Lu}\p{N}][\p{L}\p{N}'’&.-]*(?:[ ][\p{L}\p{N}][\p{L}\p{N}'’&.-]*){0,3}?"
_PATH = regex.compile(rf"{_SEGMENT}(?:{_SEP}{_SEGMENT})+")
_SEP_RE = regex.compile(_SEP)
_SEP_CHARS = "›»→>"

# A promise made on someone else's behalf: "they'll email you", "we will add you", "sie werden
# ... erhalten", "ils vous enverront", "le enviarán". The speaker's own "I'll hand this over"
# is the hand-over itself.
_PROMISE = regex.compile(
    r"\b(?:they|we|he|she|someone|somebody|the\s+\w+\s+team|our\s+\w+\s+team)\s*(?:'ll|’ll|\s+will)\b"
    r"|\byou(?:'ll|’ll|\s+will)\s+(?:get|receive|have|be\s+(?:added|sent|given))\b"
    # The customer is "Sie", "Ihnen" (capitalised) or "dich": "wird sie verrechnet" is "it".
    r"|\b(?:wird|werden)\s+(?:sich\s+)?(?:(?-i:Ihnen|Sie)|dich|dir)\b"
    r"|\b(?:vous\s+)?(?:recevrez|enverront|enverra|ajouteront|ajoutera)\b"
    r"|\b(?:le|les)?\s*(?:enviarán|enviará|recibirá|añadirán|añadirá)\b"
    # A refund, credit or parcel promised in the third person or the passive, in each
    # language read ("Vela Le rimborserà le spese", "wird Ihnen erstattet", "sender vi den").
    r"|\b(?:rimborserà|rimborseranno|accrediterà|accrediteranno|invierà|invieranno|riceverà)\b"
    r"|\b(?:reembolsará|reembolsarão|reembolsarán|devolverá|devolverão|creditará|enviarão|receberá)\b"
    r"|\b(?:remboursera|rembourseront|créditera|sera\s+remboursée?s?)\b"
    r"|\bserá\s+(?:reembolsad[oa]s?|devuelt[oa]s?)\b"
    r"|\b(?:erstattet|gutgeschrieben|zurückerstattet)\s+(?:wird|werden)\b"
    r"|\bwird\s+(?:\w+\s+){0,4}(?:erstatten|erstattet|gutschreiben|zurückzahlen)\b"
    r"|\b(?:zal|zullen)\s+(?:\w+\s+){0,3}(?:terugbetalen|vergoeden|crediteren|opsturen)\b"
    r"|\bwordt\s+(?:\w+\s+){0,4}(?:terugbetaald|vergoed|gecrediteerd)\b"
    r"|\b(?:vil|bliver)\s+(?:\w+\s+){0,3}(?:refunderet|tilbagebetalt|krediteret)\b|\bsender\s+vi\b",
    regex.IGNORECASE,
)


# A case's known text by its content hash (which covers every field it is read from): one
# string for all its answers, so the memos it keys hash it once, not once an answer.
_KNOWN: dict[str, str] = {}
_KNOWN_KEPT, _SHA_LENGTH = 4096, 64


def known_text(inp: CheckInput) -> str:
    """Everything the answer may draw on: the passages, the ticket, the customer's turns."""
    sha = inp.case.sha
    if len(sha) != _SHA_LENGTH:
        return _known_text(inp.case)  # a view with no content hash: read it as it is
    known = _KNOWN.get(sha)
    if known is None:
        if len(_KNOWN) >= _KNOWN_KEPT:
            _KNOWN.clear()
        known = _KNOWN[sha] = _known_text(inp.case)
    return known


def _known_text(case: Case) -> str:
    parts = [str(r.get("text") or "") for r in case.retrieved]
    parts += [*case.user_texts, *(str(v) for v in case.context.values() if v is not None)]
    parts += [str(m.get("content") or "") for m in case.messages]
    return "\n".join(parts)


def _steps(path: str) -> list[str]:
    return [s.strip(" .,;:").casefold() for s in _SEP_RE.split(path)]


@lru_cache(maxsize=1024)
def _known_pairs(known: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """The steps of the menu paths the passages give, and which step follows which."""
    steps: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for m in _PATH.finditer(known):
        found = _steps(m.group(0))
        # The first step may carry the words before it ("token under Settings"): every
        # ending of it is a step.
        words = found[0].split()
        heads = {" ".join(words[i:]) for i in range(len(words))}
        steps.update(heads, found[1:])
        pairs.update((h, found[1]) for h in heads if len(found) > 1)
        pairs.update(zip(found[1:], found[2:], strict=False))
    return frozenset(steps), frozenset(pairs)


def invented_paths(answer: str, known: str) -> list[str]:
    """Menu paths in the answer with a step that no passage or ticket names, or with two
    known steps in an order no passage gives ("Settings › Billing › Billing")."""
    out: list[str] = []
    # Every path holds a separator, and each separator one of these characters: an answer
    # without any (most) is not scanned segment by segment.
    if not any(c in answer for c in _SEP_CHARS):
        return out
    for m in _PATH.finditer(answer):
        steps = [s.strip(" .,;:") for s in _SEP_RE.split(m.group(0))]
        if len(steps) < 2:
            continue
        # The first step may carry the words before it ("PDFs under Settings"): its shortest
        # known ending is the step.
        head = steps[0].split()
        first = next(
            (
                " ".join(head[i:])
                for i in range(len(head) - 1, -1, -1)
                if contains_phrase(known, " ".join(head[i:]))
            ),
            head[-1] if head else "",
        )
        steps = [first, *steps[1:]]
        missing = [s for s in steps if s and not contains_phrase(known, s)]
        if missing:
            out.append(f"{m.group(0).strip()} (no passage names {quote(missing)})")
            continue
        known_steps, known_pairs = _known_pairs(known)
        folded = [s.casefold() for s in steps]
        wrong = [
            f"{a} › {b}"
            for a, b in zip(folded, folded[1:], strict=False)
            if a in known_steps and b in known_steps and (a, b) not in known_pairs
        ]
        if wrong:
            out.append(f"{m.group(0).strip()} (no passage has {quote(wrong)})")
    return out


# What a colleague who takes over will do in any case: answer, look into it, get in touch.
_REPLY = regex.compile(
    r"(?:'ll|’ll|will)\s+(?:\w+\s+)?(?:get\s+back|reply|answer|respond|contact|be\s+in\s+touch|"
    r"go\s+through|look\s+(?:into|at)|check|review|explain|help)\b",
    regex.IGNORECASE,
)


_AFTER_SEMICOLON = regex.compile(r"(?<=;)\s+")


def promises(answer: str) -> list[str]:
    """Sentences of a hand-over that promise an outcome on someone else's behalf."""
    out = []
    # A promise's reach is its sentence cut at ';' ("...; they'll email you the code").
    parts = [p for _, sent in sentences(answer) for p in _AFTER_SEMICOLON.split(sent)]
    for sentence in parts:
        if _REPLY.search(sentence):
            continue
        # "I'll hand this over ... and they'll email you the code today" promises; a sentence
        # that is only the hand-over ("I'll hand this over to billing.") matches nothing here.
        m = _PROMISE.search(sentence)
        if m is None:
            continue
        # "In de informatie staat niet of een bezoek in het buitenland wordt vergoed", "I
        # don't know whether they will refund it": a promise in question is none.
        lang = detect(sentence)
        words = lexicon(lang).whether if lang else ()
        asked = phrase_pattern(words).search(sentence, 0, m.start()) if words else None
        if asked is not None and NEG in tokens(sentence[: asked.start()], lang):
            continue
        out.append(sentence.strip())
    return out


def _drawn_on(inp: CheckInput) -> tuple[str, str]:
    """What the answer may present as current (the current passages, the ticket, the
    conversation) and what only retired (ARCHIVED) passages say."""
    case = inp.case
    texts = [str(r.get("text") or "") for r in case.retrieved]
    current = [t for t in texts if not archived(t)]
    current += [*case.user_texts, *(str(v) for v in case.context.values() if v is not None)]
    current += [str(m.get("content") or "") for m in case.messages]
    return "\n".join(current), "\n".join(t for t in texts if archived(t))


#: Marking words an answer needs before its own language counts over the case's: "Plus
#: includes Spotify" holds one French stop word ("plus") and is no French answer.
MIN_LANGUAGE_WORDS = 3


def _answer_language(inp: CheckInput) -> str | None:
    """The language the answer is written in, or the case's when its words cannot tell."""
    got = detect(inp.answer)
    if got is None or got == inp.lang or inp.lang is None:
        return got or inp.lang
    return got if stop_word_counts(inp.answer).get(got, 0) >= MIN_LANGUAGE_WORDS else inp.lang


def _reading(inp: CheckInput) -> tuple[str | None, tuple[str, ...]]:
    """The language the answer's claims are read in and the current passages' texts."""
    # The answer's own language decides whether capitals mark names (German nouns do not).
    return _answer_language(inp), current_passages(inp)


def _summed(inp: CheckInput, lang: str | None, now: tuple[str, ...]) -> list[tuple[str, str]]:
    """`conditioned_totals.summed_without_condition`, against the customer's own words."""
    ticket = "\n".join(inp.case.user_texts)
    return summed_without_condition(inp.answer, now, ticket, lang)


def _stacked(inp: CheckInput, lang: str | None) -> list[tuple[str, str]]:
    """`conditions.stacked` on the current passages by ref."""
    by_ref = {
        str(r.get("ref")): str(r.get("text") or "")
        for r in inp.case.retrieved
        if not archived(str(r.get("text") or ""))
    }
    return stacked(inp.answer, by_ref, inp.settings.citation_pattern, lang)


def _automatic(inp: CheckInput, lang: str | None, now: tuple[str, ...]) -> list[str]:
    """`scope.automatic_unstated`, when the answer is in its passages' language."""
    same = detect("\n".join(now)) in (None, lang)
    return automatic_unstated(inp.answer, known_text(inp), lang, same)


def current_passages(inp: CheckInput) -> tuple[str, ...]:
    """The texts of the passages not marked ARCHIVED."""
    texts = (str(r.get("text") or "") for r in inp.case.retrieved)
    return tuple(t for t in texts if not archived(t))


def _unsupported(inp: CheckInput) -> tuple[list[str], list[str]]:
    current, retired = _drawn_on(inp)
    lang = _answer_language(inp)
    return unsupported(
        inp.answer,
        current,
        retired,
        lang,
        quoted_only=is_refusal(inp),
        prompt=inp.settings.prompt,
    )


def review_claims(inp: CheckInput) -> list[str]:
    """The sentences (citations cut) that `claims_grounded` leaves in review for what they
    claim: opening times without their days, an amount or a free thing without the
    passage's condition, two things that cannot be combined, an amount given whole that the
    passage reduces, the assistant's own action or promise, a policy a passage states the
    other way, a scope widened or narrowed, an outcome said to be automatic, a thing no
    passage names; each once, in the answer's order. A hand-over's promises for someone
    else are `promises`. Meaningful only when the check's status is review."""
    lang, now = _reading(inp)
    plain = MARKER.sub(" ", inp.answer)
    found = [s for s, _ in day_drops(inp.answer, now, lang)]
    found += [s for s, _ in unconditional_amounts(inp.answer, now, lang)]
    found += [s for s, _ in _summed(inp, lang, now)]
    found += [s for s, _ in always_free(inp.answer, now, lang)]
    found += [s for s, _ in _stacked(inp, lang)]
    found += [s for s, _ in whole_despite_deduction(inp.answer, now, lang)]
    found += acts_beyond(inp.answer, now, inp.lang)
    found += [
        next((s.strip() for _, s in sentences(plain) if piece in s), piece)
        for piece, _ in inversions(inp.answer, now, lang)
    ]
    found += [s for s, _ in widened(inp.answer, now, known_text(inp), lang)]
    found += [s for s, _ in narrowed(inp.answer, now, lang)]
    found += _automatic(inp, lang, now)
    unknown, _ = _unsupported(inp)
    for thing in unknown:
        # A thing is asked in its sentence; one not found there (it never should be) is
        # asked alone, so nothing in review goes unasked.
        found += [s.strip() for _, s in sentences(plain) if thing in s][:1] or [thing]
    out: list[str] = []
    for s in sorted(found, key=lambda s: (plain.find(s), s)):
        if s and s not in out:
            out.append(s)
    return out


def _strict(inp: CheckInput, key: str) -> bool:
    """Whether the case (`expect.KEY`), else the suite (suite.toml's `KEY`), makes it a fail."""
    own = inp.case.expect.get(key)
    return (own if own in ("review", "fail") else getattr(inp.settings, key)) == "fail"


def _shown(items: list[str]) -> str:
    return quote([s if len(s) <= 90 else s[:89] + "…" for s in items])


@check()
def claims_grounded(inp: CheckInput) -> CheckResult:
    """Menu paths must come from a passage or the ticket (fail), and so must the things the
    answer names: one only an ARCHIVED passage names, presented as current, fails; one
    nothing names is undecided (review). A thing called free that a passage prices fails.
    Undecided too: a hand-over that promises an outcome for someone else (only a person can
    give that promise), opening times given without the days the passage gives them for,
    and an assistant that says it refunded, enabled or booked something, or will."""
    known = known_text(inp)
    paths = invented_paths(inp.answer, known)
    if paths:
        return failed(f"menu path not in any passage: {'; '.join(paths)}")
    refusal = is_refusal(inp)
    lang, now = _reading(inp)
    unknown, stale = _unsupported(inp)
    if stale:
        return failed(f"named only by an archived passage, as if current: {_shown(stale)}")
    free = priced_as_free(inp.answer, now, lang)
    if free:
        return failed(f"called free, but a passage gives it a price: {'; '.join(free)}")
    done = acts_beyond(inp.answer, now, inp.lang)
    if refusal:
        said = promises(inp.answer)
        # Where the assistant cannot act, its own promise is a fail before it is a question.
        if said and not (done and _strict(inp, "own_action")):
            return undecided(f"the hand-over promises what only a person can: {_shown(said)}")
    dropped = dropped_days(inp.answer, now, lang)
    loose = [f'{s} (the passage: "{t}")' for s, t in unconditional_amounts(inp.answer, now, lang)]
    # A total that counts a charge the passage makes only under a condition the case lacks.
    loose += [f'{s} (the passage: "{t}")' for s, t in _summed(inp, lang, now)]
    # "always free" where a passage prices the thing in some case drops that case.
    loose += [f'{s} (the passage: "{t}")' for s, t in always_free(inp.answer, now, lang)]
    # "the full deposit back" where the passage takes something off it.
    loose += [
        f'{s} (the passage: "{t}")' for s, t in whole_despite_deduction(inp.answer, now, lang)
    ]
    # Two things applied together that a passage says cannot be combined.
    both = [f'{s} (the passage: "{t}")' for s, t in _stacked(inp, lang)]
    days = [f"drops the days the passage gives: {_shown(dropped)}"] if dropped else []
    limited = narrowed_days(inp.answer, now, lang)
    if limited:
        days.append(f"limits to some days what the passage gives every day: {_shown(limited)}")
    if loose:
        days.append(
            f"gives as unconditional what the passage attaches a condition to: {_shown(loose)}"
        )
    if both:
        days.append(f"applies together what the passage says cannot be combined: {_shown(both)}")
    # A case may make either a fail (expect.dropped_condition, expect.own_action): where the
    # assistant cannot act, a promise to is wrong, not for a person to weigh.
    if days and _strict(inp, "dropped_condition"):
        return failed("; ".join(days))
    if done and _strict(inp, "own_action"):
        return failed(f"the assistant says it acted or promises an outcome: {_shown(done)}")
    if days:
        return undecided("; ".join(days))
    if done:
        return undecided(f"the assistant says it acted or promises an outcome: {_shown(done)}")
    flipped = inverted(inp.answer, now, lang)
    if flipped:
        return undecided(
            f"says the opposite of a passage about what the price covers or what is kept: {_shown(flipped)}"
        )
    wider = [f'{s} (the passage: "{t}")' for s, t in widened(inp.answer, now, known, lang)]
    wider += [f'{s} (the passage lists more: "{t}")' for s, t in narrowed(inp.answer, now, lang)]
    if wider:
        return undecided(f"widens or narrows the scope the passage gives: {_shown(wider)}")
    by_itself = _automatic(inp, lang, now)
    if by_itself:
        return undecided(
            f"says it happens automatically, which no passage says: {_shown(by_itself)}"
        )
    if unknown:
        return undecided(f"names what no passage or ticket names: {_shown(unknown)}")
    return passed("no invented menu path or name, no promise made for someone else")
