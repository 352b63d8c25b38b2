"""`invoke calibrate --checks`: load the suite and its labelled answers, grade, print."""

from __future__ import annotations

from evals.calibrate.grading import calibrate_checks
from evals.calibrate.render import render_json, render_markdown
from evals.cli import suite_at
from evals.errors import InputError

FORMATS = ("md", "json")


def cmd_calibrate_checks(suite_dir: str | None, fmt: str = "md") -> int:
    """Print the check set's calibration; exit 1 below a floor, 3 on a check error, 2 on bad input."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be md or json, not {fmt!r}")
    c = calibrate_checks(suite_at(suite_dir))
    print(render_json(c) if fmt == "json" else render_markdown(c), end="" if fmt == "md" else "\n")
    return c.exit_code


def cmd_suggest(suite_dir: str | None, write: bool) -> int:
    """Print each offered edit as a diff with the answers it fixes; write them with --apply."""
    from evals.calibrate.suggest import apply, rel, suggest

    suite = suite_at(suite_dir)
    proposals, left = suggest(suite)
    for p in proposals:
        print(f"# {p.what}")
        print(f"# fixes: {', '.join(p.fixes)}")
        print(p.diff(suite.path), end="")
    n = sum(len(p.fixes) for p in proposals)
    print(f"{len(proposals)} change(s) offered, fixing {n} labelled answer(s)", end="")
    print(f"; {len(left)} disagreement(s) without one:" if left else "")
    for line in left:
        print(f"  {line}")
    if write and proposals:
        written = apply(proposals)
        print(f"written: {', '.join(rel(p, suite.path) for p in written)}")
    elif proposals:
        print("nothing written: add --apply to write these changes")
    return 0
