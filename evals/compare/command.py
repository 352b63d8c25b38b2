"""The `diff` command: resolve two run files, compare them, render, and set the exit code."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from evals.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, settings
from evals.compare.pairing import FAIL_ON, Comparison, compare_runs
from evals.compare.render import RENDERERS
from evals.errors import InputError
from evals.run.files import RunFile, read_run, resolve_run


def read_pair(path_a: Path, path_b: Path) -> tuple[RunFile, RunFile]:
    """Read both run files with the cycle collector paused.

    Parsing builds millions of small objects and no reference cycles, so collections would
    only rescan them; freezing them afterwards keeps later collections short as well.
    """
    gc.disable()
    try:
        return read_run(path_a), read_run(path_b)
    finally:
        gc.enable()
        gc.freeze()


def build_report(
    path_a: Path,
    path_b: Path,
    fmt: str = "md",
    show_all: bool = False,
    fail_on: str = "regression",
    alpha: float = 0.05,
) -> tuple[Comparison, str]:
    """Everything `invoke diff` does short of printing: read, pair, statistics, render."""
    run_a, run_b = read_pair(path_a, path_b)
    cmp = compare_runs(run_a, run_b, alpha=alpha, fail_on=fail_on)
    # JSON is for machines: it always lists every paired case.
    return cmp, RENDERERS[fmt](cmp, show_all=show_all or fmt == "json")


def cmd_diff(
    a: str | None,
    b: str | None,
    fmt: str = "md",
    show_all: bool = False,
    fail_on: str = "regression",
    alpha: float | str = 0.05,
    out: str | None = None,
) -> int:
    """Compare run A (default: the baseline) with run B (default: the newest run)."""
    if fmt not in RENDERERS:
        raise InputError(f"--format must be one of {', '.join(RENDERERS)}, not {fmt!r}")
    if fail_on not in FAIL_ON:
        raise InputError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    try:
        alpha = float(alpha)
    except ValueError:
        raise InputError(f"--alpha must be a number between 0 and 1, not {alpha!r}") from None
    runs_dir = settings().runs_path
    path_a = resolve_run(a or "baseline", runs_dir)
    path_b = resolve_run(b or "latest", runs_dir)
    cmp, text = build_report(path_a, path_b, fmt, show_all, fail_on, alpha)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if cmp.stats.n_paired == 0:
        # Nothing was compared (every common case changed or errored): never a silent pass.
        print("no case was scored in both runs: nothing to compare", file=sys.stderr)
        return EXIT_USAGE
    why = cmp.verdict()
    if why:
        print(why, file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK
