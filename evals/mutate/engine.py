"""`invoke mutate`: run each case's own checks on answers known to be wrong (and on
rephrasings known to be right) and report every check that does not go red."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.checks import CheckResult, errored
from evals.checks.grading import checks_for, outcome
from evals.errors import InputError, Problem
from evals.mutate.answer import CaseContext
from evals.mutate.operators import OPERATORS, make_variants
from evals.mutate.registry import Variant
from evals.mutate.results import (
    MUTANT_VERDICT,
    RIGHT_VERDICT,
    WRONG_VERDICT,
    CaseReport,
    Exemption,
    GoodResult,
    KnownRightResult,
    KnownWrongResult,
    MutationReport,
    VariantResult,
)
from evals.reply import Reply
from evals.run.pool import GradePool
from evals.suite.case import Case
from evals.suite.folder import Suite, SuiteSettings

ExtraGrader = Callable[[Case, Reply], dict[str, CheckResult]]


@dataclass(frozen=True)
class GoodAnswer:
    """An answer every check must pass: the case's reference or a draft that passed in a run."""

    source: str
    text: str
    retrieved: list[str] | None = None


def _with_extra(
    extra: ExtraGrader | None, pairs: list[tuple[Case, Reply]]
) -> list[dict[str, CheckResult]]:
    """The extra grader's results for many replies; a grader with `many` gets them in one batch."""
    if extra is None:
        return [{} for _ in pairs]
    many = getattr(extra, "many", None)
    if many is not None:
        return list(many(pairs))
    return [_one_extra(extra, case, reply) for case, reply in pairs]


def _one_extra(extra: ExtraGrader, case: Case, reply: Reply) -> dict[str, CheckResult]:
    try:
        return extra(case, reply)
    except Exception as exc:  # a broken grader is an error on that reply, never a verdict
        name = getattr(extra, "name", None) or getattr(extra, "__name__", "extra_grader")
        return {name: errored(f"{type(exc).__name__}: {exc}")}


@dataclass
class _Job:
    """One reply to grade: deterministic results now, the extra grader's in a later batch."""

    report: CaseReport
    case: Case
    reply: Reply
    results: dict[str, CheckResult]
    good: GoodAnswer | None = None
    variant: Variant | None = None
    known_wrong: tuple[int, str] | None = None
    known_right: tuple[int, str] | None = None


def _draft_reply(draft: dict[str, Any]) -> Reply:
    """A known_wrong or known_right draft as a reply, with the refs it says were reported."""
    return Reply(
        answer=draft["draft"],
        cited=draft.get("cited"),
        retrieved=draft.get("retrieved"),
        abstained=draft.get("abstained"),
        claims=draft.get("claims"),
    )


def _grade_jobs(jobs: list[_Job], pool: GradePool) -> None:
    """Every job's deterministic results, graded on the pool's workers, in order."""
    if not jobs:
        return
    for job, results in zip(jobs, pool.grade_all([(j.case, j.reply) for j in jobs]), strict=True):
        job.results = results


