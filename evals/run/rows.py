"""The records a run writes: the stamped header and one stamped row per case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.checks import CheckResult, errored
from evals.checks.grading import grade, not_graded, outcome, results_json
from evals.providers.masking import printable
from evals.reply import Reply
from evals.run.files import FORMAT_VERSION
from evals.run.grade_cache import GradeCache, grade_results
from evals.run.plan import Grader, RunPlan
from evals.run.pool import GradePool
from evals.run.precedents import find
from evals.run.stamps import git_state, versions
from evals.suite.case import Case
from evals.suite.folder import suite_digest


def project_path(path: Path, root: Path) -> str:
    """A path relative to the project when it lies inside it: committed run files must not
    carry one machine's checkout location."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return str(path)


def make_header(plan: RunPlan, run_id: str, created: str) -> dict[str, Any]:
    stamp = plan.provider.stamp()
    return {
        "kind": "run",
        "format": FORMAT_VERSION,
        "run_id": run_id,
        "created": created,
        "model": plan.provider.model,
        "provider": stamp.get("kind", "unknown"),
        "target": stamp.get("target"),
        "prompt_sha": plan.suite.prompt_sha(),
        "suite": project_path(plan.suite.path, plan.root),
        "suite_digest": suite_digest(plan.cases),
        "n_cases": len(plan.cases),
        "label": plan.label,
        "git": git_state(plan.root, plan.suite.path),
        "versions": versions(),
        "settings": {
            "concurrency": plan.concurrency,
            "epochs": plan.epochs,
            "citation_pattern": plan.suite.settings.citation_pattern,
            "refusal_phrases": list(plan.suite.settings.refusal_phrases),
            "figure_window": plan.suite.settings.figure_window,
            "provider": stamp,
            "cache": plan.use_cache,
            "max_cost_usd": plan.max_cost,
            "price": plan.prices.get(plan.provider.model),
            "judge_price": plan.prices.get(plan.grader.stamp()["model"]) if plan.grader else None,
            **({"batch": plan.batch.stamp()} if plan.batch else {}),
            **({"left_out": list(plan.left_out)} if plan.left_out else {}),
            **plan.settings,
        },
        "judge": plan.grader.stamp() if plan.grader else None,
        "sealed": None,
        **_date_label(plan),
        **plan.header_extra,
    }


def _date_label(plan: RunPlan) -> dict[str, bool]:
    """`model_date_is_label: true` where the endpoint is asked for the undated name: the
    model id's date then labels the run, it does not pin what answered."""
    label = getattr(plan.provider, "model_date_is_label", None)
    return {"model_date_is_label": label} if isinstance(label, bool) else {}


async def grade_reply(
    plan: RunPlan,
    case: Case,
    reply: Reply,
    stored: GradeCache | None = None,
    pool: GradePool | None = None,
) -> tuple[dict[str, CheckResult], dict[str, Any]]:
    """Deterministic checks (reused from `stored` when its inputs are unchanged; run in one of
    `pool`'s processes when given), then the judge when the case asks for it and one is
    configured."""
    if pool is None:
        results = grade_results(stored, case, reply, plan.suite.settings)
    else:
        key, found = stored.lookup(case, reply) if stored is not None else ("", None)
        results = found if found is not None else await pool.grade(case, reply)
        if stored is not None and found is None:
            stored.keep(key, results)
    extra: dict[str, Any] = {}
    g = plan.grader
    undecided = any(r.status == "review" for r in results.values())
    # A person's label decides this answer anyway: the judge is not asked (nor paid).
    if g is not None and undecided and find(plan.precedents, case, reply) is None:
        results, extra = await _decide(g, case, reply, results)
    if g is not None and g.applies_to(case):
        try:
            results[g.name], graded = await g.grade(case, reply)
        except Exception as exc:  # a grader that crashes is that check's error, never a score
            results[g.name] = CheckResult("error", None, f"{type(exc).__name__}: {exc}")
            # It may have paid for replies before it crashed: their cost is unknown.
            graded = {f"{g.name}_usage": None, f"{g.name}_cost_usd": None}
        extra = _merge_spend(extra, graded, g.name)
    # A rubric no grader of this run grades is a `skip` that says so, never silently absent.
    results.update(not_graded(case, set(results)))
    return results, extra


async def _decide(
    g: Grader, case: Case, reply: Reply, results: dict[str, CheckResult]
) -> tuple[dict[str, CheckResult], dict[str, Any]]:
    """The checks left in review, put to the judge item by item; the questions' tokens and
    cost join the row's judge_usage and judge_cost_usd."""
    try:
        decided, asked = await g.decide(case, reply, results)
    except Exception as exc:  # a crash is each undecided check's error, never a verdict
        why = f"the judge could not decide: {type(exc).__name__}: {exc}"
        decided = {n: errored(why) if r.status == "review" else r for n, r in results.items()}
        return decided, {f"{g.name}_usage": None, f"{g.name}_cost_usd": None}
    if not asked:
        return decided, {}
    return decided, {
        "judge_questions": asked["judge_questions"],
        f"{g.name}_usage": asked["usage"],
        f"{g.name}_cost_usd": asked["cost_usd"],
    }


def _merge_spend(first: dict[str, Any], then: dict[str, Any], name: str) -> dict[str, Any]:
    """Row fields of two judgings of one answer, their tokens and costs added up (a cost
    unknown for either is unknown for both)."""
    out = {**first, **then}
    usage, cost = f"{name}_usage", f"{name}_cost_usd"
    if usage in first and usage in then:
        a, b = first[usage] or {}, then[usage] or {}
        out[usage] = {k: a.get(k, 0) + b.get(k, 0) for k in {*a, *b}} or None
    if cost in first and cost in then:
        a, b = first[cost], then[cost]
        out[cost] = None if a is None or b is None else round(a + b, 9)
    return out


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
        **_date_label(plan),
    }
    if case.messages:
        # The turns the reply answers after: a report shows the question in its conversation.
        row["messages"] = [dict(m) for m in case.messages]
    if reply is None:
        row.update(
            status="error",
            score=None,
            checks={},
            failed_checks=[],
            error=printable(error or "no reason given", one_line=True),
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
    status, score = out.status, out.score
    precedent = find(plan.precedents, case, reply)
    if precedent is not None and out.status != "error":
        # A person already labelled this answer to this case content: their verdict decides.
        # A check that errored stays an error: a broken check is reported, never papered over.
        row["precedent"] = precedent.to_json(out.status, out.score)
        status, score = precedent.label, 1.0 if precedent.label == "pass" else 0.0
    row.update(
        status=status,
        score=score,
        checks=results_json(results),
        failed_checks=out.failed,
        review_checks=out.review,
        error=printable("; ".join(errors), one_line=True) if errors else None,
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
