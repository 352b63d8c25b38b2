"""`invoke calibrate --checks --suggest`: each disagreement between the checks and a labelled
answer turned into an edit of the suite, offered only when it settles that answer and makes
no other labelled answer disagree (nor leave agreement for review).

The edits are drawn in evals/calibrate/edits.py. Each is tried on the suite as edited so far:
every labelled answer of its case (of every case, for a synonym) is graded again. Once all are
chosen they are made together on the suite as it was and every answer is graded once more;
an edit whose case (or a synonym) then breaks an answer is dropped, so the set written is one
whose edits compose.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evals.calibrate import edits
from evals.calibrate.checks import Graded, grade_answers
from evals.calibrate.edits import Draft, Edit, for_correct, for_wrong, parse_synonyms
from evals.calibrate.grading import calibrate_checks
from evals.calibrate.labelled import Labelled, case_answers
from evals.calibrate.phrasing import stems
from evals.checks.base import case_language
from evals.checks.expectations import all_phrasings
from evals.checks.loading import load_cases
from evals.errors import InputError, Problem
from evals.run.files import OutputError, unwritable
from evals.suite.case import Case, canonical_json
from evals.suite.folder import Suite, SuiteSettings

MAX_PHRASINGS = edits.MAX_PHRASINGS
_DISAGREE = ("false_alarm", "miss", "review")
LINK_REFUSED = (
    "a symbolic link: refused (--apply writes only the suite's own files, never through a "
    "link to a file elsewhere); nothing written"
)
_TRIED = "no edit tried both settled it and left every other answer as close to its label"
# How far an answer is from agreeing with its label: an edit may move none further away.
_DISTANCE = {"agree": 0, "unscored": 0, "review": 1, "false_alarm": 2, "miss": 2, "error": 3}


@dataclass
class State:
    """The suite as edited so far: case data by id, the synonyms file's text and groups."""

    suite: Suite
    cases: dict[str, Case]
    labelled: list[Labelled]
    synonyms_text: str | None
    settings: SuiteSettings
    memo: dict[str | None, dict[str, Graded]] = field(default_factory=dict, repr=False)
    # Stems of the words the cases expect: a plan or product named there is no synonym.
    topical: frozenset[str] = frozenset()

    def answers(self, case_id: str | None = None) -> list[Labelled]:
        """The labelled answers of one case (every case when None), drafts included."""
        ids = [case_id] if case_id else sorted(self.cases)
        out = [a for cid in ids for a in case_answers(self.cases[cid])]
        return out + [a for a in self.labelled if case_id is None or a.case == case_id]

    def grade(self, case_id: str | None = None) -> dict[str, Graded]:
        """Every answer of the case (or suite) graded, by where it came from."""
        if case_id not in self.memo:
            graded = grade_answers(self.answers(case_id), self.cases, self.settings)
            self.memo[case_id] = {where(g.item): g for g in graded}
        return self.memo[case_id]

    def made(self, edit: Edit) -> State | None:
        """The state with the edit made; None when it cannot be (no longer applies)."""
        new = dataclasses.replace(self, cases=dict(self.cases), memo={})
        try:
            if edit.change is not None:
                old = self.cases[edit.case]
                new.cases[edit.case] = Case(edit.change(old.data), old.path)
            if edit.synonyms is not None:
                text = edit.synonyms(self.synonyms_text)
                groups = parse_synonyms(text) if text is not None else None
                if text is None or groups is None:
                    return None
                new.synonyms_text = text
                new.settings = dataclasses.replace(self.settings, synonyms=groups)
        except (KeyError, IndexError, TypeError, AttributeError):
            return None  # the case no longer has what the edit changes
        return new

    def source(self) -> edits.Source:
        """What edits are drawn from, as the suite stands now."""
        prompt = self.suite.prompt_path
        return edits.Source(
            self.cases,
            self.answers,
            self.settings.synonyms,
            self.synonyms_text,
            self.topical,
            prompt.read_text("utf-8") if prompt.is_file() else "",
        )


