"""The `run` command: choose the provider from the flags, run, print, pick the exit code."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.case import Case
from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, suite_at
from evals.cli import settings as load_settings
from evals.config import Settings
from evals.console import print_summary
from evals.cost import price_for
from evals.errors import InputError
from evals.modelid import check_pinned
from evals.progress import RunProgress
from evals.providers.base import REFUSED_PREFIX, Provider
from evals.runner import Grader, RunPlan, RunResult, execute, exit_code
from evals.suite import Suite, select_cases
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
    #: --model given several times: one run per model.
    models: list[str] = field(default_factory=list)
    target: str | None = None
    no_cache: bool = False
    max_cost: float | None = None
    resume: str | None = None
    epochs: int = 1
    shard: str | None = None
    judge: str | None = None
    sealed: bool = False
    force: bool = False
    key_file: str | None = None
    #: Per-request timeout and SDK retries, overriding [tool.evals] timeout_s / max_retries.
    timeout_s: float | None = None
    max_retries: int | None = None


_SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`I/N` with 1 <= I <= N."""
    if text is None:
        return None
    m = _SHARD.match(text.strip())
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise InputError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(m.group(1)), int(m.group(2))


def in_shard(case_id: str, index: int, count: int) -> bool:
    """Deterministic: the same case always lands in the same shard, on any machine."""
    h = int.from_bytes(hashlib.sha256(case_id.encode("utf-8")).digest()[:8], "big")
    return h % count == index - 1


def make_provider(
    opts: RunOptions, default_model: str, cfg: Settings | None = None, model: str | None = None
) -> Provider:
    """Replay for --answers, the app for --target, the offline model for `local/...`,
    any other pinned id on the OpenAI-compatible endpoint."""
    model = model or opts.model
    if opts.answers:
        if not model:
            raise InputError("--answers needs --model: the pinned id of the system that wrote them")
        from evals.providers.replay import ReplayProvider

        return ReplayProvider(check_pinned(model), Path(opts.answers))
    if opts.target:
        from evals.providers.target import TargetProvider, load_target

        cfg = cfg or load_settings()
        fn, identity = load_target(opts.target, cfg.root)
        return TargetProvider(fn, identity, timeout_s=float(cfg.timeout_s))
    model = check_pinned(model or default_model)
    if model.startswith("local/extractive"):
        from evals.providers.local import ExtractiveModel

        return ExtractiveModel(model)
    from evals.providers.openai_compat import from_settings

    return from_settings(model, cfg or load_settings())


def _check_flags(opts: RunOptions, models: list[str]) -> None:
    if opts.target and models:
        raise InputError("--target and --model exclude each other: the target is the model")
    if opts.target and opts.answers:
        raise InputError("--target and --answers exclude each other")
    if opts.answers and len(models) > 1:
        raise InputError("--answers takes exactly one --model")
    if opts.epochs < 1:
        raise InputError(f"--epochs {opts.epochs}: must be 1 or more")
    if opts.concurrency is not None and opts.concurrency < 1:
        raise InputError(f"--concurrency {opts.concurrency}: must be 1 or more")
    if opts.max_cost is not None and opts.max_cost < 0:
        raise InputError(f"--max-cost {opts.max_cost}: must be 0 or more")
    if opts.timeout_s is not None and opts.timeout_s <= 0:
        raise InputError(f"--timeout {opts.timeout_s}: must be more than 0 seconds")
    if opts.max_retries is not None and opts.max_retries < 0:
        raise InputError(f"--retries {opts.max_retries}: must be 0 or more")


def _settings(opts: RunOptions) -> Settings:
    """[tool.evals], with the flags that override it."""
    cfg = load_settings()
    over: dict[str, Any] = {}
    if opts.timeout_s is not None:
        over["timeout_s"] = opts.timeout_s
    if opts.max_retries is not None:
        over["max_retries"] = opts.max_retries
    return dataclasses.replace(cfg, **over) if over else cfg


def _grader(opts: RunOptions, suite: Suite, cfg: Settings) -> Grader | None:
    if not opts.judge:
        return None
    try:
        from evals.judge import make_judge
    except ImportError:
        raise InputError("--judge: the judge is not available in this build") from None
    return make_judge(model=opts.judge, suite=suite, settings=cfg, use_cache=not opts.no_cache)


