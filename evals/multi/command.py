"""The `compare` command: resolve the runs, compare them, render, and set the exit code."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, EXIT_USAGE, settings
from evals.compare.command import guard_internal
from evals.compare.pairing import check_options
from evals.errors import InputError
from evals.multi.comparison import MultiComparison, compare_many
from evals.multi.output import emit
from evals.multi.render import render, render_json
from evals.run.files import RunFile, read_run
from evals.run.latest import resolve_configured

FORMATS = ("text", "md", "json")
EXIT_OF = {"PASS": EXIT_OK, "FAIL": EXIT_FAIL, "INCONCLUSIVE": EXIT_ERROR}


def read_runs(paths: Sequence[Path]) -> list[RunFile]:
    """Read every run file with the cycle collector paused (see evals.compare.command)."""
    gc.disable()
    try:
        return [read_run(p) for p in paths]
    finally:
        gc.enable()
        gc.freeze()


def resolve_runs(
    refs: Sequence[str], baseline: str | None, gate: Sequence[str]
) -> tuple[list[Path], int, list[int]]:
    """The run files (baseline first when --baseline names one not among RUN), the baseline's
    index and the gated candidates' indexes; every unknown reference named at once."""
    cfg = settings()
    problems: list[str] = []

    def find(ref: str, how: str) -> Path | None:
        try:
            return resolve_configured(ref, cfg, how).resolve()
        except InputError as exc:
            problems.extend(exc.lines())
            return None

    paths = [find(r, "RUN") for r in refs]
    base = find(baseline, "--baseline RUN") if baseline else None
    gated = [find(g, "--gate RUN") for g in gate if g != "all"]
    if problems:
        raise InputError("\n".join(dict.fromkeys(problems)))
    found = [p for p in paths if p is not None]
    if len(set(found)) != len(found):
        raise InputError("compare: a run is named twice; name each run once")
    if base is not None and base not in found:
        found.insert(0, base)
    b = found.index(base) if base is not None else 0
    if len(found) < 2:
        raise InputError(
            "compare needs at least two runs: RUN RUN [RUN ...] (or RUN --baseline RUN)"
        )
    if "all" in gate:
        return found, b, [i for i in range(len(found)) if i != b]
    index = []
    for g, ref in zip(gated, [g for g in gate if g != "all"], strict=True):
        if g not in found or found.index(g) == b:
            raise InputError(f"--gate {ref}: not one of the candidates being compared")
        index.append(found.index(g))
    return found, b, index


def build(
    refs: Sequence[str],
    baseline: str | None = None,
    gate: Sequence[str] = (),
    alpha: float = 0.05,
) -> MultiComparison:
    """Everything `invoke compare` does short of printing: resolve, read, compare."""
    check_options("significant", alpha, 0.05, 0.8)
    paths, b, gated = resolve_runs(refs, baseline, gate)
    return compare_many(read_runs(paths), b, gated, alpha)


def cmd_compare(
    refs: Sequence[str],
    baseline: str | None = None,
    fmt: str | None = None,
    gate: Sequence[str] = (),
    alpha: float | str = 0.05,
    out: str | None = None,
    html: str | None = None,
    show_all: bool = False,
) -> int:
    """Compare several runs of one suite; exit codes as `invoke diff` for the --gate runs:
    1 when one is worse than the baseline, 3 when one cannot be decided, 2 on bad input."""
    return guard_internal(
        "invoke compare", lambda: _compare(refs, baseline, fmt, gate, alpha, out, html, show_all)
    )


def _compare(
    refs: Sequence[str],
    baseline: str | None,
    fmt: str | None,
    gate: Sequence[str],
    alpha: float | str,
    out: str | None,
    html: str | None,
    show_all: bool,
) -> int:
    fmt = fmt or ("text" if sys.stdout.isatty() and not out else "md")
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    try:
        level = float(alpha)
    except ValueError:
        raise InputError(f"--alpha must be a number, not {alpha!r}") from None
    mc = build(refs, baseline, gate, level)
    text = render_json(mc) if fmt == "json" else render(mc, fmt, show_all)

    def page() -> str:
        from evals.multi.page import render_page

        return render_page(mc)

    if not emit(text, out, html, page):  # whole or not at all: never a half-written report
        return EXIT_ERROR
    if all(c.comparison.stats.n_paired == 0 for c in mc.candidates):
        print(
            "no case was scored in the baseline and any candidate: nothing to compare",
            file=sys.stderr,
        )
        return EXIT_USAGE
    for c in mc.candidates:
        if c.gated:
            print(
                f"{mc.runs[c.run].key} {mc.runs[c.run].label}: {c.verdict.verdict}", file=sys.stderr
            )
    return EXIT_OF[mc.exit_verdict()]
