"""`invoke mutate`: run each case's own checks on answers known to be wrong (and on
rephrasings known to be right) and report every check that does not go red."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evals.checks import CheckResult, errored
from evals.checks.grading import checks_for, grade, outcome
from evals.errors import InputError, Problem
from evals.mutate.answer import CaseContext
from evals.mutate.operators import OPERATORS, Variant, make_variants
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import Suite, SuiteSettings

ExtraGrader = Callable[[Case, Reply], dict[str, CheckResult]]
#: The check the LLM judge produces, and the statuses that are verdicts (not errors or skips).
JUDGE = "judge"
VERDICTS = ("pass", "fail")
#: A case outcome as a verdict on an answer known wrong or right; anything else is an error.
MUTANT_VERDICT = {"fail": "killed", "pass": "survived", "review": "review"}
WRONG_VERDICT = {"fail": "caught", "pass": "missed", "review": "review"}
RIGHT_VERDICT = {"pass": "held", "fail": "false_alarm", "review": "review"}


@dataclass(frozen=True)
class GoodAnswer:
    """An answer every check must pass: the case's reference or a draft that passed in a run."""

    source: str
    text: str
    retrieved: list[str] | None = None


@dataclass
class GoodResult:
    """How a good answer fared on its own checks; only a passing one is mutated."""

    source: str
    status: str  # pass | fail | review | error (the good answer's own outcome)
    failed: list[str]
    used: bool  # whether its variants were graded


@dataclass
class VariantResult:
    """One variant and what the case's checks made of it."""

    operator: str
    kind: str  # mutant | invariant
    source: str
    note: str
    text: str
    # mutant: killed | survived | review (caught for a person) | error; invariant: held |
    # false_alarm | review | error.
    status: str
    checks: dict[str, CheckResult]
    good_text: str
    exempt: str | None = None

    @property
    def is_problem(self) -> bool:
        return self.status in ("survived", "false_alarm") and self.exempt is None

    def checks_with(self, status: str) -> list[str]:
        return [n for n, r in self.checks.items() if r.status == status]

    def diff(self) -> str:
        """A unified diff between the good answer and the variant, one sentence per line."""
        lines = difflib.unified_diff(
            _diff_lines(self.good_text),
            _diff_lines(self.text),
            fromfile=f"good ({self.source})",
            tofile=f"variant ({self.operator})",
            lineterm="",
            n=1,
        )
        return "\n".join(lines)


_DIFF_SPLIT = re.compile(r"(?<=[.!?])[ \t]+|\n")


def _diff_lines(text: str) -> list[str]:
    return _DIFF_SPLIT.split(text.strip()) or [""]


@dataclass
class KnownWrongResult:
    """One of the case's `known_wrong` drafts: it must fail at least one check."""

    index: int
    why: str
    status: str  # caught | missed | review | error
    checks: dict[str, CheckResult]


@dataclass
class KnownRightResult:
    """One of the case's `known_right` drafts: it must pass every check."""

    index: int
    why: str
    status: str  # held | false_alarm | review | error
    checks: dict[str, CheckResult]


@dataclass
class CaseReport:
    """Everything mutation found for one case."""

    case_id: str
    path: str
    checks: list[str]
    good: list[GoodResult] = field(default_factory=list)
    variants: list[VariantResult] = field(default_factory=list)
    known_wrong: list[KnownWrongResult] = field(default_factory=list)
    known_right: list[KnownRightResult] = field(default_factory=list)
    exemptions: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def operator_status(self, op: str) -> str:
        """killed | survived | exempt | error | review | n/a; held | false_alarm | ... (invariants)."""
        mine = [v for v in self.variants if v.operator == op]
        if not mine:
            return "n/a"
        bad = "false_alarm" if OPERATORS[op].kind == "invariant" else "survived"
        if any(v.status == bad and v.exempt is None for v in mine):
            return bad
        if any(v.status == bad for v in mine):
            return "exempt"
        if any(v.status == "error" for v in mine):
            return "error"
        if any(v.status == "review" for v in mine):
            return "review"
        return "held" if OPERATORS[op].kind == "invariant" else "killed"

    def exemption_used(self, op: str) -> bool:
        return any(v.operator == op and v.exempt is not None for v in self.variants)

    @property
    def failing_references(self) -> list[GoodResult]:
        """References that fail or error on their own checks (one in review is reported apart)."""
        return [g for g in self.good if g.source == "reference" and g.status in ("fail", "error")]

    @property
    def problem_count(self) -> int:
        # Drafts in review are reported, not problems: an undecided check says so, never guesses.
        return (
            sum(v.is_problem or v.status == "error" for v in self.variants)
            + sum(k.status not in ("caught", "review") for k in self.known_wrong)
            + sum(k.status not in ("held", "review") for k in self.known_right)
            + len(self.failing_references)
        )