def _selected(suite: Suite, sel: dict[str, Any]) -> list[Case]:
    cases, _ = load_cases(suite)
    chosen = select_cases(
        cases, case_glob=sel.get("case"), category=sel.get("category"), limit=sel.get("limit")
    )
    shard = sel.get("shard")
    if shard:
        chosen = [c for c in chosen if in_shard(c.id, shard["index"], shard["count"])]
    return chosen


def _run_one(plan: RunPlan) -> RunResult:
    done = len(plan.resume.rows) if plan.resume else 0
    epochs = f" x {plan.epochs} epochs" if plan.epochs > 1 else ""
    print(
        f"running {len(plan.cases)} case(s){epochs} of {plan.suite.path} on {plan.provider.model} "
        f"(prompt {plan.suite.prompt_sha()[:7]})",
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
    try:
        result = asyncio.run(execute(plan, on_row=progress.row))
    finally:
        progress.close()
        gc.set_threshold(*threshold)
        gc.unfreeze()
    print_summary(result.summary, str(result.path))
    if str(result.summary.get("stopped_reason") or "").startswith(REFUSED_PREFIX):
        print(
            "the endpoint refused the run's first requests alike, so no further case was "
            "started: check OPENAI_BASE_URL, OPENAI_API_KEY and the model name, then continue "
            f"with `invoke run --resume {result.path.name}` (cases without a row, and error "
            "rows, are run again)",
            flush=True,
        )
    return result


def _check_budget(opts: RunOptions, model: str, cfg: Settings) -> None:
    if opts.max_cost is not None and price_for(model, cfg.prices) is None:
        raise InputError(
            f"--max-cost: no price for {model!r} in [tool.evals.prices] "
            "(USD per million input and output tokens), so its cost cannot be estimated"
        )


EXIT_MEANING = {
    EXIT_OK: "exit 0: every case passed",
    EXIT_FAIL: "exit 1: some case failed (its failed checks are named above)",
    EXIT_ERROR: "exit 3: some case errored or the run stopped early (errors are never scored)",
}


def worst(codes: list[int]) -> int:
    """The exit code over several runs: error beats fail beats pass."""
    for code in (EXIT_ERROR, EXIT_FAIL):
        if code in codes:
            return code
    return EXIT_OK


def cmd_run(opts: RunOptions) -> int:
    models = list(opts.models) or ([opts.model] if opts.model else [])
    if opts.sealed:
        if len(models) > 1:
            raise InputError("--sealed takes one --model")
        try:
            from evals.sealed_run import cmd_run_sealed
        except ImportError:
            raise InputError("--sealed: the sealed pile is not available in this build") from None
        opts.model = models[0] if models else None
        return cmd_run_sealed(opts)
    _check_flags(opts, models)
    cfg = _settings(opts)
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
    chosen = _selected(suite, sel)
    if not chosen:
        raise InputError("no case matches the selection (--case/--category/--limit/--shard)")
    providers = [make_provider(opts, cfg.default_model, cfg, m) for m in (models or [None])]
    for p in providers:
        _check_budget(opts, p.model, cfg)
    # Every judge is made before any run starts, so bad judge settings cost no requests.
    graders = [_grader(opts, suite, cfg) for _ in providers]
    codes = []
    for provider, grader in zip(providers, graders, strict=True):
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
        return make_provider(RunOptions(target=spec), cfg.default_model, cfg)
    if kind == "replay":
        answers = opts.answers or stamp.get("answers_file")
        return make_provider(RunOptions(answers=answers), cfg.default_model, cfg, header["model"])
    return make_provider(RunOptions(), cfg.default_model, cfg, header["model"])


def cmd_resume(opts: RunOptions, cfg: Settings, models: list[str]) -> int:
    """Continue an interrupted run: same stamps, completed rows kept, the rest run once."""
    from evals.resume import check_resumable, open_for_resume, selection

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
    suite = suite_at(opts.suite or h.get("suite"))
    chosen = _selected(suite, selection(h))
    provider = _provider_for_resume(opts, h, cfg)
    if models and models[0] != provider.model:
        raise InputError(f"{old.path}: the run used {h.get('model')!r}, not {models[0]!r}")
    grader = _grader(opts, suite, cfg)
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
    )
    settings = h.get("settings", {})
    _check_budget(opts, provider.model, cfg)
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
    )
    return exit_code(_run_one(plan).summary)
