"""`invoke history`: the release baselines committed over the repository's history.

Every commit that changed `runs/BASELINE` or the baseline run file it names is one release's
measurement. Oldest first, each gets its pass rate with its interval, its per-check rates,
and the release gate's verdict against the baseline before it (`invoke diff` of the two, in
its default mode). Git is read with plain `git log` and `git show`; nothing is checked out.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.compare.baseline import POINTER
from evals.compare.pairing import compare_runs
from evals.compare.safe import md_text, one_line
from evals.errors import InputError
from evals.multi.comparison import RunFigures, run_figures
from evals.multi.grid import build_grid, check_rates
from evals.multi.render import escaper, table
from evals.run.files import RunFile, read_run

FORMATS = ("text", "md", "json")


@dataclass(frozen=True)
class Release:
    """One committed baseline."""

    commit: str
    date: str  # the commit's date, ISO 8601
    subject: str
    file: str  # the run file's name in runs/
    figures: RunFigures
    checks: dict[str, tuple[int, int]]  # check -> (passed, scored)
    verdict: str | None  # the gate against the release before; None for the first
    reason: str


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.decode("utf-8", "replace")


def baseline_commits(root: Path, runs_rel: str) -> list[tuple[str, str, str, str, str]]:
    """(commit, date, subject, run file name, blob id) of every commit, oldest first, after
    which the baseline (the pointer, or the file it points to) differs from the one before."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None:
        raise InputError(f"{root}: not a git repository: the baselines' history is git's")
    log = _git(root, "log", "--reverse", "--format=%H%x09%cI%x09%s", "--", runs_rel)
    out: list[tuple[str, str, str, str, str]] = []
    seen: tuple[str, str] | None = None
    for line in (log or "").splitlines():
        commit, date, subject = (line.split("\t", 2) + ["", ""])[:3]
        # `./`: the path is read from the project folder, which may lie below the repository's top.
        pointer = _git(root, "show", f"{commit}:./{runs_rel}/{POINTER}")
        name = (pointer or "").strip()
        if not name or "/" in name:
            continue
        blob = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}:./{runs_rel}/{name}")
        if not blob:
            continue
        key = (name, blob.strip())
        if key != seen:
            out.append((commit, date, subject, name, key[1]))
            seen = key
    return out


def _read_blob(root: Path, blob: str, name: str, folder: Path) -> RunFile:
    path = folder / f"{blob[:12]}-{name}"
    data = subprocess.run(
        ["git", "cat-file", "blob", blob], cwd=root, capture_output=True, check=True, timeout=60
    ).stdout
    path.write_bytes(data)
    return read_run(path)


def releases(root: Path, runs_dir: Path, alpha: float = 0.05) -> list[Release]:
    """Every committed baseline, oldest first, with its figures and the gate's verdict."""
    try:
        runs_rel = runs_dir.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise InputError(
            f"{runs_dir}: the runs folder is outside the project ({root}), so git does not "
            "hold its history here"
        ) from None
    found = baseline_commits(root, runs_rel)
    out: list[Release] = []
    previous: RunFile | None = None
    with tempfile.TemporaryDirectory(prefix="evals-history-") as tmp:
        for commit, date, subject, name, blob in found:
            try:
                run = _read_blob(root, blob, name, Path(tmp))
            except (InputError, subprocess.SubprocessError) as exc:
                print(f"warning: {commit[:12]}: {name} cannot be read: {exc}", file=sys.stderr)
                continue
            grid = build_grid([run])
            figures = run_figures(0, run, name, grid, alpha)
            checks = {
                c.name: (c.passed[0], c.scored[0]) for c in check_rates(grid, 1) if c.scored[0]
            }
            verdict, reason = None, "the first committed baseline"
            if previous is not None:
                try:
                    d = compare_runs(previous, run, alpha=alpha).decision
                    verdict, reason = d.verdict, d.reason
                except InputError as exc:
                    verdict, reason = "NOT PAIRED", " ".join(exc.lines())
            out.append(Release(commit, date, subject, name, figures, checks, verdict, reason))
            previous = run
    return out


def _ci(r: RunFigures) -> str:
    if r.pass_rate is None:
        return "n/a"
    lo, hi = r.pass_ci or (r.pass_rate, r.pass_rate)
    return f"{100 * r.pass_rate:.1f}% ({100 * lo:.1f} to {100 * hi:.1f})"


def render_table(items: list[Release], fmt: str = "text") -> str:
    """One row per release, oldest first; then each check's pass rate per release."""
    esc = escaper(fmt)
    head = ["date", "commit", "prompt", "model", "pass rate (95% CI)", "n", "vs before"]
    rows = [
        [
            r.date[:10],
            r.commit[:10],
            r.figures.prompt_sha,
            esc(r.figures.model),
            _ci(r.figures),
            f"{r.figures.n_scored}/{r.figures.n_cases}",
            r.verdict or "-",
        ]
        for r in items
    ]
    names = sorted({c for r in items for c in r.checks})
    check_head = ["check", *(r.commit[:7] for r in items)]
    check_rows = [
        [
            esc(n),
            *(
                f"{100 * p / s:.0f}% ({p}/{s})" if (p, s) != (0, 0) and s else "-"
                for r in items
                for p, s in [r.checks.get(n, (0, 0))]
            ),
        ]
        for n in names
    ]

    lines = [f"{len(items)} committed baseline(s), oldest first", ""]
    lines += table(fmt, head, rows)
    lines += ["", "Per check (pass rate of the scored results)", ""]
    lines += table(fmt, check_head, check_rows)
    long = md_text if fmt == "md" else one_line
    why = [f"- {r.commit[:10]}: {r.verdict}: {long(r.reason)}" for r in items if r.verdict]
    if why:
        lines += ["", "The gate against the baseline before (invoke diff, --fail-on significant):"]
        lines += why
    return "\n".join(lines) + "\n"


def to_data(items: list[Release]) -> list[dict[str, Any]]:
    """The releases as plain values (the JSON output and the page's data)."""
    return [
        {
            "commit": r.commit,
            "date": r.date,
            "subject": r.subject,
            "file": r.file,
            "model": r.figures.model,
            "prompt_sha": r.figures.prompt_sha,
            "n_cases": r.figures.n_cases,
            "n_scored": r.figures.n_scored,
            "n_error": r.figures.n_error,
            "pass_rate": r.figures.pass_rate,
            "pass_ci": r.figures.pass_ci,
            "mean_score": r.figures.mean_score,
            "checks": {k: {"passed": p, "scored": s} for k, (p, s) in r.checks.items()},
            "verdict": r.verdict,
            "reason": r.reason,
        }
        for r in items
    ]
