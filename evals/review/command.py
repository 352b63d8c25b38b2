"""`invoke review`: what a change does to the eval, read from git and compared by content."""

from __future__ import annotations

import sys
from pathlib import Path

from evals.checks import REGISTRY
from evals.checks.loading import case_problems
from evals.cli import EXIT_FAIL, EXIT_OK, settings, suite_at
from evals.errors import InputError, Problem
from evals.review.changes import Review, build_review, rel_path, resolve_base, toplevel
from evals.review.render import render_markdown
from evals.suite.case import read_json_file
from evals.suite.folder import Suite, load_suite_checks
from evals.suite.schemas import schema_problems


def attach_problems(review: Review, suite: Suite, top: Path) -> None:
    """Validation problems of the case files this change adds or edits, checked one by one.

    Only the touched files are read, so a review of a large suite stays fast; a touched file
    whose id differs from its stem (the only way to duplicate an id) is caught per file.
    """

    problems: list[Problem] = []
    try:
        load_suite_checks(suite)
    except InputError as exc:  # a broken suite checks.py is itself a finding
        problems += exc.problems
    known = set(REGISTRY)
    for change in review.cases:
        if change.kind == "removed":
            continue
        path = top / change.path
        try:
            data = read_json_file(path)
        except (ValueError, OSError) as exc:
            problems.append(Problem(str(path), "", str(exc)))
            continue
        problems += schema_problems(data, "case.schema.json", str(path))
        if isinstance(data, dict):
            problems += case_problems(data, path, known)
    for fc in review.prompts:
        if fc.new is None and fc.path.endswith("/prompt.txt"):
            problems.append(Problem(str(top / fc.path), "", "prompt.txt is missing"))
    review.problems = sorted(
        (
            Problem(rel_path(Path(p.path), top), p.pointer, p.message) if p.path else p
            for p in problems
        ),
        key=lambda p: (p.path, p.pointer),
    )


def cmd_review(base_ref: str | None, suite_dir: str | None, fail_on_weakened: bool) -> int:
    """Print the Markdown review; exit 1 with --fail-on-weakened when anything was weakened."""

    conf = settings()
    suite = suite_at(suite_dir)
    top = toplevel(suite.path.resolve())
    base = resolve_base(base_ref, top)
    review = build_review(base, top, suite.path, conf.runs_path, conf.root / "schemas")
    attach_problems(review, suite, top)
    sys.stdout.write(render_markdown(review))
    if fail_on_weakened and review.weakened:
        print(f"{len(review.weakened)} weakened expectation(s)", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK
