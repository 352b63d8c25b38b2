"""A check set measured against answers whose verdict is known: false alarms, misses,
sensitivity, specificity and Cohen's kappa. Deterministic checks only; no model is called."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from evals.calibrate.floors import FloorCheck, rate_floor
from evals.calibrate.labelled import Labelled
from evals.calibrate.stats import cohen_kappa, share
from evals.checks import CheckResult
from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK
from evals.run.pool import GradePool
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


@dataclass(frozen=True)
class Graded:
    """One labelled answer and what the case's deterministic checks made of it."""

    item: Labelled
    results: dict[str, CheckResult]

    # Each figure of the report asks every answer for its verdict and kind again (about fifty
    # times an answer on the example suite: a fifth of calibrate's CPU beyond grading); the
    # results do not change, so each is worked out once.
    @cached_property
    def verdict(self) -> str:
        """pass | fail | review | error | unscored (the case has no deterministic check).

        Any check error makes the answer an error: it is neither a pass nor a fail. A check
        that could not decide, with none failing, leaves the answer in review: neither either.
        """
        if not self.results:
            return "unscored"
        if self.erroring:
            return "error"
        if self.failing:
            return "fail"
        return "review" if self.undecided else "pass"

    @cached_property
    def kind(self) -> str:
        """agree | false_alarm (a correct answer failed) | miss (a wrong one passed) | review |
        error | unscored."""
        v = self.verdict
        if v in ("error", "unscored", "review"):
            return v
        if v == self.item.label:
            return "agree"
        return "false_alarm" if self.item.label == "pass" else "miss"

    def _named(self, status: str) -> list[str]:
        return [n for n, r in self.results.items() if r.status == status]

    @cached_property
    def failing(self) -> list[str]:
        return self._named("fail")

    @cached_property
    def erroring(self) -> list[str]:
        return self._named("error")

    @cached_property
    def undecided(self) -> list[str]:
        return self._named("review")

    @cached_property
    def passing(self) -> list[str]:
        return self._named("pass")


def grade_answers(
    items: Iterable[Labelled], cases: dict[str, Case], settings: SuiteSettings, workers: int = 1
) -> list[Graded]:
    """Grade every answer with its case's deterministic checks, on `workers` processes (the
    results are one process's, in the same order)."""
    items = list(items)
    jobs = [(cases[i.case], i.reply()) for i in items]
    with GradePool(workers, settings, jobs[0] if jobs else None) as pool:
        results = pool.grade_all(jobs)
    return [Graded(i, r) for i, r in zip(items, results, strict=True)]


@dataclass(frozen=True)
class Rate:
    """num of n, and their share (None when n is 0: a rate over nothing is unknown)."""

    num: int
    n: int

    @property
    def value(self) -> float | None:
        return share(self.num, self.n)


@dataclass
class CheckRow:
    """How one check treated the answers it scored."""

    name: str
    correct: int = 0  # correct answers it scored (pass or fail)
    false_alarms: int = 0  # ... and failed
    wrong: int = 0  # wrong answers it scored
    caught: int = 0  # ... and failed
    only_catch: int = 0  # wrong answers no other check failed
    errors: int = 0
    skipped: int = 0
    review: int = 0  # answers it could not decide

    @property
    def false_alarm_rate(self) -> Rate:
        return Rate(self.false_alarms, self.correct)

    @property
    def catch_rate(self) -> Rate:
        return Rate(self.caught, self.wrong)


@dataclass
class Tally:
    """Counts of one group of answers (a case, a style): correct / wrong and how they fared."""

    correct: int = 0
    false_alarms: int = 0
    wrong: int = 0
    misses: int = 0
    errors: int = 0
    unscored: int = 0
    review: int = 0

    def add(self, g: Graded) -> None:
        kind = g.kind
        if kind == "error":
            self.errors += 1
        elif kind == "review":
            self.review += 1
        elif kind == "unscored":
            self.unscored += 1
        elif g.item.label == "pass":
            self.correct += 1
            self.false_alarms += kind == "false_alarm"
        else:
            self.wrong += 1
            self.misses += kind == "miss"


