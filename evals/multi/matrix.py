"""`invoke matrix`: the suite over prompts x models, one stamped run file per combination,
then the comparison of them all.

Each combination is an ordinary run (a RunPlan through evals.commands.execution.run_one):
the same cases, answer cache, checks and stamps as `invoke run`. Combinations run one after
another, each with the whole concurrency budget, so no more requests are in flight than one
run would have; the answer cache is shared, so a second matrix over unchanged prompts and
models sends no request. `--max-cost` caps the whole matrix: each combination may spend
what the earlier ones left. With `--resume`, a combination whose run file (same label,
model and prompt) is complete is kept, an interrupted one is continued, and the rest run.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.checks.known_valid import KNOWN_VALID, KnownValid
from evals.checks.loading import load_cases
from evals.cli import EXIT_OK, suite_at
from evals.commands.execution import run_one, suite_precedents, worst
from evals.commands.options import (
    RunOptions,
    check_budget,
    check_flags,
    graded_cases,
    make_provider,
    selected_cases,
    settings_for,
)
from evals.errors import InputError, Problem
from evals.multi.command import EXIT_OF, read_runs
from evals.multi.comparison import compare_many
from evals.multi.render import render
from evals.providers.base import Provider
from evals.run.files import RunFile, read_run, run_headers
from evals.run.plan import RunPlan
from evals.run.resume import check_resumable
from evals.run.runner import exit_code
from evals.suite.folder import Suite


@dataclass
class MatrixOptions:
    """The matrix flags, as tasks.py parsed them."""

    suite: str | None = None
    prompts: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    label: str | None = None
    limit: int | None = None
    category: str | None = None
    case: str | None = None
    concurrency: int | None = None
    no_cache: bool = False
    max_cost: float | None = None
    resume: bool = False
    gate: bool = False
    fmt: str = "text"
    html: str | None = None


@dataclass
class PromptedSuite(Suite):
    """The suite with another system prompt: everything a run reads of the prompt (its text,
    its sha in the stamps and the file name) comes from `prompt_file`."""

    prompt_file: Path | None = None

    @property
    def prompt_path(self) -> Path:
        return self.prompt_file or self.path / "prompt.txt"


@dataclass(frozen=True)
class Combination:
    prompt: Path
    prompt_sha: str
    model: str
    label: str


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:24] or "x"


def _model_slug(model: str) -> str:
    """`openai/gpt-4o-mini@2024-07-18` -> `gpt-4o-mini`: the file name stays short; the header
    keeps the full id."""
    return _slug(model.split("/")[-1].split("@")[0])


def axes(suite: Suite, opts: MatrixOptions, default_model: str) -> tuple[list[Path], list[str]]:
    """The prompts and models: the flags, else the suite's `[matrix]` table (prompt paths
    relative to the suite folder), else the suite's prompt and the default model."""
    table = suite.settings.extra.get("matrix") or {}
    where = str(suite.path / "suite.toml")
    problems: list[Problem] = []
    for key in table:
        if key not in ("prompts", "models"):
            problems.append(
                Problem(where, f"/matrix/{key}", "unknown key (known: prompts, models)")
            )
    for key in ("prompts", "models"):
        value = table.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            problems.append(Problem(where, f"/matrix/{key}", "must be a list of strings"))
    if problems:
        raise InputError(problems)
    if opts.prompts:
        prompts = [Path(p) for p in opts.prompts]
    elif table.get("prompts"):
        prompts = [suite.path / p for p in table["prompts"]]
    else:
        prompts = [suite.prompt_path]
    models = list(opts.models or table.get("models") or [default_model])
    return prompts, models


def _prompt_sha(path: Path, problems: list[Problem]) -> str | None:
    try:
        data = path.read_bytes()
        data.decode("utf-8")
    except OSError as exc:
        problems.append(Problem(str(path), "", f"cannot read the prompt: {exc.strerror or exc}"))
        return None
    except UnicodeDecodeError:
        problems.append(Problem(str(path), "", "the prompt is not UTF-8 text"))
        return None
    return hashlib.sha256(data).hexdigest()


def combinations(prompts: list[Path], models: list[str], label: str | None) -> list[Combination]:
    """Every prompt with every model; each gets a label that names both (and tells two
    prompts with one file name apart by their sha)."""
    problems: list[Problem] = []
    shas = [_prompt_sha(p, problems) for p in prompts]
    if problems:
        raise InputError(problems)
    if len(set(shas)) != len(shas):
        raise InputError("matrix: two --prompt files have the same content; give each once")
    if len(set(models)) != len(models):
        raise InputError("matrix: a --model is given twice; give each once")
    stems = [_slug(p.stem) for p in prompts]
    names = [
        s if stems.count(s) == 1 else f"{s}-{sha[:7]}" for s, sha in zip(stems, shas, strict=True)
    ]
    base = _slug(label) if label else "matrix"
    return [
        Combination(p, sha, m, f"{base}_{name}_{_model_slug(m)}")  # type: ignore[arg-type]
        for p, sha, name in zip(prompts, shas, names, strict=True)
        for m in models
    ]