@dataclass
class Proposal:
    """One edit offered: what it does, the file it changes, and the answers it settles."""

    what: str
    path: Path
    fixes: list[str] = field(default_factory=list)


@dataclass
class Suggestions:
    """The edits offered, each file's text before and after all of them, and each
    disagreement left without an edit (with why)."""

    proposals: list[Proposal]
    files: dict[Path, tuple[str, str]]
    left: list[str]

    def diff(self, path: Path, root: Path) -> str:
        """One file's change, every edit to it together, as a unified diff relative to the
        suite (so that the printed diffs apply with `git apply` or `patch -p1`)."""
        before, after = self.files[path]
        name = rel(path, root)
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
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


def where(item: Labelled) -> str:
    """Where a labelled answer came from: file:line, or the case file and its draft's field."""
    return item.source if ":" in item.source else f"cases/{item.case}.json {item.source}"


def _try(state: State, edit: Edit, target: str) -> tuple[State, list[str]] | None:
    """The state with the edit made, and the answers it settles; None when it does not settle
    the target or moves any answer further from its label."""
    new = state.made(edit)
    if new is None:
        return None
    # The target's own case first: most candidates fail there, before the whole suite.
    if new.grade(edit.case)[target].kind != "agree":
        return None
    scope = None if edit.synonyms is not None else edit.case  # a synonym is read everywhere
    before, after = state.grade(scope), new.grade(scope)
    if _worse(before, after):
        return None
    fixed = [k for k in after if k in before and before[k].kind in _DISAGREE]
    return new, [k for k in fixed if after[k].kind == "agree"]


def _worse(before: dict[str, Graded], after: dict[str, Graded]) -> list[str]:
    """The answers further from their label after than before."""
    return [
        k for k, g in after.items() if k in before and _DISTANCE[g.kind] > _DISTANCE[before[k].kind]
    ]


def _label(g: Graded) -> str:
    return f"{where(g.item)} ({g.item.case}, labelled {g.item.label}, checks say {g.verdict})"


def begin(suite: Suite) -> State:
    """The suite as it is, its labelled answers graded once (the calibration's own grades)."""
    cases, problems = load_cases(suite, strict=False)
    if problems:
        raise InputError(problems)
    calibration = calibrate_checks(suite)
    syn_file = suite.path / "synonyms.toml"
    start = State(
        suite,
        {c.id: c for c in cases},
        [g.item for g in calibration.graded if g.item.source.startswith("labelled/")],
        syn_file.read_text("utf-8") if syn_file.is_file() else None,
        suite.settings,
        topical=frozenset(
            w
            for c in cases
            for p in all_phrasings(c.data.get("expect", {}).get("facts"))
            for w in stems(p, case_language(c))
        ),
    )
    start.memo[None] = {where(g.item): g for g in calibration.graded}
    return start


def suggest(suite: Suite) -> Suggestions:
    """Every edit offered, in order (each drawn from the suite as edited by the ones before),
    and the disagreements left without one."""
    start = begin(suite)
    state = start
    chosen: list[tuple[Edit, Proposal, Graded]] = []
    left: list[str] = []
    settled: set[str] = set()
    for g in start.grade().values():
        target = where(g.item)
        if g.kind not in _DISAGREE or target in settled:
            continue
        current = state.grade(g.item.case)[target]  # drawn from the suite as edited so far
        if current.kind not in _DISAGREE:
            continue
        draft: Draft = (for_correct if g.item.label == "pass" else for_wrong)(
            current, state.source()
        )
        for edit in draft.edits:
            done = _try(state, edit, target)
            if done is not None:
                state, fixes = done
                chosen.append((edit, _proposal(state, edit, fixes), g))
                settled.update(fixes)
                break
        else:
            why = draft.none_why if not draft.edits else _TRIED
            left.append(f"{_label(g)}: {why}")
    chosen, dropped = compose(start, chosen)
    left += [
        f"{_label(g)}: its edit broke another answer once every edit was made" for g in dropped
    ]
    return Suggestions([p for _, p, _ in chosen], _files(start, [e for e, _, _ in chosen]), left)


