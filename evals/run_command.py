"""The `run` command: choose the provider from the flags, run, print, pick the exit code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evals.cli import settings as load_settings
from evals.cli import suite_at
from evals.console import case_line, print_summary
from evals.errors import InputError
from evals.modelid import check_pinned
from evals.providers.base import Provider
from evals.runner import RunPlan, exit_code, run
from evals.suite import select_cases
from evals.validate import load_cases


@dataclass
class RunOptions:
    suite: str | None = None
    model: str | None = None
    answers: str | None = None
    label: str | None = None
    limit: int | None = None
    category: str | None = None
    case: str | None = None
    concurrency: int | None = None


def make_provider(opts: RunOptions, default_model: str) -> Provider:
    """Replay when --answers is given; the offline model for `local/...`."""
    if opts.answers:
        if not opts.model:
            raise InputError("--answers needs --model: the pinned id of the system that wrote them")
        from evals.providers.replay import ReplayProvider

        return ReplayProvider(check_pinned(opts.model), Path(opts.answers))
    model = check_pinned(opts.model or default_model)
    if model.startswith("local/extractive"):
        from evals.providers.local import ExtractiveModel

        return ExtractiveModel(model)
    raise InputError(f"model {model!r}: no provider for it in this build")


def cmd_run(opts: RunOptions) -> int:
    cfg = load_settings()
    suite = suite_at(opts.suite)
    provider = make_provider(opts, cfg.default_model)
    cases, _ = load_cases(suite)
    chosen = select_cases(cases, case_glob=opts.case, category=opts.category, limit=opts.limit)
    if not chosen:
        raise InputError("no case matches the selection (--case/--category/--limit)")
    plan = RunPlan(
        suite=suite,
        cases=chosen,
        provider=provider,
        runs_dir=cfg.runs_path,
        root=cfg.root,
        label=opts.label,
        concurrency=opts.concurrency or cfg.concurrency,
    )
    result = run(plan, on_row=lambda row: print(case_line(row), flush=True))
    print_summary(result.summary, str(result.path))
    return exit_code(result.summary)
