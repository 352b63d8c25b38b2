"""Running one plan from the terminal: progress, the summary, the hints that follow it, and
the exit code over several runs; the labels that decide a run's answers."""

from __future__ import annotations

import asyncio
import gc
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.calibrate.labelled import cut_note, precedents, read_labelled
from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Interrupted, settings
from evals.errors import InputError
from evals.providers.base import REFUSED_PREFIX
from evals.run.console import print_summary, review_reasons
from evals.run.latest import resolve_in_suite
from evals.run.plan import RunPlan, RunResult, WrittenRows
from evals.run.precedents import Precedents
from evals.run.progress import RunProgress
from evals.run.prompt_use import run_note
from evals.run.rows import project_path
from evals.run.runner import execute
from evals.suite.case import Case
from evals.suite.caselist import CaseList, file_stems
from evals.suite.folder import Suite


def run_one(plan: RunPlan) -> RunResult:
    """Run one plan with progress on the terminal, then print its summary and what to do next."""
    done = len(plan.resume.rows) if plan.resume else 0
    epochs = f" x {plan.epochs} epochs" if plan.epochs > 1 else ""
    mode = " as one provider batch" if plan.batch else ""
    print(
        f"running {len(plan.cases)} case(s){epochs} of {plan.suite.path} on {plan.provider.model}"
        f"{mode} (prompt {plan.suite.prompt_sha()[:7]})",
        flush=True,
    )
    progress = RunProgress(len(plan.cases) * plan.epochs - done)
    # Everything loaded so far (modules, cases) lives for the whole run: moving it out of
    # the collector's sight, and collecting young objects less often, saves the CPU that
    # repeated full collections over it would take on a run of thousands of requests. No
    # collection first: it costs 50 ms, a twentieth of a cached re-run, to free the little
    # garbage that importing leaves.
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    written: list[Path] = []
    try:
        if plan.batch:
            from evals.run.batch import execute_batch  # loaded for --batch runs only

            result = asyncio.run(
                execute_batch(
                    plan, on_row=progress.row, on_note=progress.note, on_file=written.append
                )
            )
        else:
            result = asyncio.run(execute(plan, on_row=progress.row, on_file=written.append))
    except KeyboardInterrupt:
        if not written:
            raise
        raise Interrupted(
            f"every finished row is kept in {written[0]}; continue with "
            f"`invoke run --resume {resume_ref(written[0], plan.runs_dir)}`"
        ) from None
    finally:
        progress.close()
        gc.set_threshold(*threshold)
        gc.unfreeze()
    print_summary(result.summary, str(result.path))
    if result.write_error:
        print(
            f"{result.write_error}; the {len(result.rows)} row(s) written are kept: free the "
            f"space, then continue with `invoke run --resume {resume_ref(result.path, plan.runs_dir)}`",
            file=sys.stderr,
            flush=True,
        )
    if hint := show_hint(result, plan.runs_dir):
        print(hint, flush=True)
    if note := run_note(str(result.header.get("provider"))):
        print(note, flush=True)
    if str(result.summary.get("stopped_reason") or "").startswith(REFUSED_PREFIX):
        print(
            "the endpoint refused the run's first requests alike, so no further case was "
            "started: check OPENAI_BASE_URL, OPENAI_API_KEY and the model name, then continue "
            f"with `invoke run --resume {resume_ref(result.path, plan.runs_dir)}` (cases without a row, and error "
            "rows, are run again)",
            flush=True,
        )
    return result


def resume_ref(path: Path, runs_dir: Path) -> str:
    """The run file as `--resume` takes it from anywhere in the project: its name when it is
    in runs/ (a run id), else its absolute path; quoted for a shell when it needs to be."""
    in_runs = path.resolve().parent == runs_dir.resolve()
    return shlex.quote(path.name if in_runs else str(path.resolve()))


def show_hint(result: RunResult, runs_dir: Path) -> str | None:
    """`see why a case failed: invoke show ID`, and the first case in review with its reason,
    naming the run unless it is the latest."""
    # The first by case id: rows finish in any order under concurrency, the example should not.
    if isinstance(result.rows, WrittenRows):  # a run that kept counts, not its rows
        bad = [r for r in [result.rows.first_bad] if r is not None]
        review = [r for r in [result.rows.first_review] if r is not None]
    else:
        rows = sorted(result.rows, key=lambda r: (r["case"], r.get("epoch", 0)))
        bad = [r for r in rows if r.get("status") in ("fail", "error")]
        review = [r for r in rows if r.get("status") == "review"]
    if not (bad or review) or plan_is_sealed(result):
        return None
    cfg = settings()
    suite = result.header.get("suite")
    # `invoke show` reads the newest complete run of --suite (default: the configured one).
    other = isinstance(suite, str) and suite != project_path(cfg.root / cfg.suite, cfg.root)
    flag = f" --suite {shlex.quote(str(suite))}" if other else ""
    try:
        folder = cfg.root / str(suite) if other else cfg.root / cfg.suite
        newest = resolve_in_suite("latest", cfg.runs_path, folder, cfg.root, "", quiet=True)
        latest = newest.resolve() == result.path.resolve()
    except InputError:
        latest = False
    where = flag if latest else f" --run {result.path.stem}"
    lines = []
    if bad:
        lines.append(
            f"see why a case failed: invoke show CASE{where} "
            f"(e.g. invoke show {bad[0]['case']}{where})"
        )
    if review:
        first = review[0]
        lines.append(
            f"see what a case in review needs: invoke show {first['case']}{where} "
            f"({review_reasons(first)})"
        )
    return "\n".join(lines)


def plan_is_sealed(result: RunResult) -> bool:
    return isinstance(result.header.get("sealed"), dict)


EXIT_MEANING = {
    EXIT_OK: "exit 0: every case passed",
    EXIT_FAIL: "exit 1: some case failed (its failed checks are named above)",
    EXIT_ERROR: "exit 3: some case errored, awaits review or the run stopped early "
    "(errors and reviews are never scored)",
}


def worst(codes: list[int]) -> int:
    """The exit code over several runs: error beats fail beats pass."""
    for code in (EXIT_ERROR, EXIT_FAIL):
        if code in codes:
            return code
    return EXIT_OK


def suite_precedents(suite: Suite, cases: Sequence[Case]) -> Precedents:
    """The suite's labels that decide answers to its cases as they are now.

    A line with a problem decides nothing, and the run says so: refusing to run would block
    every run of a suite whose labels name cases since sealed or removed."""
    cut: list[str] = []
    items, problems = read_labelled(suite, file_stems(suite.cases_dir), cut=cut)
    if note := cut_note(cut):
        print(f"note: {note}", file=sys.stderr, flush=True)
    if problems:
        print(
            f"warning: {len(problems)} problem(s) in {suite.path / 'labelled'}: those lines "
            "decide no verdict (`invoke validate` lists them)",
            file=sys.stderr,
            flush=True,
        )
        # Two people disagreeing on one answer is news to whoever reads the run: name them.
        for p in problems:
            if "neither decides" in p.message:
                print(f"warning: {p}", file=sys.stderr, flush=True)
    # Only the cases a label names: a CaseList reads those alone.
    named = {i.case for i in items}
    if isinstance(cases, CaseList):
        return precedents(items, list(cases.where_id(named.__contains__)))[0]
    return precedents(items, [c for c in cases if c.id in named])[0]
