"""`invoke run --sealed`: the held-out pile supplies the cases and the row filter; only
aggregates are printed."""

from __future__ import annotations

from evals.cli import suite_at
from evals.commands.options import RunOptions, grader_for, make_provider, settings_for
from evals.errors import InputError
from evals.run.plan import RunPlan


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
        resend=int(cfg.resend),
        resend_wait_s=float(cfg.resend_wait_s),
        **sealed.plan_fields(),
    )
    return run_sealed(sealed, plan)
