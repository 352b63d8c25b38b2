"""Grading a suite's labelled answers with its checks: the calibration `invoke calibrate
--checks` prints and `--suggest` builds on."""

from __future__ import annotations

import sys

from evals.calibrate.checks import Calibration, grade_answers
from evals.calibrate.labelled import (
    Labelled,
    case_answers,
    cut_note,
    labelled_files,
    read_labelled,
    sealed_skip_note,
)
from evals.checks.loading import load_cases
from evals.errors import InputError
from evals.suite.case import Case
from evals.suite.folder import Suite


def labelled_answers(suite: Suite, skipped: list[str]) -> tuple[list[Case], list[Labelled]]:
    """The suite's cases and every answer with a known verdict: each case's own drafts, then
    `labelled/*.jsonl`; bad case or labelled files are input errors. Labelled answers of
    cases not in cases/ (a sealed pile's) are left out and named in `skipped`."""
    cases, problems = load_cases(suite, strict=False)
    # Ids of every case file, valid or not: an invalid case is its own problem, not an unknown id.
    cut: list[str] = []
    labelled, found = read_labelled(suite, {p.stem for p in suite.case_files()}, skipped, cut)
    if note := cut_note(cut):
        print(f"note: {note}", file=sys.stderr)
    if problems or found:
        raise InputError(problems + found)
    items = [a for c in sorted(cases, key=lambda c: c.id) for a in case_answers(c)]
    return cases, items + labelled


def calibrate_checks(suite: Suite, workers: int = 1) -> Calibration:
    """Grade every labelled answer of the suite (on `workers` processes); bad case or
    labelled files are input errors."""
    skipped: list[str] = []
    cases, items = labelled_answers(suite, skipped)
    note = sealed_skip_note(skipped)
    if note:
        print(f"note: {note}", file=sys.stderr)
    by_id = {c.id: c for c in cases}
    return Calibration(
        suite=str(suite.path),
        graded=grade_answers(items, by_id, suite.settings, workers),
        min_sensitivity=suite.settings.min_sensitivity,
        min_specificity=suite.settings.min_specificity,
        case_ids=sorted(by_id),
        labelled_files=[p.name for p in labelled_files(suite)],
    )