def compose(
    start: State, chosen: list[tuple[Edit, Proposal, Graded]]
) -> tuple[list[tuple[Edit, Proposal, Graded]], list[Graded]]:
    """The chosen edits made together on the suite as it was, every answer graded once more;
    while an answer is further from its label than before, or an answer an edit settled
    does not agree, the last edit to its case (or a synonym) is dropped."""
    dropped: list[Graded] = []
    while chosen:
        final: State | None = start
        for edit, _, _ in chosen:
            final = final.made(edit) if final is not None else None
        if final is None:
            worse_cases: set[str | None] = {None}
        else:
            graded = final.grade(None)
            broken = _worse(start.grade(None), graded)
            broken += [k for _, p, _ in chosen for k in p.fixes if graded[k].kind != "agree"]
            worse_cases = {graded[k].item.case for k in broken}
        if not worse_cases:
            break
        for i in range(len(chosen) - 1, -1, -1):
            edit = chosen[i][0]
            if edit.synonyms is not None or edit.case in worse_cases or None in worse_cases:
                dropped.append(chosen.pop(i)[2])
                break
    return chosen, dropped


def _proposal(state: State, edit: Edit, fixes: list[str]) -> Proposal:
    if edit.synonyms is not None:
        return Proposal(edit.what, state.suite.path / "synonyms.toml", fixes)
    case = state.cases[edit.case]
    path = case.path or state.suite.path / "cases" / f"{edit.case}.json"
    return Proposal(f"{edit.case}: {edit.what}", path, fixes)


def _files(start: State, chosen: list[Edit]) -> dict[Path, tuple[str, str]]:
    """Each file the edits change: its text before them and after all of them."""
    out: dict[Path, tuple[str, str]] = {}
    state: State | None = start
    for edit in chosen:
        state = state.made(edit) if state is not None else None
    if state is None:
        return out
    for edit in chosen:
        if edit.synonyms is not None:
            path = start.suite.path / "synonyms.toml"
            out[path] = (start.synonyms_text or "", state.synonyms_text or "")
        else:
            case = start.cases[edit.case]
            path = case.path or start.suite.path / "cases" / f"{edit.case}.json"
            after = canonical_json(state.cases[edit.case].data)
            out[path] = (canonical_json(case.data), after)
    return out


def apply(suggestions: Suggestions) -> list[Path]:
    """Write each changed file once, with every offered edit to it made: all of them or none.

    A linked file (or folder) is refused before anything is written: the edit would change a
    file outside the suite. Each file is written beside itself and flushed first; only when
    every one is on disk are they renamed over the old ones, so a full disk or a killed
    process leaves each file whole (old or new). OutputError names the file that failed."""
    files = suggestions.files
    linked = dict.fromkeys(q for path in files for q in (path.parent, path) if q.is_symlink())
    if linked:
        raise InputError([Problem(str(q), "", LINK_REFUSED) for q in linked])
    staged: dict[Path, Path] = {}
    try:
        for path, (_, after) in files.items():
            staged[path] = _stage(path, after)
    except OSError as exc:
        failed = next(p for p in files if p not in staged)
        _discard(staged.values())
        raise OutputError(unwritable(failed, exc) + ": nothing written") from None
    done: list[Path] = []
    try:
        for path, tmp in staged.items():
            os.replace(tmp, path)
            done.append(path)
    except OSError as exc:
        failed = next(p for p in files if p not in done)
        _discard(staged.values())
        for path in done:  # put back what was renamed already: none of the edits stays
            with contextlib.suppress(OSError):
                os.replace(_stage(path, files[path][0]), path)
        raise OutputError(unwritable(failed, exc) + ": nothing written") from None
    return done


def _stage(path: Path, text: str) -> Path:
    """`text` written and flushed beside `path` (never through a link); the staged file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        view = memoryview(text.encode("utf-8"))
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    os.close(fd)
    return tmp


def _discard(paths: Iterable[Path]) -> None:
    for tmp in paths:
        with contextlib.suppress(OSError):
            tmp.unlink()
