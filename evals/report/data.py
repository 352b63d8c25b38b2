"""What a report shows, computed from a run file: pure functions plus reading passages."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from evals.run.files import RunFile
from evals.run.precedents import label_counts
from evals.run.summary import check_rates, question_counts, summarise
from evals.suite.case import content_sha, read_json_file

# Rates below WEAK are drawn red, below FAIR amber, the rest green: weak checks stand out.
WEAK = 0.7
FAIR = 0.9


def percentile(values: list[float], q: float) -> float | None:
    """The q-th quantile (0..1) by linear interpolation between order statistics; None if empty."""
    if not values:
        return None
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside [0, 1]")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def band(rate: float | None) -> str:
    """`weak`, `fair`, `good`, or `none` when nothing was scored."""
    if rate is None:
        return "none"
    return "weak" if rate < WEAK else "fair" if rate < FAIR else "good"


def weakest_first(rates: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Rated items by ascending rate (unscored ones last), ties by name."""
    return sorted(
        rates.items(), key=lambda kv: (kv[1]["rate"] is None, kv[1]["rate"] or 0.0, kv[0])
    )


@dataclass(frozen=True)
class Latency:
    p50: float | None
    p95: float | None
    n: int
    n_total: int


def latency(rows: list[dict[str, Any]]) -> Latency:
    """p50 and p95 of the rows' reported latency, with how many rows reported one."""
    values = [float(r["latency_ms"]) for r in rows if isinstance(r.get("latency_ms"), int | float)]
    return Latency(percentile(values, 0.5), percentile(values, 0.95), len(values), len(rows))


@dataclass(frozen=True)
class ErrorReason:
    reason: str
    cases: list[str]


