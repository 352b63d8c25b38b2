"""`invoke run --resume`: an interrupted run continues with its own stamps, selection,
timeout and retries; its finished rows are kept."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from evals.checks.loading import load_cases
from evals.cli import suite_at
from evals.commands.execution import EXIT_MEANING, run_one, suite_precedents
from evals.commands.options import (
    RunOptions,
    batch_settings,
    check_budget,
    graded_cases,
    grader_for,
    make_provider,
    selected_cases,
)
from evals.config import Settings
from evals.errors import InputError
from evals.providers.base import Provider
from evals.run.latest import resolve_for_suite
from evals.run.plan import RunPlan
from evals.run.resume import check_resumable, open_for_resume, selection
from evals.run.runner import exit_code


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
    ref = opts.resume or ""
    if ref == "latest":
        # The newest run of the suite, stopped early or not: stopped runs are what resume is for.
        ref = str(resolve_for_suite(ref, opts.suite, "--resume RUN", stopped_ok=True))
    old = open_for_resume(ref, cfg.runs_path)
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
        resend=int(cfg.resend),
        resend_wait_s=float(cfg.resend_wait_s),
        resume=resumed,
        batch=batch,
        left_out=left_out,
        precedents=suite_precedents(suite, load_cases(suite)[0]),
    )
    code = exit_code(run_one(plan).summary)
    print(EXIT_MEANING[code])
    return code


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
