"""Running cases against a provider: bounded concurrency, checks, stamped rows, append-only output."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from evals.case import Case
from evals.checks import CheckResult
from evals.grading import checks_for, grade, outcome, results_json
from evals.providers.base import Provider
from evals.reply import ProviderError, Reply
from evals.runfile import RunWriter, run_file_name, utc_now
from evals.stamps import git_state, versions
from evals.suite import Suite, suite_digest
from evals.summary import summarise

FORMAT_VERSION = 1


class Grader(Protocol):
    """A check that needs I/O (the LLM judge): runs after the deterministic checks."""

    #: The check name it produces, e.g. "judge"; it runs for cases whose checks list it.
    name: str

    def stamp(self) -> dict[str, Any]:
        """What the run header records under `judge`."""
        ...

    async def grade(self, case: Case, reply: Reply) -> tuple[CheckResult, dict[str, Any]]:
        """The check's result plus fields to add to the row (e.g. the verdict)."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class RunPlan:
    """Everything that shapes a run; all of it is stamped in the header."""

    suite: Suite
    cases: list[Case]
    provider: Provider
    runs_dir: Path
    root: Path
    label: str | None = None
    concurrency: int = 8
    epochs: int = 1
    settings: dict[str, Any] = field(default_factory=dict)
    #: The LLM judge, when --judge is given.
    grader: Grader | None = None
    #: Merged into the header (e.g. the sealed pile's digest).
    header_extra: dict[str, Any] = field(default_factory=dict)
    #: Applied to each row before it is written or shown (sealed runs strip all case text).
    row_filter: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass
class RunResult:
    path: Path
    header: dict[str, Any]
    rows: list[dict[str, Any]]
    summary: dict[str, Any]


RowCallback = Callable[[dict[str, Any]], None]


def make_header(plan: RunPlan, run_id: str, created: str) -> dict[str, Any]:
    return {
        "kind": "run",
        "format": FORMAT_VERSION,
        "run_id": run_id,
        "created": created,
        "model": plan.provider.model,
        "provider": plan.provider.stamp().get("kind", "unknown"),
        "target": plan.provider.stamp().get("target"),
        "prompt_sha": plan.suite.prompt_sha(),
        "suite": str(plan.suite.path),
        "suite_digest": suite_digest(plan.cases),
        "n_cases": len(plan.cases),
        "label": plan.label,
        "git": git_state(plan.root),
        "versions": versions(),
        "settings": {
            "concurrency": plan.concurrency,
            "epochs": plan.epochs,
            "citation_pattern": plan.suite.settings.citation_pattern,
            "refusal_phrases": list(plan.suite.settings.refusal_phrases),
            "figure_window": plan.suite.settings.figure_window,
            "provider": plan.provider.stamp(),
            **plan.settings,
        },
        "judge": plan.grader.stamp() if plan.grader else None,
        "sealed": None,
        **plan.header_extra,
    }


async def grade_reply(
    plan: RunPlan, case: Case, reply: Reply
) -> tuple[dict[str, CheckResult], dict[str, Any]]:
    """Deterministic checks, then the judge when the case asks for it and one is configured."""
    results = grade(case, reply, plan.suite.settings)
    extra: dict[str, Any] = {}
    g = plan.grader
    if g is not None and g.name in checks_for(case):
        results[g.name], extra = await g.grade(case, reply)
    return results, extra


def make_row(
    plan: RunPlan,
    run_id: str,
    prompt_sha: str,
    case: Case,
    epoch: int,
    reply: Reply | None,
    error: str | None,
    graded: tuple[dict[str, CheckResult], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One stamped case row. A provider failure is an `error` row with the reason and no score."""
    row: dict[str, Any] = {
        "kind": "case",
        "run_id": run_id,
        "case": case.id,
        "case_sha": case.sha,
        "epoch": epoch,
        "model": plan.provider.model,
        "prompt_sha": prompt_sha,
        "category": case.category,
        "cluster": case.cluster,
        "question": case.question,
    }
    if reply is None:
        row.update(
            status="error",
            score=None,
            checks={},
            failed_checks=[],
            error=error,
            draft=None,
            retrieved=None,
            cited=None,
            abstained=None,
            latency_ms=None,
            usage=None,
            cost_usd=None,
            resolved_model=None,
            cached=False,
        )
        return row
    results, extra = graded if graded is not None else (grade(case, reply, plan.suite.settings), {})
    out = outcome(results)
    errors = [f"{n}: {r.detail}" for n, r in results.items() if r.status == "error"]
    if out.status == "error" and not errors:
        errors = ["no check produced a result"]
    row.update(
        status=out.status,
        score=out.score,
        checks=results_json(results),
        failed_checks=out.failed,
        error="; ".join(errors) if errors else None,
        draft=reply.answer,
        retrieved=reply.retrieved if reply.retrieved is not None else case.retrieved_refs,
        cited=reply.cited,
        abstained=reply.abstained,
        latency_ms=None if reply.latency_ms is None else round(reply.latency_ms, 3),
        usage=reply.usage,
        cost_usd=None,
        resolved_model=reply.resolved_model,
        cached=reply.cached,
    )
    row.update(extra)
    return row


async def _answer(
    plan: RunPlan, prompt: str, case: Case, epoch: int
) -> tuple[Reply | None, str | None]:
    try:
        return await plan.provider.answer(case, prompt, epoch), None
    except ProviderError as exc:
        return None, str(exc) or type(exc).__name__
    except Exception as exc:  # an unexpected provider failure is still only this case's error
        return None, f"{type(exc).__name__}: {exc}"


async def execute(plan: RunPlan, on_row: RowCallback | None = None) -> RunResult:
    """Run every case (times every epoch); rows are written as each finishes."""
    created_dt = utc_now()
    prompt_sha = plan.suite.prompt_sha()
    prompt = plan.suite.prompt_text()
    path = plan.runs_dir / run_file_name(created_dt, prompt_sha, plan.label)
    run_id = path.stem
    header = make_header(plan, run_id, created_dt.isoformat().replace("+00:00", "Z"))
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    sem = asyncio.Semaphore(max(plan.concurrency, 1))
    work = [(c, e) for e in range(plan.epochs) for c in plan.cases]
    completed = False
    with RunWriter(path) as writer:
        writer.write(header)

        async def one(case: Case, epoch: int) -> None:
            async with sem:
                reply, error = await _answer(plan, prompt, case, epoch)
                graded = await grade_reply(plan, case, reply) if reply is not None else None
            row = make_row(plan, run_id, prompt_sha, case, epoch, reply, error, graded)
            if plan.row_filter:
                row = plan.row_filter(row)
            writer.write(row)
            rows.append(row)
            if on_row:
                on_row(row)

        try:
            await asyncio.gather(*(one(c, e) for c, e in work))
            completed = True
        finally:
            summary = summarise(
                rows,
                completed=completed,
                stopped_reason=None if completed else "interrupted",
                run_id=run_id,
                elapsed_s=time.perf_counter() - started,
            )
            writer.write(summary)
    await plan.provider.aclose()
    if plan.grader:
        await plan.grader.aclose()
    return RunResult(path, header, rows, summary)


def run(plan: RunPlan, on_row: RowCallback | None = None) -> RunResult:
    return asyncio.run(execute(plan, on_row))


def exit_code(summary: dict[str, Any]) -> int:
    """3 when any case errored, else 1 when any failed, else 0."""
    counts = summary["counts"]
    if counts["error"] or not summary.get("completed", True):
        return 3
    return 1 if counts["fail"] else 0
