"""What mutation found: the verdict on every variant and draft, per case and for the whole run."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from evals.checks import CheckResult
from evals.mutate.operators import OPERATORS

#: The check the LLM judge produces, and the statuses that are verdicts (not errors or skips).
JUDGE = "judge"
VERDICTS = ("pass", "fail")
#: A case outcome as a verdict on an answer known wrong or right; anything else is an error.
MUTANT_VERDICT = {"fail": "killed", "pass": "survived", "review": "review"}
WRONG_VERDICT = {"fail": "caught", "pass": "missed", "review": "review"}
RIGHT_VERDICT = {"pass": "held", "fail": "false_alarm", "review": "review"}


@dataclass
class GoodResult:
    """How a good answer fared on its own checks; only a passing one is mutated."""

    source: str
    status: str  # pass | fail | review | error (the good answer's own outcome)
    failed: list[str]
    used: bool  # whether its variants were graded
    # What each check that held the answer up said: a user fixes the case from this.
    details: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Exemption:
    """One `mutation_exempt` entry: an operator, or one variant of it (`change`), and why."""

    operator: str
    why: str
    change: str | None = None

    def covers(self, operator: str, note: str) -> bool:
        """Whether this entry exempts the variant `operator` made with the change `note`."""
        if operator != self.operator:
            return False
        return self.change is None or note.startswith(self.change)


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
    exemptions: list[Exemption] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def exemption_for(self, operator: str, note: str) -> str | None:
        """The reason a variant is exempt, from the first entry that covers it; else None."""
        for e in self.exemptions:
            if e.covers(operator, note):
                return e.why
        return None

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

    def exemption_used(self, e: Exemption) -> bool:
        """Whether a variant this entry covers needed it (survived, or a false alarm)."""
        return any(v.exempt is not None and e.covers(v.operator, v.note) for v in self.variants)

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