@dataclass
class MutationReport:
    """The whole run: every case's report, and what it was run with."""

    suite: str
    cases: list[CaseReport]
    run_file: str | None = None
    judge: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def variants(self) -> list[VariantResult]:
        return [v for c in self.cases for v in c.variants]

    @property
    def judge_kills(self) -> tuple[int, int]:
        """(killed, graded): the mutants the judge check failed, of those it gave a verdict on."""
        graded = [
            v.checks[JUDGE]
            for v in self.variants
            if v.kind == "mutant" and JUDGE in v.checks and v.checks[JUDGE].status in VERDICTS
        ]
        return sum(r.status == "fail" for r in graded), len(graded)

    @property
    def judge_blind(self) -> bool:
        """The judge graded mutants and failed none: it cannot tell wrong answers from right."""
        killed, graded = self.judge_kills
        return bool(self.judge) and graded > 0 and killed == 0

    @property
    def tested(self) -> int:
        """Variants graded, known_wrong and known_right drafts graded, and good answers that
        failed themselves."""
        failing = sum(g.status != "pass" for c in self.cases for g in c.good)
        drafts = sum(len(c.known_wrong) + len(c.known_right) for c in self.cases)
        return len(self.variants) + drafts + failing

    @property
    def exit_code(self) -> int:
        """1 on any unexempted survivor or false alarm, missed known_wrong, failing known_right
        or reference, check error (the proof is then incomplete), or a judge that killed none of
        its mutants; else 0."""
        return 1 if any(c.problem_count for c in self.cases) or self.judge_blind else 0


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


def _mutate(
    work: list[tuple[Case, list[GoodAnswer]]],
    settings: SuiteSettings,
    extra: ExtraGrader | None,
) -> list[CaseReport]:
    """Two batches: the good answers first (only passing ones are mutated), then every variant
    and known_wrong and known_right draft; each batch goes to the extra grader at once so it can run in parallel."""
    reports: list[CaseReport] = []
    first: list[_Job] = []
    for case, goods in work:
        names = checks_for(case)
        exempt = {e["operator"]: e["why"] for e in case.data.get("mutation_exempt", [])}
        report = CaseReport(case.id, str(case.path or ""), names, exemptions=exempt)
        reports.append(report)
        if "judge" in names and extra is None:
            report.notes.append("judge check not run (pass --judge MODEL to mutate it too)")
        if not goods:
            report.notes.append("no good answer to mutate: add a `reference` (or use --from-run)")
        for good in goods:
            reply = Reply(answer=good.text, retrieved=good.retrieved)
            first.append(_Job(report, case, reply, grade(case, reply, settings), good=good))
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
        job.report.good.append(GoodResult(good.source, status, failed, used=status == "pass"))
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
                second.append(
                    _Job(job.report, job.case, reply, grade(job.case, reply, settings), good, v)
                )
    for report, (case, _) in zip(reports, work, strict=True):
        for i, kw in enumerate(case.data.get("known_wrong", [])):
            reply = _draft_reply(kw)
            results = grade(case, reply, settings)
            second.append(_Job(report, case, reply, results, known_wrong=(i, kw["why"])))
        for i, kr in enumerate(case.data.get("known_right", [])):
            reply = _draft_reply(kr)
            results = grade(case, reply, settings)
            second.append(_Job(report, case, reply, results, known_right=(i, kr["why"])))
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
        why = job.report.exemptions.get(v.operator) if verdict == bad else None
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
    return _mutate([(case, goods)], settings, extra_grader)[0]


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
) -> MutationReport:
    """Mutate every case's good answers; `run_goods` adds drafts that passed in a run."""
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
    reports = _mutate(work, suite.settings, extra_grader)
    return MutationReport(str(suite.path), reports)
