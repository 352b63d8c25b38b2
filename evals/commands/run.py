"""`invoke run`: the flags become one immutable RunPlan here; nothing below sees them.

Chooses the provider, the judge and the cases (or the sealed pile's), runs, prints, and picks
the exit code."""

from __future__ import annotations

from evals.checks.known_valid import KNOWN_VALID, KnownValid
from evals.cli import suite_at
from evals.commands.execution import EXIT_MEANING, run_one, suite_precedents, worst
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
from evals.commands.resume import cmd_resume
from evals.commands.scan import scan_cases
from evals.commands.sealed import cmd_run_sealed
from evals.errors import InputError
from evals.run.plan import RunPlan
from evals.run.pool import check_workers
from evals.run.runner import exit_code

__all__ = ["RunOptions", "cmd_run"]


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
    # Unchanged case files already found valid load without validating them again; the
    # cases are read again from their files as the run reaches them, not held.
    every_case, _ = scan_cases(suite, known=KnownValid(cfg.cache_path.parent / KNOWN_VALID))
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
            workers=check_workers(opts.workers),
            epochs=opts.epochs,
            settings={"selection": sel, "shard": sel["shard"]},
            grader=grader,
            use_cache=not opts.no_cache,
            cache_path=cfg.cache_path,
            prices=cfg.prices,
            max_cost=opts.max_cost,
            resend=int(cfg.resend),
            resend_wait_s=float(cfg.resend_wait_s),
            batch=batch,
            left_out=left_out,
            precedents=labels,
        )
        codes.append(exit_code(run_one(plan).summary))
    code = worst(codes)
    print(EXIT_MEANING[code])
    return code
