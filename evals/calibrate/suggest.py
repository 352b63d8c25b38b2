"""`invoke calibrate --checks --suggest`: each disagreement between the checks and a labelled
answer turned into an edit of the suite, offered only when it fixes answers and breaks none.

A correct answer that failed a fact gives the fact its phrasing (or, once a fact holds
MAX_PHRASINGS, a suite-wide synonym); a figure its other form; `max_words` the limit the
prompt allows. A wrong answer that passed gives a forbidden figure or a forbidden claim.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from evals.calibrate.checks import Graded, grade_answers
from evals.calibrate.grading import calibrate_checks
from evals.calibrate.labelled import Labelled, case_answers
from evals.checks.base import case_language
from evals.checks.clauses import claims, clauses
from evals.checks.expectations import Item, all_phrasings, items
from evals.checks.loading import load_cases
from evals.checks.matching import content, find, tokens
from evals.checks.values import contains_value, parse_figures, parse_one
from evals.errors import InputError
from evals.suite.case import Case, canonical_json
from evals.suite.folder import Suite, SuiteSettings, load_synonyms

#: A fact holds at most this many phrasings: past it, the difference is a suite-wide synonym.
MAX_PHRASINGS = 3
# Words of the answer tried as the synonym of the fact's word (each try grades the suite).
MAX_SYNONYM_TRIES = 4
_WORDS = regex.compile(r"[\p{L}\p{N}]+")
_LIMIT = regex.compile(r"\bat most (\d+) words\b", regex.IGNORECASE)
_DISAGREE = ("false_alarm", "miss", "review")


@dataclass
class State:
    """The suite as edited so far: case data by id, the synonyms file's text and groups."""

    suite: Suite
    cases: dict[str, Case]
    labelled: list[Labelled]
    synonyms_text: str | None
    settings: SuiteSettings

    def answers(self, case_id: str | None = None) -> list[Labelled]:
        """The labelled answers of one case (every case when None), drafts included."""
        ids = [case_id] if case_id else sorted(self.cases)
        out = [a for cid in ids for a in case_answers(self.cases[cid])]
        return out + [a for a in self.labelled if case_id is None or a.case == case_id]

    memo: dict[str | None, dict[str, Graded]] = field(default_factory=dict, repr=False)
    # Stems of the words the cases expect: a plan or product named there is no synonym.
    topical: frozenset[str] = frozenset()

    def grade(self, case_id: str | None = None) -> dict[str, Graded]:
        """Every answer of the case (or suite) graded, by where it came from."""
        if case_id not in self.memo:
            graded = grade_answers(self.answers(case_id), self.cases, self.settings)
            self.memo[case_id] = {_where(g.item): g for g in graded}
        return self.memo[case_id]


@dataclass
class Proposal:
    """One edit: what it does, the file text before and after, and the answers it fixes."""

    what: str
    path: Path
    before: str
    after: str
    fixes: list[str] = field(default_factory=list)

    def diff(self, root: Path) -> str:
        """The edit as a unified diff, paths relative to the suite."""
        name = rel(self.path, root)
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
        )
        return "".join(lines)


def rel(path: Path, root: Path) -> str:
    """`path` relative to `root` when inside it."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _where(item: Labelled) -> str:
    # Labelled files already read as file:line; a case's own drafts are named by case and field.
    return item.source if ":" in item.source else f"cases/{item.case}.json {item.source}"


def _phrase(clause: str) -> str:
    # A blanked citation marker leaves "Roles , after": the comma belongs to the word before.
    text = regex.sub(r"\s+([,.;:!?])", r"\1", " ".join(clause.split()))
    return text.strip(" .,;:!?–—-\"'")


def _stems(text: str, lang: str | None) -> set[str]:
    return content(tokens(text, lang), lang)


def _missing_facts(case: Case, answer: str, settings: SuiteSettings) -> list[int]:
    """Indexes in expect.facts of the required facts no phrasing of which the answer states."""
    lang, syn = case_language(case), settings.synonyms
    out = []
    for n, it in enumerate(items(case.data.get("expect", {}).get("facts"))):
        hits = [m for a in it.alternatives for m in find(answer, a, lang=lang, synonyms=syn)]
        if not it.optional and not any(not m.negated for m in hits):
            out.append(n)
    return out


def _closest_clause(answer: str, it: Item, lang: str | None) -> tuple[str, str] | None:
    """The answer's shortest clause sharing the most content words with a phrasing of the
    fact, and that phrasing."""
    best: tuple[int, int, str, str] | None = None
    for _, piece in clauses(answer):
        text = _phrase(piece)
        words = _stems(text, lang)
        for alt in it.alternatives:
            shared = len(words & _stems(alt, lang))
            key = (-shared, len(text))
            if shared and (best is None or key < best[:2]):
                best = (*key, text, alt)
    return (best[2], best[3]) if best else None


def _differing(clause: str, alt: str, lang: str | None) -> list[tuple[str, str]]:
    """The one word of the fact the clause lacks, paired with each clause word the fact lacks,
    the word standing where the fact's word stands first."""

    def words(text: str) -> list[tuple[str, set[str]]]:
        return [(w, _stems(w, lang)) for w in _WORDS.findall(text.casefold())]

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
    return [(lacking[0][1], w) for _, w in extra[:MAX_SYNONYM_TRIES]]