def error_reasons(rows: list[dict[str, Any]]) -> list[ErrorReason]:
    """Errored rows grouped by their reason, most frequent first."""
    groups: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r.get("status") == "error":
            groups[str(r.get("error") or "no reason recorded")].append(str(r.get("case")))
    return [
        ErrorReason(reason, cases)
        for reason, cases in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def review_groups(rows: list[dict[str, Any]]) -> list[ErrorReason]:
    """Rows in review grouped by what their checks could not decide (`check: why`), most
    frequent first."""
    groups: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r.get("status") != "review":
            continue
        checks = r.get("checks") or {}
        reasons = [
            f"{n}: {(checks.get(n) or {}).get('detail') or 'no reason given'}"
            for n in review_names(r)
        ]
        for reason in reasons or ["no reason recorded"]:
            groups[reason].append(str(r.get("case")))
    return [
        ErrorReason(reason, cases)
        for reason, cases in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def review_names(row: dict[str, Any]) -> list[str]:
    """The checks of a row that could not decide (status `review`)."""
    checks = row.get("checks") or {}
    return [n for n, r in checks.items() if (r or {}).get("status") == "review"]


@dataclass(frozen=True)
class JudgeCoverage:
    """How many rows that asked for the judge got a score from it."""

    n_scored: int
    n_total: int
    errors: int


def judge_coverage(summary: dict[str, Any]) -> JudgeCoverage | None:
    """The judge check's scored/total/error counts from the summary, or None without a judge."""
    rate = (summary.get("checks") or {}).get("judge")
    if not rate or rate["skip"] == rate["n_total"]:
        return None  # no judge, or none in this run: the not-graded line says so
    return JudgeCoverage(rate["n_scored"], rate["n_total"] - rate["skip"], rate["error"])


def flagged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows a person should look at (`needs_review: true`)."""
    return [r for r in rows if r.get("needs_review") is True]


def is_sealed(header: dict[str, Any]) -> bool:
    """A sealed run shows aggregates only."""
    return isinstance(header.get("sealed"), dict)


def row_label(row: dict[str, Any], epochs: int) -> str:
    """The case id, with the epoch when a run repeats cases."""
    return f"{row.get('case')} #{row.get('epoch', 0)}" if epochs > 1 else str(row.get("case"))


@dataclass
class RunReport:
    """A run file and everything derived from it that the reports print."""

    run: RunFile
    summary: dict[str, Any]
    #: Set when the file had no summary record and the numbers were recomputed from its rows.
    recomputed: bool
    latency: Latency
    errors: list[ErrorReason]
    judge: JudgeCoverage | None
    flagged: list[dict[str, Any]]
    sealed: bool
    epochs: int = 1
    warnings: list[str] = field(default_factory=list)
    #: Rows in review grouped by the undecided check and its reason.
    reviews: list[ErrorReason] = field(default_factory=list)
    #: A large run's rows kept in brief (`report.brief.Briefs`), when it was read so.
    briefs: Any = None

    @property
    def header(self) -> dict[str, Any]:
        return self.run.header

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.run.rows

    def summary_of(self, key: str, count: Any) -> Any:
        """`count(rows)`, or a large run's tally of every row under `key`."""
        if self.briefs is None:
            return count(self.rows)
        return self.briefs.tally.record(completed=False)[key]


def build_report(run: RunFile, briefs: Any = None) -> RunReport:
    """Everything the terminal and HTML reports need, from one parsed run file.

    With `briefs` (`report.brief.Briefs`, what the file was read with), the file's rows
    are only those it kept whole: the summary, the check means and the latency come from
    its counts of every row."""
    summary = run.summary
    warnings = list(run.warnings)
    recomputed = summary is None
    if summary is None and briefs is not None:
        summary = briefs.tally.record(completed=False, stopped_reason="no summary record")
        warnings.append(f"{run.path}: no summary record; numbers recomputed from the rows")
    elif summary is None:
        summary = summarise(run.rows, completed=False, stopped_reason="no summary record")
        warnings.append(f"{run.path}: no summary record; numbers recomputed from the rows")
    elif any("score_mean" not in r for r in (summary.get("checks") or {}).values()):
        # A run file written before checks had mean scores: they follow from its rows.
        means = briefs.tally.record(completed=False)["checks"] if briefs else check_rates(run.rows)
        checks = {
            k: {**r, "score_mean": (means.get(k) or {}).get("score_mean")}
            for k, r in summary["checks"].items()
        }
        summary = {**summary, "checks": checks}
    epochs = int((run.header.get("settings") or {}).get("epochs") or 1)
    return RunReport(
        run=run,
        summary=summary,
        recomputed=recomputed,
        latency=latency(run.rows)
        if briefs is None
        else Latency(
            percentile(list(briefs.latencies), 0.5),
            percentile(list(briefs.latencies), 0.95),
            len(briefs.latencies),
            briefs.n,
        ),
        errors=error_reasons(run.rows),
        judge=judge_coverage(summary),
        flagged=flagged(run.rows),
        sealed=is_sealed(run.header),
        epochs=epochs,
        warnings=warnings,
        reviews=review_groups(run.rows),
        briefs=briefs,
    )


@dataclass(frozen=True)
class Passage:
    ref: str
    text: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class Passages:
    """The passages a row was given; texts come from the suite's case file when it is found."""

    items: list[Passage]
    #: Why texts are missing or may differ from what the model saw; None when all is well.
    note: str | None = None


def suite_roots(run: RunFile, cwd: Path) -> list[Path]:
    """Where the header's suite path may be relative to: here, and the run file's project."""
    roots = [cwd, run.path.resolve().parent.parent, run.path.resolve().parent]
    return list(dict.fromkeys(roots))


def find_suite(header: dict[str, Any], roots: list[Path]) -> Path | None:
    """The suite folder the header names, looked up under each root; None when not found."""
    suite = header.get("suite")
    if not isinstance(suite, str) or not suite:
        return None
    p = Path(suite)
    for candidate in [p] if p.is_absolute() else [r / p for r in roots]:
        if (candidate / "cases").is_dir():
            return candidate
    return None


def passages_for(row: dict[str, Any], suite: Path | None) -> Passages:
    """The row's retrieved refs, with texts and titles from the case file when it can be read."""
    refs = [str(r) for r in row.get("retrieved") or []]
    if suite is None:
        return Passages([Passage(r) for r in refs], "suite not found: passage texts unavailable")
    path = suite / "cases" / f"{row.get('case')}.json"
    try:
        data = read_json_file(path)
    except (OSError, ValueError) as exc:
        return Passages([Passage(r) for r in refs], f"{path}: {exc}; passage texts unavailable")
    if not isinstance(data, dict):
        return Passages([Passage(r) for r in refs], f"{path}: not a case; texts unavailable")
    known = {
        p.get("ref"): p for p in data.get("retrieved") or [] if isinstance(p, dict) and "ref" in p
    }
    note = None
    if row.get("retrieved") is None:
        # No reply (a provider error): show what the case would have given the model.
        refs = [str(r) for r in known]
        note = "no reply recorded: these are the case's passages"
    items = [
        Passage(r, known[r].get("text"), known[r].get("title")) if r in known else Passage(r)
        for r in refs
    ]
    if row.get("case_sha") and content_sha(data) != row.get("case_sha"):
        note = "the case file has changed since this run: passages shown are today's"
    return Passages(items, note)


def citation_spans(text: str, pattern: str) -> list[tuple[str, str | None]]:
    """Split an answer into (text, ref) pieces: ref is set on each citation the pattern finds."""
    try:
        compiled = regex.compile(pattern)
        matches = list(compiled.finditer(text, timeout=1.0))
    except (regex.error, TimeoutError, TypeError):
        return [(text, None)]
    out: list[tuple[str, str | None]] = []
    at = 0
    for m in matches:
        if m.end() == m.start():
            continue
        if m.start() > at:
            out.append((text[at : m.start()], None))
        ref = m.group(1) if compiled.groups >= 1 and m.group(1) is not None else m.group(0)
        out.append((m.group(0), ref))
        at = m.end()
    if at < len(text):
        out.append((text[at:], None))
    return out


def failing_checks(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(failed, errored) check names of a row."""
    checks = row.get("checks") or {}
    failed_names = [n for n, r in checks.items() if r.get("status") == "fail"]
    errored_names = [n for n, r in checks.items() if r.get("status") == "error"]
    return failed_names, errored_names


def run_labels(rep: RunReport) -> dict[str, int] | None:
    """The rows a label decided; a large run's from its tally (its passes are in brief)."""
    return rep.summary_of("labels", label_counts)


def run_questions(rep: RunReport) -> dict[str, int] | None:
    """What the judge was asked; a large run's from its tally (its passes are in brief)."""
    return rep.summary_of("judge_questions", question_counts)
