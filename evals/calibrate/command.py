"""`invoke calibrate --checks`: load the suite and its labelled answers, grade, print."""

from __future__ import annotations

import sys

from evals.calibrate.grading import calibrate_checks
from evals.calibrate.render import render_json, render_markdown
from evals.cli import EXIT_ERROR, suite_at
from evals.errors import InputError, Problem
from evals.run.files import OutputError
from evals.run.pool import check_workers

FORMATS = ("md", "json")


def cmd_calibrate_checks(suite_dir: str | None, fmt: str = "md", workers: int | None = None) -> int:
    """Print the check set's calibration; exit 1 below a floor, 3 on a check error, 2 on bad input.

    `workers`: processes that grade (default: one per core)."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be md or json, not {fmt!r}")
    c = calibrate_checks(suite_at(suite_dir), check_workers(workers))
    print(render_json(c) if fmt == "json" else render_markdown(c), end="" if fmt == "md" else "\n")
    return c.exit_code


def cmd_suggest(suite_dir: str | None, write: bool) -> int:
    """Print each offered edit with the answers it settles and each changed file's diff;
    write them with --apply."""
    from evals.calibrate.suggest import LINK_REFUSED, apply, rel, suggest

    suite = suite_at(suite_dir)
    if write:
        # Refused whatever the edits turn out to be: --apply never writes through a link.
        linked = [p for p in (suite.path / "synonyms.toml", suite.path / "cases") if p.is_symlink()]
        if linked:
            raise InputError([Problem(str(p), "", LINK_REFUSED) for p in linked])
    found = suggest(suite)
    for path in found.files:
        for p in (p for p in found.proposals if p.path == path):
            print(f"# {p.what}")
            print(f"# fixes: {', '.join(p.fixes)}")
        print(found.diff(path, suite.path), end="")
    n = sum(len(p.fixes) for p in found.proposals)
    print(f"{len(found.proposals)} change(s) offered, fixing {n} labelled answer(s)", end="")
    print(f"; {len(found.left)} disagreement(s) without one:" if found.left else "")
    for line in found.left:
        print(f"  {line}")
    if write and found.files:
        try:
            written = apply(found)
        except OutputError as exc:
            print(exc, file=sys.stderr)
            return EXIT_ERROR
        print(f"written: {', '.join(rel(p, suite.path) for p in written)}")
    elif found.files:
        print("nothing written: add --apply to write these changes")
    return 0