def _with_synonym(text: str | None, word: str, other: str, groups: Any) -> str | None:
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


def _add_phrasing(data: dict[str, Any], key: str, n: int, phrase: str) -> dict[str, Any]:
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


def _add_to(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    expect = out.setdefault("expect", {})
    expect[key] = value if key == "max_words" else [*expect.get(key, []), value]
    return out


Edit = tuple[str, dict[str, Any] | None, str | None]  # what, new case data, new synonyms text


def _for_correct(g: Graded, state: State) -> list[Edit]:
    """Edits that would let a correct answer pass, most likely first."""
    case, answer = state.cases[g.item.case], g.item.answer
    lang, data, out = case_language(case), state.cases[g.item.case].data, []
    if {"facts_present"} & set(g.failing + g.undecided):
        facts = items(data["expect"]["facts"])
        for n in _missing_facts(case, answer, state.settings):
            found = _closest_clause(answer, facts[n], lang)
            if found is None:
                continue
            clause, alt = found
            if len(facts[n].alternatives) < MAX_PHRASINGS:
                what = f"expect.facts[{n}]: add the phrasing {clause!r}"
                out.append((what, _add_phrasing(data, "facts", n, clause), None))
                continue
            for word, other in _differing(clause, alt, lang):
                if _stems(other, lang) & state.topical:
                    continue
                text = _with_synonym(state.synonyms_text, word, other, state.settings.synonyms)
                if text:
                    out.append((f"synonyms.toml: {other!r} means {word!r}", None, text))
    if "figures_expected" in g.failing:
        wanted = items(data["expect"].get("figures"))
        for n, it in enumerate(wanted):
            for fig in parse_figures(answer, lang):
                if parse_one(fig.text) is not None and fig.text not in it.alternatives:
                    what = f"expect.figures[{n}]: add the form {fig.text!r}"
                    out.append((what, _add_phrasing(data, "figures", n, fig.text), None))
    if "max_words" in g.failing:
        allowed = [int(x) for x in _LIMIT.findall(_prompt(state.suite))]
        need = len(answer.split())
        for limit in sorted(x for x in allowed if x >= need > data["expect"]["max_words"]):
            what = f"expect.max_words: {limit}, as the prompt allows"
            out.append((what, _add_to(data, "max_words", limit), None))
    return out


def _prompt(suite: Suite) -> str:
    return suite.prompt_path.read_text("utf-8") if suite.prompt_path.is_file() else ""


def _for_wrong(g: Graded, state: State) -> list[Edit]:
    """Edits that would fail a wrong answer: a figure no passage states, then a claim no
    correct answer of the case makes."""
    case, answer = state.cases[g.item.case], g.item.answer
    lang, data, out = case_language(case), case.data, []
    passages = [p.get("text", "") for p in data.get("retrieved", []) if isinstance(p, dict)]
    given = [*passages, *case.user_texts]
    for fig in parse_figures(answer, lang):
        if parse_one(fig.text) and not any(contains_value(t, fig, lang) for t in given):
            what = f"expect.forbidden_figures: add {fig.text!r} (no passage states it)"
            out.append((what, _add_to(data, "forbidden_figures", fig.text), None))
    right = [a.answer for a in state.answers(case.id) if a.label == "pass"]
    syn = state.settings.synonyms
    found = []
    for _, piece in clauses(answer):
        text = _phrase(piece)
        if len(_stems(text, lang)) < 2:
            continue
        if not any(claims(r, text, lang=lang, synonyms=syn) for r in right):
            # The clause with the most words no correct answer uses says most what is wrong.
            novel = _stems(text, lang) - set().union(*(_stems(r, lang) for r in right))
            found.append((-len(novel), len(text), text))
    for _, _, text in sorted(found):
        what = f"expect.must_not_contain: add {text!r}"
        out.append((what, _add_to(data, "must_not_contain", text), None))
    return out


def _bad(kind: str) -> bool:
    return kind in ("false_alarm", "miss")


def _try(state: State, edit: Edit, target: str, case_id: str) -> tuple[State, list[str]] | None:
    """The state with the edit made, and the answers it fixes; None when it fixes not the
    target or makes any answer newly disagree with its label."""
    what, data, syn_text = edit
    new = dataclasses.replace(state, cases=dict(state.cases), memo={})
    scope: str | None = case_id
    if data is not None:
        new.cases[case_id] = Case(data, state.cases[case_id].path)
    if syn_text is not None:
        groups = _parse_synonyms(syn_text)
        if groups is None:
            return None
        new.synonyms_text = syn_text
        new.settings = dataclasses.replace(state.settings, synonyms=groups)
        scope = None  # a synonym is read in every case
    try:
        # The target's own case first: most candidates fail there, before the whole suite.
        if new.grade(case_id)[target].kind != "agree":
            return None
        before, after = state.grade(scope), new.grade(scope)
    except Exception:  # an edit that makes a check crash is not offered
        return None
    if after.get(target) is None or after[target].kind != "agree":
        return None
    if any(_bad(after[k].kind) and not _bad(before[k].kind) for k in after if k in before):
        return None
    fixed = [k for k in after if k in before and before[k].kind in _DISAGREE]
    return new, [k for k in fixed if after[k].kind == "agree"]


def _parse_synonyms(text: str) -> tuple[tuple[str, ...], ...] | None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "synonyms.toml").write_text(text, "utf-8")
        try:
            return load_synonyms(Path(tmp))
        except InputError:
            return None


def suggest(suite: Suite) -> tuple[list[Proposal], list[str]]:
    """Every edit offered, in order (each made on top of the ones before), and the
    disagreements left without one."""
    cases, problems = load_cases(suite, strict=False)
    if problems:
        raise InputError(problems)
    calibration = calibrate_checks(suite)
    syn_file = suite.path / "synonyms.toml"
    state = State(
        suite,
        {c.id: c for c in cases},
        [g.item for g in calibration.graded if g.item.source.startswith("labelled/")],
        syn_file.read_text("utf-8") if syn_file.is_file() else None,
        suite.settings,
        topical=frozenset(
            w
            for c in cases
            for p in all_phrasings(c.data.get("expect", {}).get("facts"))
            for w in _stems(p, case_language(c))
        ),
    )
    proposals: list[Proposal] = []
    left: list[str] = []
    fixed: set[str] = set()
    for g in calibration.graded:
        where = _where(g.item)
        if g.kind not in _DISAGREE or where in fixed:
            continue
        make: Callable[[Graded, State], list[Edit]] = (
            _for_correct if g.item.label == "pass" else _for_wrong
        )
        # Candidates are drawn from the suite as edited so far.
        current = state.grade(g.item.case)[where]
        if current.kind not in _DISAGREE:
            continue
        for edit in make(current, state):
            done = _try(state, edit, where, g.item.case)
            if done is None:
                continue
            new, fixes = done
            proposals.append(_proposal(state, edit, g.item.case, fixes))
            fixed.update(fixes)
            state = new
            break
        else:
            left.append(f"{where} ({g.item.case}, labelled {g.item.label}, checks say {g.verdict})")
    return proposals, left


def _proposal(old: State, edit: Edit, cid: str, fixes: list[str]) -> Proposal:
    what, data, syn_text = edit
    if data is not None:
        path = old.cases[cid].path or old.suite.path / "cases" / f"{cid}.json"
        before, after = canonical_json(old.cases[cid].data), canonical_json(data)
        return Proposal(f"{cid}: {what}", path, before, after, fixes)
    syn_file = old.suite.path / "synonyms.toml"
    return Proposal(what, syn_file, old.synonyms_text or "", syn_text or "", fixes)


def apply(proposals: list[Proposal]) -> list[Path]:
    """Write each edited file once, as the last proposal touching it left it."""
    final: dict[Path, str] = {}
    for p in proposals:
        final[p.path] = p.after
    for path, text in final.items():
        path.write_text(text, encoding="utf-8")
    return list(final)