def _mutate(
    work: list[tuple[Case, list[GoodAnswer]]],
    settings: SuiteSettings,
    extra: ExtraGrader | None,
    pool: GradePool,
) -> list[CaseReport]:
    """Two batches: the good answers first (only passing ones are mutated), then every variant
    and known_wrong and known_right draft; each batch goes to the extra grader at once so it can run in parallel."""
    reports: list[CaseReport] = []
    first: list[_Job] = []
    for case, goods in work:
        names = checks_for(case, settings)
        exempt = [
            Exemption(e["operator"], e["why"], e.get("change"))
            for e in case.data.get("mutation_exempt", [])
        ]
        report = CaseReport(case.id, str(case.path or ""), names, exemptions=exempt)
        reports.append(report)
        if "judge" in names and extra is None:
            report.notes.append("judge check not run (pass --judge MODEL to mutate it too)")
        if not goods:
            report.notes.append("no good answer to mutate: add a `reference` (or use --from-run)")
        for good in goods:
            reply = Reply(answer=good.text, retrieved=good.retrieved)
            first.append(_Job(report, case, reply, {}, good=good))
    _grade_jobs(first, pool)
    second: list[_Job] = []
    contexts: dict[tuple[str, tuple[str, ...] | None], CaseContext] = {}
    for job, more in zip(
        first, _with_extra(extra, [(j.case, j.reply) for j in first]), strict=True
    ):
        job.results.update(more)
        status = outcome(job.results).status
        good = job.good
        assert good is not None
        held_up = ("fail", "error", "review") if status == "review" else ("fail", "error")
        failed = [n for n, r in job.results.items() if r.status in held_up]
        details = {n: job.results[n].detail for n in failed}
        job.report.good.append(
            GoodResult(good.source, status, failed, used=status == "pass", details=details)
        )
        if status != "pass":
            continue  # variants of an answer that already fails prove nothing
        key = (job.case.id, tuple(good.retrieved) if good.retrieved is not None else None)
        ctx = contexts.get(key)
        if ctx is None:
            ctx = contexts[key] = CaseContext(job.case, settings, good.retrieved)
        made = make_variants(job.case, good.text, ctx)
        for op, why in made.skipped.items():
            note = f"{op} not applied ({good.source}): {why}"
            if note not in job.report.notes:
                job.report.notes.append(note)
        for variants in made.by_operator.values():
            for v in variants:
                # abstained=None: a refusal is recognised from its words, as for a plain draft
                reply = Reply(answer=v.text, retrieved=good.retrieved, abstained=v.abstained)
                second.append(_Job(job.report, job.case, reply, {}, good, v))
    for report, (case, _) in zip(reports, work, strict=True):
        for i, kw in enumerate(case.data.get("known_wrong", [])):
            reply = _draft_reply(kw)
            second.append(_Job(report, case, reply, {}, known_wrong=(i, kw["why"])))
        for i, kr in enumerate(case.data.get("known_right", [])):
            reply = _draft_reply(kr)
            second.append(_Job(report, case, reply, {}, known_right=(i, kr["why"])))
    _grade_jobs(second, pool)
    for job, more in zip(
        second, _with_extra(extra, [(j.case, j.reply) for j in second]), strict=True
    ):
        job.results.update(more)
        status = outcome(job.results).status
        if job.known_wrong is not None:
            verdict = WRONG_VERDICT.get(status, "error")
            i, why = job.known_wrong
            job.report.known_wrong.append(KnownWrongResult(i, why, verdict, job.results))
            continue
        if job.known_right is not None:
            verdict = RIGHT_VERDICT.get(status, "error")
            i, why = job.known_right
            job.report.known_right.append(KnownRightResult(i, why, verdict, job.results))
            continue
        assert job.variant is not None and job.good is not None
        v = job.variant
        kind = OPERATORS[v.operator].kind
        if kind == "mutant":
            verdict, bad = MUTANT_VERDICT.get(status, "error"), "survived"
        else:
            verdict, bad = RIGHT_VERDICT.get(status, "error"), "false_alarm"
        why = job.report.exemption_for(v.operator, v.note) if verdict == bad else None
        job.report.variants.append(
            VariantResult(
                v.operator,
                kind,
                job.good.source,
                v.note,
                v.text,
                verdict,
                job.results,
                job.good.text,
                why,
            )
        )
    return reports


def mutate_case(
    case: Case,
    settings: SuiteSettings,
    goods: list[GoodAnswer],
    extra_grader: ExtraGrader | None = None,
) -> CaseReport:
    """Grade every variant of every good answer of one case, and its known_wrong and
    known_right drafts."""
    return _mutate([(case, goods)], settings, extra_grader, GradePool(1, settings))[0]


def good_answers_from_run(rows: list[dict[str, Any]], run_id: str) -> dict[str, list[GoodAnswer]]:
    """Drafts of rows that passed, per case id, without repeats."""
    out: dict[str, list[GoodAnswer]] = {}
    for row in rows:
        draft = row.get("draft")
        if row.get("status") != "pass" or not isinstance(draft, str) or not draft.strip():
            continue
        goods = out.setdefault(row.get("case", ""), [])
        if any(g.text == draft for g in goods):
            continue
        retrieved = row.get("retrieved")
        source = f"run {run_id} epoch {row.get('epoch', 0)}"
        goods.append(
            GoodAnswer(source, draft, list(retrieved) if isinstance(retrieved, list) else None)
        )
    return out


def exemption_problems(cases: list[Case]) -> list[Problem]:
    """`mutation_exempt` entries naming no known operator are bad input."""
    out = []
    known = ", ".join(OPERATORS)
    for case in cases:
        for i, e in enumerate(case.data.get("mutation_exempt", [])):
            if e["operator"] not in OPERATORS:
                out.append(
                    Problem(
                        str(case.path or case.id),
                        f"/mutation_exempt/{i}/operator",
                        f"unknown mutation operator {e['operator']!r} (known: {known})",
                    )
                )
    return out


def mutate_suite(
    suite: Suite,
    cases: list[Case],
    *,
    run_goods: dict[str, list[GoodAnswer]] | None = None,
    extra_grader: ExtraGrader | None = None,
    workers: int = 1,
) -> MutationReport:
    """Mutate every case's good answers; `run_goods` adds drafts that passed in a run. The
    checks run on `workers` processes (the report is one process's)."""
    problems = exemption_problems(cases)
    if problems:
        raise InputError(problems)
    work = []
    for case in cases:
        goods: list[GoodAnswer] = []
        if case.data.get("reference"):
            goods.append(GoodAnswer("reference", case.data["reference"]))
        for g in (run_goods or {}).get(case.id, []):
            if all(g.text != have.text for have in goods):
                goods.append(g)
        work.append((case, goods))
    warm = (cases[0], Reply(answer=cases[0].question)) if cases else None
    with GradePool(workers, suite.settings, warm) as pool:
        reports = _mutate(work, suite.settings, extra_grader, pool)
    return MutationReport(str(suite.path), reports)