def previous(runs_dir: Path, combo: Combination) -> RunFile | None:
    """The newest run file of this combination: same label, model and prompt sha."""
    found = [
        (str(h.get("created") or ""), path)
        for h, path in run_headers(runs_dir)
        if h.get("label") == combo.label
        and h.get("model") == combo.model
        and h.get("prompt_sha") == combo.prompt_sha
    ]
    return read_run(max(found)[1]) if found else None


def _spent(summary: dict[str, Any]) -> float:
    """What a run paid (cached answers are free), answers and judge together."""
    return float(summary.get("spent_usd") or 0.0) + float(summary.get("judge_cost_usd") or 0.0)


def cmd_matrix(opts: MatrixOptions) -> int:
    """Run every prompt x model combination, then compare the runs (see the module docstring).

    Exit codes as `invoke run` over all the combinations (the worst of them), and as
    `invoke compare --gate all` with `--gate` (every combination against the first)."""
    run_opts = RunOptions(
        suite=opts.suite,
        concurrency=opts.concurrency,
        no_cache=opts.no_cache,
        max_cost=opts.max_cost,
        models=list(opts.models),
    )
    check_flags(run_opts, list(opts.models))
    cfg = settings_for(run_opts)
    suite = suite_at(opts.suite)
    prompts, models = axes(suite, opts, cfg.default_model)
    combos = combinations(prompts, models, opts.label)
    providers: dict[str, Provider] = {}
    problems: list[str] = []
    for m in models:  # every bad model id at once, before any request
        try:
            providers[m] = make_provider(cfg, m)
            check_budget(run_opts, m, cfg)
        except InputError as exc:
            problems.extend(exc.lines())
    if problems:
        raise InputError("\n".join(problems))
    sel = {"case": opts.case, "category": opts.category, "limit": opts.limit, "shard": None}
    every_case, _ = load_cases(suite, known=KnownValid(cfg.cache_path.parent / KNOWN_VALID))
    chosen = selected_cases(suite, sel, every_case)
    if not chosen:
        raise InputError("no case matches the selection (--case/--category/--limit)")
    chosen, left_out = graded_cases(chosen, judged=False)
    if not chosen:
        raise InputError("every selected case is graded only by its rubric: use invoke run --judge")
    labels = suite_precedents(suite, every_case)
    paths: list[Path] = []
    codes: list[int] = []
    spent = 0.0
    for k, combo in enumerate(combos, 1):
        print(f"== [{k}/{len(combos)}] prompt {combo.prompt} x model {combo.model}", flush=True)
        variant = PromptedSuite(path=suite.path, settings=suite.settings, prompt_file=combo.prompt)
        provider = providers[combo.model]
        old = previous(cfg.runs_path, combo) if opts.resume else None
        if old is not None and old.complete:
            print(f"kept {old.path.name}: it is complete", flush=True)
            paths.append(old.path)
            codes.append(exit_code(old.summary or {}))
            continue
        left = None if opts.max_cost is None else opts.max_cost - spent
        if left is not None and left <= 0:
            print(
                f"not run: --max-cost {opts.max_cost:g} USD is spent", file=sys.stderr, flush=True
            )
            codes.append(3)
            continue
        resumed = None
        if old is not None:
            resumed = check_resumable(
                old,
                prompt_sha=combo.prompt_sha,
                model=provider.model,
                provider_stamp=provider.stamp(),
                cases=chosen,
                root=cfg.root,
                suite=suite.path,
            )
            print(f"resuming {old.path.name}: {len(resumed.rows)} row(s) kept", flush=True)
        plan = RunPlan(
            suite=variant,
            cases=chosen,
            provider=provider,
            runs_dir=cfg.runs_path,
            root=cfg.root,
            label=combo.label,
            concurrency=opts.concurrency or cfg.concurrency,
            settings={"selection": sel, "shard": None},
            use_cache=not opts.no_cache,
            cache_path=cfg.cache_path,
            prices=cfg.prices,
            max_cost=left,
            resume=resumed,
            left_out=left_out,
            precedents=labels,
        )
        result = run_one(plan)
        spent += _spent(result.summary)
        paths.append(result.path)
        codes.append(exit_code(result.summary))
    if opts.max_cost is not None:
        print(f"the matrix spent {spent:.4f} USD of --max-cost {opts.max_cost:g}", flush=True)
    if len(paths) >= 2:
        gated = list(range(1, len(paths))) if opts.gate else []
        mc = compare_many(read_runs(paths), 0, gated)
        print(render(mc, opts.fmt), flush=True)
        if opts.html:
            from evals.multi.page import render_page
            from evals.run.files import write_whole

            write_whole(Path(opts.html), render_page(mc))
            print(f"wrote {opts.html}", file=sys.stderr)
        if gated:
            codes.append(EXIT_OF[mc.exit_verdict()])
    return worst(codes) if codes else EXIT_OK
