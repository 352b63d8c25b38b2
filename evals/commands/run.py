"""`invoke run`: the flags become one immutable RunPlan here; nothing below sees them.

Chooses the provider, the judge and the cases (or the sealed pile's), runs, prints, and picks
the exit code."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import shlex
import sys
from pathlib import Path
from typing import Any

from evals.calibrate.labelled import precedents, read_labelled
from evals.checks.known_valid import KNOWN_VALID, KnownValid
from evals.checks.loading import load_cases
from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Interrupted, settings, suite_at
from evals.commands.options import (
    RunOptions,
    batch_settings,
    check_budget,
    check_flags,
    graded_cases,
    grader_for,
    make_provider,
    parse_shard,
    selected_cases,
    settings_for,
    warn_unmatched_answers,
)
from evals.config import Settings
from evals.errors import InputError
from evals.providers.base import REFUSED_PREFIX, Provider
from evals.run.console import print_summary, review_reasons
from evals.run.latest import resolve_configured
from evals.run.plan import RunPlan, RunResult
from evals.run.precedents import Precedents
from evals.run.progress import RunProgress
from evals.run.prompt_use import run_note
from evals.run.resume import check_resumable, open_for_resume, selection
from evals.run.runner import execute, exit_code
from evals.suite.case import Case
from evals.suite.folder import Suite


def _run_one(plan: RunPlan) -> RunResult:
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
    # repeated full collections over it would take on a run of thousands of requests.
    threshold = gc.get_threshold()
    gc.collect()
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
    # Sorted: rows finish in any order under concurrency, the example should not.
    rows = sorted(result.rows, key=lambda r: (r["case"], r.get("epoch", 0)))
    bad = [r for r in rows if r.get("status") in ("fail", "error")]
    review = [r for r in rows if r.get("status") == "review"]
    if not (bad or review) or plan_is_sealed(result):
        return None
    try:  # `invoke show` without --run reads the newest run of the configured suite
        latest = resolve_configured("latest", settings(), "").resolve() == result.path.resolve()
    except InputError:
        latest = False
    where = "" if latest else f" --run {result.path.stem}"
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


def suite_precedents(suite: Suite, cases: list[Case]) -> Precedents:
    """The suite's labels that decide answers to its cases as they are now.

    A line with a problem decides nothing, and the run says so: refusing to run would block
    every run of a suite whose labels name cases since sealed or removed."""
    items, problems = read_labelled(suite, {p.stem for p in suite.case_files()})
    if problems:
        print(
            f"warning: {len(problems)} problem(s) in {suite.path / 'labelled'}: those lines "
            "decide no verdict (`invoke validate` lists them)",
            file=sys.stderr,
            flush=True,
        )
    return precedents(items, cases)[0]


def cmd_run(opts: RunOptions) -> int:
    models = list(opts.models) or ([opts.model] if opts.model else [])
    if opts.sealed:
        if len(models) > 1:
            raise InputError("--sealed takes one --model")
        opts.model = models[0] if models else None
        return cmd_run_sealed(opts)
    check_flags(opts, models)
    cfg = settings_for(opts)
    if opts.resume:
        return cmd_resume(opts, cfg, models)
    suite = suite_at(opts.suite)
    shard = parse_shard(opts.shard)
    sel = {
        "case": opts.case,
        "category": opts.category,
        "limit": opts.limit,
        "shard": {"index": shard[0], "count": shard[1]} if shard else None,
    }
    # Unchanged case files already found valid load without validating them again.
    every_case, _ = load_cases(suite, known=KnownValid(cfg.cache_path.parent / KNOWN_VALID))
    chosen = selected_cases(suite, sel, every_case)
    if not chosen:
        raise InputError("no case matches the selection (--case/--category/--limit/--shard)")
    chosen, left_out = graded_cases(chosen, judged=bool(opts.judge))
    if not chosen:
        raise InputError(
            f"every selected case ({len(left_out)}) is graded only by its rubric: "
            "run with --judge MODEL to grade them"
        )
    providers = [
        make_provider(cfg, m, answers=opts.answers, target=opts.target) for m in (models or [None])
    ]
    for p in providers:
        check_budget(opts, p.model, cfg)
        warn_unmatched_answers(p, every_case)
    batches = [batch_settings(p, cfg) if opts.batch else None for p in providers]
    # Every judge is made before any run starts, so bad judge settings cost no requests.
    graders = [grader_for(opts.judge, suite, cfg, not opts.no_cache) for _ in providers]
    labels = suite_precedents(suite, every_case)
    codes = []
    for provider, grader, batch in zip(providers, graders, batches, strict=True):
        if len(providers) > 1:
            print(f"== model {provider.model}", flush=True)
        plan = RunPlan(
            suite=suite,
            cases=chosen,
            provider=provider,
            runs_dir=cfg.runs_path,
            root=cfg.root,
            label=opts.label,
            concurrency=opts.concurrency or cfg.concurrency,
            epochs=opts.epochs,
            settings={"selection": sel, "shard": sel["shard"]},
            grader=grader,
            use_cache=not opts.no_cache,
            cache_path=cfg.cache_path,
            prices=cfg.prices,
            max_cost=opts.max_cost,
            batch=batch,
            left_out=left_out,
            precedents=labels,
        )
        codes.append(exit_code(_run_one(plan).summary))
    code = worst(codes)
    print(EXIT_MEANING[code])
    return code


def _provider_for_resume(opts: RunOptions, header: dict[str, Any], cfg: Settings) -> Provider:
    """The same kind of provider the run used: its model, target or answers file."""
    stamp = header.get("settings", {}).get("provider") or {}
    kind = stamp.get("kind")
    if kind == "target":
        spec = opts.target or (header.get("target") or {}).get("spec")
        return make_provider(cfg, target=spec)
    if kind == "replay":
        answers = opts.answers or stamp.get("answers_file")
        return make_provider(cfg, header["model"], answers=answers)
    return make_provider(cfg, header["model"])


def cmd_resume(opts: RunOptions, cfg: Settings, models: list[str]) -> int:
    """Continue an interrupted run: same stamps, completed rows kept, the rest run once."""
    for flag, value in (
        ("--case", opts.case),
        ("--category", opts.category),
        ("--limit", opts.limit),
        ("--shard", opts.shard),
        ("--label", opts.label),
    ):
        if value is not None:
            raise InputError(
                f"{flag} cannot be used with --resume: the run's own selection is kept"
            )
    if opts.epochs != 1:
        raise InputError("--epochs cannot be used with --resume: the run's own epochs are kept")
    if len(models) > 1:
        raise InputError("--resume continues one run: give at most one --model")
    old = open_for_resume(opts.resume or "", cfg.runs_path)
    for w in old.warnings:
        print(w, file=sys.stderr)
    h = old.header
    if h.get("sealed"):
        raise InputError(f"{old.path}: a sealed run cannot be resumed; start a new sealed run")
    cfg = _run_request_settings(opts, h, cfg, old.path)
    suite = suite_at(opts.suite or h.get("suite"))
    chosen, left_out = graded_cases(selected_cases(suite, selection(h)), judged=bool(opts.judge))
    provider = _provider_for_resume(opts, h, cfg)
    if models and models[0] != provider.model:
        raise InputError(f"{old.path}: the run used {h.get('model')!r}, not {models[0]!r}")
    grader = grader_for(opts.judge, suite, cfg, not opts.no_cache)
    if (grader.stamp() if grader else None) != h.get("judge"):
        raise InputError(
            f"{old.path}: /judge: the run's judge was {h.get('judge')!r}; "
            "resume with the same --judge (or none)"
        )
    resumed = check_resumable(
        old,
        prompt_sha=suite.prompt_sha(),
        model=provider.model,
        provider_stamp=provider.stamp(),
        cases=chosen,
        root=cfg.root,
        suite=suite.path,
    )
    settings = h.get("settings", {})
    check_budget(opts, provider.model, cfg)
    # A batch run continues as one (collecting a batch still running); a live run stays live.
    if opts.batch and not settings.get("batch"):
        raise InputError(
            f"{old.path}: /settings/batch: this run sent live requests; --batch cannot "
            "switch it (start a new run with --batch)"
        )
    batch = batch_settings(provider, cfg) if settings.get("batch") else None
    print(
        f"resuming {old.path.name}: {len(resumed.rows)} row(s) kept, "
        f"{len(chosen) * int(settings.get('epochs', 1)) - len(resumed.rows)} to run",
        flush=True,
    )
    plan = RunPlan(
        suite=suite,
        cases=chosen,
        provider=provider,
        runs_dir=cfg.runs_path,
        root=cfg.root,
        label=h.get("label"),
        concurrency=opts.concurrency or int(settings.get("concurrency") or cfg.concurrency),
        epochs=int(settings.get("epochs", 1)),
        grader=grader,
        # A run started with --no-cache stays fresh when resumed: its answers must not mix
        # with answers cached by other runs.
        use_cache=not opts.no_cache and settings.get("cache") is not False,
        cache_path=cfg.cache_path,
        prices=cfg.prices,
        max_cost=opts.max_cost,
        resume=resumed,
        batch=batch,
        left_out=left_out,
        precedents=suite_precedents(suite, load_cases(suite)[0]),
    )
    return exit_code(_run_one(plan).summary)


def _run_request_settings(
    opts: RunOptions, header: dict[str, Any], cfg: Settings, where: Path
) -> Settings:
    """The resumed run's own timeout and retries: the header states them for every row, so
    new rows must be made the same way (a different --timeout or --retries is refused)."""
    stamp = (header.get("settings") or {}).get("provider") or {}
    over: dict[str, Any] = {}
    for key, flag, given in (
        ("max_retries", "--retries", opts.max_retries),
        ("timeout_s", "--timeout", opts.timeout_s),
    ):
        kept = stamp.get(key)
        if kept is None:
            continue
        if given is not None and given != kept:
            raise InputError(
                f"{where}: /settings/provider/{key}: {flag} {given:g} cannot be used with "
                f"--resume: the run's own ({kept:g}) is kept, so its rows stay alike"
            )
        over[key] = kept
    return dataclasses.replace(cfg, **over) if over else cfg


def _refuse_for_sealed(opts: RunOptions) -> None:
    for flag, value in (
        ("--case", opts.case),
        ("--category", opts.category),
        ("--limit", opts.limit),
        ("--shard", opts.shard),
        ("--resume", opts.resume),
        ("--answers", opts.answers),
    ):
        if value is not None:
            raise InputError(
                f"{flag} cannot be used with --sealed: a sealed run always runs the whole pile, "
                "and nobody outside it knows its case ids"
            )


def cmd_run_sealed(opts: RunOptions) -> int:
    """`invoke run --sealed`: the pile supplies the plan's cases and row filter; only
    aggregates are printed."""
    _refuse_for_sealed(opts)
    if opts.batch:
        raise InputError(
            "--batch cannot be used with --sealed: the pile's cases would be stored in the "
            "provider's files"
        )
    from evals.seal.runs import open_sealed, run_sealed  # loaded for --sealed runs only

    cfg = settings_for(opts)
    suite = suite_at(opts.suite)
    sealed = open_sealed(suite, opts.key_file, bool(opts.force), cfg.runs_path)
    plan = RunPlan(
        suite=suite,
        provider=make_provider(cfg, opts.model, target=opts.target, withhold=True),
        runs_dir=cfg.runs_path,
        root=cfg.root,
        label=opts.label,
        concurrency=opts.concurrency or cfg.concurrency,
        epochs=opts.epochs or 1,
        # The judge's cache would hold the case and the answer in clear text.
        grader=grader_for(opts.judge, suite, cfg, use_cache=False),
        prices=cfg.prices,
        max_cost=opts.max_cost,
        **sealed.plan_fields(),
    )
    return run_sealed(sealed, plan)