@dataclass
class Calibration:
    """Every graded answer of a suite and the figures drawn from them."""

    suite: str
    graded: list[Graded]
    min_sensitivity: float
    min_specificity: float
    case_ids: list[str] = field(default_factory=list)
    labelled_files: list[str] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[Graded]:
        return [g for g in self.graded if g.kind == kind]

    @property
    def scored(self) -> list[Graded]:
        return [g for g in self.graded if g.verdict in ("pass", "fail")]

    def review_rate(self, label: str | None = None) -> Rate:
        """Answers in review / answers labelled (`label`: of that label only), leaving out the
        answers of cases no deterministic check grades."""
        graded = [g for g in self.graded if g.verdict != "unscored"]
        if label is not None:
            graded = [g for g in graded if g.item.label == label]
        return Rate(sum(g.verdict == "review" for g in graded), len(graded))

    @property
    def sensitivity(self) -> Rate:
        """Wrong answers caught / wrong answers decided (review, errors and unscored left
        out)."""
        wrong = [g for g in self.scored if g.item.label == "fail"]
        return Rate(sum(g.verdict == "fail" for g in wrong), len(wrong))

    @property
    def specificity(self) -> Rate:
        """Correct answers passed / correct answers decided (review, errors and unscored left
        out)."""
        right = [g for g in self.scored if g.item.label == "pass"]
        return Rate(sum(g.verdict == "pass" for g in right), len(right))

    def _with_review(self, label: str, verdict: str) -> Rate:
        """Answers of `label` given `verdict`, over those decided or in review: an undecided
        answer counts as not given it (a wrong one in review was not caught)."""
        group = [g for g in self.graded if g.item.label == label and g.verdict != "unscored"]
        group = [g for g in group if g.verdict in ("pass", "fail", "review")]
        return Rate(sum(g.verdict == verdict for g in group), len(group))

    @property
    def sensitivity_with_review(self) -> Rate:
        """Wrong answers caught / wrong answers decided or in review (review: not caught)."""
        return self._with_review("fail", "fail")

    @property
    def specificity_with_review(self) -> Rate:
        """Correct answers passed / correct answers decided or in review (review: not passed)."""
        return self._with_review("pass", "pass")

    def floor_checks(self) -> list[FloorCheck]:
        """Each floor on the reading that counts an answer in review against the checks, by
        its exact bounds (evals.calibrate.floors)."""
        sens, spec = self.sensitivity_with_review, self.specificity_with_review
        return [
            rate_floor("sensitivity", sens.num, sens.n, self.min_sensitivity),
            rate_floor("specificity", spec.num, spec.n, self.min_specificity),
        ]

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa between the labels and the checks' verdicts, over the scored answers."""
        return cohen_kappa([(g.item.label, g.verdict) for g in self.scored])

    def sources(self) -> dict[str, int]:
        """How many answers came from each kind of source."""
        out = dict.fromkeys(("reference", "known_right", "known_wrong", "labelled"), 0)
        for g in self.graded:
            out[g.item.source.split("[")[0].split("/")[0]] += 1
        return out

    def by_check(self) -> dict[str, CheckRow]:
        """Per check: false alarms over the correct answers it scored, catches over the wrong."""
        rows: dict[str, CheckRow] = {}
        for g in self.graded:
            for name, r in g.results.items():
                row = rows.setdefault(name, CheckRow(name))
                if r.status == "error":
                    row.errors += 1
                elif r.status == "skip":
                    row.skipped += 1
                elif r.status == "review":
                    row.review += 1
                elif g.verdict == "error":
                    continue  # another check's error leaves the answer out of every figure
                elif g.item.label == "pass":
                    row.correct += 1
                    row.false_alarms += r.status == "fail"
                else:
                    row.wrong += 1
                    row.caught += r.status == "fail"
            if g.kind == "agree" and g.item.label == "fail" and len(g.failing) == 1:
                rows[g.failing[0]].only_catch += 1
        return dict(sorted(rows.items()))

    def by_case(self) -> dict[str, Tally]:
        """Per case, every case of the suite in id order (a case with no answer shows zeros)."""
        out = {cid: Tally() for cid in self.case_ids}
        for g in self.graded:
            out.setdefault(g.item.case, Tally()).add(g)
        return out

    def by_style(self) -> dict[str, Tally]:
        """Per `style` of the labelled answers that name one."""
        out: dict[str, Tally] = {}
        for g in self.graded:
            if g.item.style:
                out.setdefault(g.item.style, Tally()).add(g)
        return dict(sorted(out.items()))

    def shortfalls(self) -> list[str]:
        """Each floor missed (its upper bound below it) or undecided, as a sentence; a rate
        over no answers meets no floor."""
        out = []
        for f in self.floor_checks():
            what = "wrong" if f.name == "sensitivity" else "correct"
            if f.value is None:
                out.append(f"{f.name} is unknown: no {what} answer was graded (n = 0)")
            elif f.verdict == "FAIL":
                out.append(
                    f"{f.name} {f.value * 100:.1f}% is below the floor {f.floor * 100:g}% "
                    f"(even its upper bound, {f.high * 100:.1f}%)"
                )
            elif f.verdict == "INCONCLUSIVE":
                out.append(
                    f"{f.name} {f.value * 100:.1f}% cannot be told from the floor "
                    f"{f.floor * 100:g}% (its lower bound is {f.low * 100:.1f}%, n = {f.n}): "
                    f"label more {what} answers"
                )
        return out

    @property
    def exit_code(self) -> int:
        """3 when any answer errored (the figures are incomplete) or a floor is undecided, 1
        when a floor is missed (even its upper bound is below it), else 0."""
        if self.of_kind("error"):
            return EXIT_ERROR
        verdicts = {f.verdict for f in self.floor_checks()}
        if "FAIL" in verdicts:
            return EXIT_FAIL
        return EXIT_ERROR if "INCONCLUSIVE" in verdicts else EXIT_OK
