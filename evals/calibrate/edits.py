"""The edits `--suggest` draws from one disagreement: each a change of one case (or of the
synonyms file) that would settle it, most likely first. Whether an edit is offered is
decided by grading it (evals/calibrate/suggest.py); this module only proposes.

A correct answer that failed or was left in review on a fact gives the fact a phrasing taken
from the answer (evals/calibrate/phrasing.py); once the fact holds MAX_PHRASINGS, a suite-wide
synonym when the answer swaps one word of the fact, else the phrasing all the same, marked as
past the usual number. A figure found but not bound to its subject gives the figure's `about`
a word its clause names. A wrong answer gives a forbidden figure or claim no correct answer of
the case states.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from evals.calibrate.checks import Graded
from evals.calibrate.phrasing import (
    claim_phrasings,
    closest_clause,
    common_words,
    differing,
    fact_context,
    fact_phrasings,
    stems,
)
from evals.checks.base import case_language
from evals.checks.expectations import Item, items
from evals.checks.matching import Synonyms, find, states
from evals.checks.values import contains_value, parse_figures, parse_one
from evals.errors import InputError
from evals.suite.case import Case
from evals.suite.folder import load_synonyms

#: A fact holds at most this many phrasings as a rule: past it, the difference is a
#: suite-wide synonym where it is one word, and otherwise one more phrasing, said to be past it.
MAX_PHRASINGS = 3
# Words of the answer tried as the synonym of the fact's word (each try grades the suite).
MAX_SYNONYM_TRIES = 4
# Phrasings tried for one fact (each try grades the case's answers).
MAX_PHRASING_TRIES = 5
_LIMIT = regex.compile(r"\bat most (\d+) words\b", regex.IGNORECASE)
_WORD = regex.compile(r"[\p{L}\p{N}]+")

Data = dict[str, Any]


@dataclass(frozen=True)
class Edit:
    """One proposed change: what it does, to which case, and how (a new case data from the
    old, a new synonyms file text from the old); either may be None."""

    what: str
    case: str
    change: Callable[[Data], Data] | None = None
    synonyms: Callable[[str | None], str | None] | None = None


@dataclass(frozen=True)
class Draft:
    """What one disagreement offers: the edits to try, and why there is none when empty."""

    edits: list[Edit]
    none_why: str = "no edit of the kinds --suggest makes would settle it"


def add_phrasing(data: Data, key: str, n: int, phrase: str) -> Data:
    """`data` with `phrase` as one more accepted phrasing of expect[key][n]."""
    out = copy.deepcopy(data)
    entry = out["expect"][key][n]
    if isinstance(entry, str):
        out["expect"][key][n] = [entry, phrase]
    elif isinstance(entry, list):
        entry.append(phrase)
    elif "any" in entry and isinstance(entry["any"], list):
        entry["any"].append(phrase)
    else:
        entry["any"] = [entry.pop("any", None) or entry.pop("value"), phrase]
    return out


def add_to(data: Data, key: str, value: Any) -> Data:
    """`data` with `value` appended to expect[key] (set, for max_words)."""
    out = copy.deepcopy(data)
    expect = out.setdefault("expect", {})
    expect[key] = value if key == "max_words" else [*expect.get(key, []), value]
    return out


def with_synonym(text: str | None, word: str, other: str, groups: Synonyms) -> str | None:
    """The synonyms file with `other` joined to `word`'s group (or a new group of the two)."""
    text = text if text is not None else "groups = [\n]\n"
    if any(other in g for g in groups):
        return None  # a phrasing sits in one group only
    quoted = json.dumps(other, ensure_ascii=False)
    for group in groups:
        if word in group:
            # One group per line, as the file is written: join the line that lists it.
            word_re = regex.escape(json.dumps(word, ensure_ascii=False))
            pat = regex.compile(r"^(\s*\[[^\n]*" + word_re + r"[^\n]*?)\]", regex.MULTILINE)
            m = pat.search(text)
            return None if m is None else text[: m.end(1)] + f", {quoted}]" + text[m.end() :]
    m = regex.search(r"\n\]\s*$", text)
    if m is None:
        return None
    line = f"\n  [{json.dumps(word, ensure_ascii=False)}, {quoted}],"
    return text[: m.start()] + line + text[m.start() :]


def parse_synonyms(text: str) -> Synonyms | None:
    """The groups of a synonyms file's text, or None when it is not a valid one."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "synonyms.toml").write_text(text, "utf-8")
        try:
            return load_synonyms(Path(tmp))
        except InputError:
            return None


def missing_facts(case: Case, answer: str, synonyms: Synonyms) -> list[int]:
    """Indexes in expect.facts of the required facts no phrasing of which the answer states."""
    lang = case_language(case)
    out = []
    for n, it in enumerate(items(case.data.get("expect", {}).get("facts"))):
        hits = [m for a in it.alternatives for m in find(answer, a, lang=lang, synonyms=synonyms)]
        if not it.optional and not any(not m.negated for m in hits):
            out.append(n)
    return out


@dataclass(frozen=True)
class Source:
    """What the edits are drawn from: the cases as edited so far and their labelled answers."""

    cases: dict[str, Case]
    answers: Callable[[str], list[Any]]  # the labelled answers of one case
    synonyms: Synonyms
    synonyms_text: str | None
    topical: frozenset[str]  # stems of the words the cases expect: never a synonym
    prompt: str


def _states_fact(answer: str, it: Item, lang: str | None, syn: Synonyms) -> bool:
    return any(states(answer, a, lang=lang, synonyms=syn) for a in it.alternatives)


def _fact_edits(g: Graded, s: Source) -> list[Edit]:
    """Phrasings (or synonyms) for every fact the answer misses, the i-th candidate of each
    fact made in one edit, so that an answer missing two facts is settled by one edit."""
    case, answer = s.cases[g.item.case], g.item.answer
    lang, data, syn = case_language(case), case.data, s.synonyms
    facts = items(data["expect"]["facts"])
    texts = [str(p.get("text") or "") for p in case.retrieved] + list(case.user_texts)
    others = [a for a in s.answers(case.id) if a.answer != answer]
    per_fact: list[tuple[int, list[str]]] = []
    synonym_edits: list[Edit] = []
    for n in missing_facts(case, answer, syn):
        it = facts[n]
        lacking = [a for a in others if not _states_fact(a.answer, it, lang, syn)]
        ranked = fact_phrasings(
            answer,
            it,
            fact_context(it, texts, lang, syn),
            [o for k, o in enumerate(facts) if k != n],
            [a.answer for a in lacking if a.label == "pass"],
            [a.answer for a in lacking if a.label == "fail"],
            lang,
            syn,
        )
        per_fact.append((n, [r.text for r in ranked[:MAX_PHRASING_TRIES]]))
        if len(it.alternatives) >= MAX_PHRASINGS:
            synonym_edits += _synonym_edits(answer, it, case.id, s, lang)
    per_fact = [(n, texts) for n, texts in per_fact if texts]
    out = list(synonym_edits)  # at MAX_PHRASINGS a general word swap comes first
    for i in range(max((len(t) for _, t in per_fact), default=0)):
        picks = [(n, t[min(i, len(t) - 1)]) for n, t in per_fact]
        out.append(_phrasing_edit(case.id, picks, facts))
    return out


def _phrasing_edit(cid: str, picks: list[tuple[int, str]], facts: list[Item]) -> Edit:
    def change(data: Data) -> Data:
        for n, phrase in picks:
            data = add_phrasing(data, "facts", n, phrase)
        return data

    parts = []
    for n, phrase in picks:
        held = len(facts[n].alternatives)
        past = (
            f" (its {held + 1}th phrasing, past the usual {MAX_PHRASINGS}: the answer words it "
            "differently in more than one word, so no suite-wide synonym says the same)"
            if held >= MAX_PHRASINGS
            else ""
        )
        parts.append(f"expect.facts[{n}]: add the phrasing {phrase!r}{past}")
    return Edit("; ".join(parts), cid, change)


def _synonym_edits(answer: str, it: Item, cid: str, s: Source, lang: str | None) -> list[Edit]:
    found = closest_clause(answer, it, lang)
    if found is None:
        return []
    out = []
    for word, other in differing(*found, lang, MAX_SYNONYM_TRIES + 4):
        said = stems(other, lang)
        if said & s.topical:
            continue  # a word of some fact's meaning (a plan, "deleted") means only itself
        if said <= common_words(lang) or other.isdigit():
            # "within", "still", "every": made a synonym suite-wide, "kept within 30 days"
            # would state "deleted within 30 days".
            continue
        if with_synonym(s.synonyms_text, word, other, s.synonyms) is None:
            continue

        def change(text: str | None, word: str = word, other: str = other) -> str | None:
            groups = parse_synonyms(text) if text is not None else ()
            return None if groups is None else with_synonym(text, word, other, groups)

        out.append(Edit(f"synonyms.toml: {other!r} means {word!r}", cid, synonyms=change))
    return out[:MAX_SYNONYM_TRIES]


def for_correct(g: Graded, s: Source) -> Draft:
    """Edits that would let a correct answer pass, most likely first."""
    case, answer = s.cases[g.item.case], g.item.answer
    lang, data, out = case_language(case), case.data, []
    if "facts_present" in g.failing + g.undecided:
        out += _fact_edits(g, s)
    if "figures_expected" in g.failing:
        for n, it in enumerate(items(data["expect"].get("figures"))):
            for fig in parse_figures(answer, lang):
                if parse_one(fig.text) is not None and fig.text not in it.alternatives:
                    what = f"expect.figures[{n}]: add the form {fig.text!r}"
                    change = lambda d, n=n, t=fig.text: add_phrasing(d, "figures", n, t)  # noqa: E731
                    out.append(Edit(what, case.id, change))
    if "max_words" in g.failing:
        allowed = [int(x) for x in _LIMIT.findall(s.prompt)]
        need = len(answer.split())
        for limit in sorted(x for x in allowed if x >= need > data["expect"]["max_words"]):
            what = f"expect.max_words: {limit}, as the prompt allows"
            out.append(Edit(what, case.id, lambda d, x=limit: add_to(d, "max_words", x)))
    handled = {"facts_present", "figures_expected", "max_words"}
    other = sorted(set(g.failing + g.undecided) - handled)
    if "claims_grounded" in other:
        why = (
            "claims_grounded left it in review (a hand-over that promises what only a person "
            "can): no edit of the case can tell a kept promise from an empty one; a person does"
        )
    elif other:
        why = f"{', '.join(other)} disagreed, and --suggest makes no edit for that check"
    else:
        why = "no phrasing in the answer fits the fact it misses"
    return Draft(out, why)


def for_wrong(g: Graded, s: Source) -> Draft:
    """Edits that would fail a wrong answer: a figure no passage, ticket or correct answer of
    the case states, then a claim no correct answer of the case makes."""
    case, answer = s.cases[g.item.case], g.item.answer
    lang, syn, out = case_language(case), s.synonyms, []
    passages = [str(p.get("text") or "") for p in case.retrieved]
    right = [a.answer for a in s.answers(case.id) if a.label == "pass"]
    given = [*passages, *case.user_texts, *right]
    for fig in parse_figures(answer, lang):
        if parse_one(fig.text) and not any(contains_value(t, fig, lang) for t in given):
            what = f"expect.forbidden_figures: add {fig.text!r} (no passage states it)"
            change = lambda d, t=fig.text: add_to(d, "forbidden_figures", t)  # noqa: E731
            out.append(Edit(what, case.id, change))
    for text in claim_phrasings(answer, right, lang, syn):
        what = f"expect.must_not_contain: add {text!r}"
        out.append(Edit(what, case.id, lambda d, t=text: add_to(d, "must_not_contain", t)))
    why = "every figure and clause of it is one a correct answer of the case states too"
    return Draft(out, why)
