"""An import decided before anything is written: the file read, its format told, every record
mapped, named and validated into a Plan."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.checks.loading import case_problems
from evals.errors import InputError, Problem
from evals.interchange.formats import (
    COMMON,
    CSV_COLUMNS,
    MAPPERS,
    Mapped,
    map_csv_row,
    unknown_note,
)
from evals.interchange.naming import listed, slugify, usable_id
from evals.interchange.rag import attach_claims, read_chunks, read_claims
from evals.interchange.reading import read_csv, read_jsonl, read_text
from evals.suite.folder import Suite, load_suite_checks
from evals.suite.schemas import schema_problems

FORMATS = ("auto", "golden", "rubric", "csv", "case")
GOLDEN_KEYS = {"expected_facts", "must_not_contain", "source_id"}
RUBRIC_KEYS = {"rubric", "expected_destinations"}


@dataclass
class Plan:
    """Everything an import will write, decided before anything is written."""

    fmt: str
    cases: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    answers_path: Path | None = None
    changed_ids: list[tuple[str, str]] = field(default_factory=list)
    generated_ids: list[tuple[int, str, str | None]] = field(default_factory=list)
    unknown: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    remarks: list[str] = field(default_factory=list)
    #: Where to write a judge prompt: the cases carry rubrics and the suite has none.
    judge_prompt: Path | None = None


def looks_like_csv(path: Path, text: str) -> bool:
    """CSV by extension; otherwise JSONL unless the content does not start like JSON."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return True
    return suffix not in (".jsonl", ".ndjson", ".json") and not text.lstrip().startswith(("{", "["))


def detect(path: Path, records: list[tuple[int, dict[str, Any]]]) -> str:
    """A JSONL file's format, from the keys its records carry."""
    keys = set().union(*(r.keys() for _, r in records)) if records else set()
    if "expect" in keys:
        return "case"
    golden, rubric = bool(keys & GOLDEN_KEYS), bool(keys & RUBRIC_KEYS)
    if golden != rubric:
        return "golden" if golden else "rubric"
    raise InputError(
        [
            Problem(
                str(path),
                "",
                "cannot tell the format from the fields; pass --format golden|rubric|csv|case",
            )
        ]
    )


def plan_import(
    file: Path,
    suite: Suite,
    fmt: str,
    chunks_file: Path | None,
    answers_out: Path | None,
    claims_file: Path | None = None,
) -> Plan:
    """Map, name and validate every record; raise with every problem found, or return the plan."""
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")
    text = read_text(file)
    problems: list[Problem] = []
    is_csv = fmt == "csv" or (fmt == "auto" and looks_like_csv(file, text))
    header: list[str] = []
    if is_csv:
        header, records = read_csv(file, text, problems)
    else:
        records = read_jsonl(file, text, problems)
    if not records:
        raise InputError(problems or [Problem(str(file), "", "no records")])
    plan = Plan(fmt="csv" if is_csv else (fmt if fmt != "auto" else detect(file, records)))
    if is_csv:
        missing = [c for c in ("question",) if header and c not in header]
        problems += [Problem(str(file), "line 1", f"missing column {c!r}") for c in missing]
    if chunks_file and not is_csv:
        raise InputError(f"--chunks is for CSV evaluation sets; {file} is read as {plan.fmt} JSONL")
    if claims_file and not is_csv:
        raise InputError(
            f"--claims annotates the saved answers of a CSV evaluation set; {file} is not one"
        )
    chunks = None
    if chunks_file:
        chunks, remarks = read_chunks(chunks_file)
        plan.remarks += remarks
    mapped: list[Mapped] = []
    for n, rec in records:
        mapped.append(map_csv_row(n, rec, chunks) if is_csv else MAPPERS[plan.fmt](n, rec))
    if claims_file:
        claims, found = read_claims(claims_file, chunks)
        problems += found
        attach_claims(claims_file, claims, mapped, problems)
        n_claims = sum(len(c) for c in claims.values())
        plan.remarks.append(
            f"{n_claims} annotated claim(s) of {len(claims)} saved answer(s) from {claims_file}: "
            "every imported case is graded by claim_support (an answer without annotations "
            "scores 0 unless it declines)"
        )
    _name_and_check(file, suite, plan, mapped, problems)
    empty = [h for h in header if h not in CSV_COLUMNS and h not in plan.unknown]
    if empty:
        plan.remarks.append(f"column(s) with no case field, empty in every row: {', '.join(empty)}")
    _judge_prompt_for(suite, plan)
    if plan.answers:
        # Beside the suite's cases, never beside FILE: the file to import may sit in a
        # folder of the repository's own (its docs, a data checkout) that is not the suite's.
        plan.answers_path = answers_out or suite.path / f"{file.stem}.answers.jsonl"
        if plan.answers_path.exists():
            problems.append(
                Problem(
                    str(plan.answers_path),
                    "",
                    "already exists; not overwritten (use --answers-out)",
                )
            )
    if problems:
        raise InputError(problems)
    return plan


def _name_and_check(
    file: Path, suite: Suite, plan: Plan, mapped: list[Mapped], problems: list[Problem]
) -> None:
    """Give every record its case id, validate the case it becomes, and find every conflict."""
    from evals.checks import REGISTRY

    load_suite_checks(suite)
    known = set(REGISTRY)
    taken: dict[str, int] = {}
    conflicts: list[Problem] = []
    for i, m in enumerate(mapped, 1):
        where = f"line {m.line}"
        for name, msg in m.problems:
            problems.append(Problem(str(file), f"{where}/{name}", msg))
        if m.problems:  # already reported against the input; validating would repeat it
            continue
        cid = usable_id(m.raw_id) if m.raw_id is not None else ""
        if not cid:
            # No id, or one with no Latin letter or digit (e.g. "質問 1"): number it, and say so.
            cid = f"{slugify(file.stem) or 'case'}-{i:04d}"
            plan.generated_ids.append((m.line, cid, m.raw_id))
        elif cid != m.raw_id:
            plan.changed_ids.append((m.raw_id, cid))
        if cid in taken:
            problems.append(
                Problem(str(file), f"{where}/id", f"id {cid!r} also on line {taken[cid]}")
            )
            continue
        taken[cid] = m.line
        data = {"id": cid, **m.data}
        # The original id stays in the note, so results map back to the team's own records.
        kept = ({"id": m.raw_id} if m.raw_id not in (None, cid) else {}) | m.unknown
        if kept:
            data["note"] = unknown_note(data.get("note"), kept)
        if m.unknown:
            # A known field with an unusable value (e.g. difficulty) is reported in remarks.
            for key in m.unknown.keys() - COMMON:
                plan.unknown[key].append(cid)
        plan.remarks += [f"{cid}: {r}" for r in m.remarks]
        target = suite.cases_dir / f"{cid}.json"
        found = schema_problems(data, "case.schema.json", str(target)) + case_problems(
            data, target, known
        )
        problems += [
            Problem(p.path, p.pointer, f"{p.message} (from {file} {where})") for p in found
        ]
        if target.exists():
            conflicts.append(
                Problem(str(target), "", f"already exists; not overwritten (from {file} {where})")
            )
        plan.cases.append((target, data))
        if m.answer is not None:
            plan.answers.append({**m.answer, "case": cid})
    problems += conflicts
    judged_only = [cid for cid, d in ((p.stem, d) for p, d in plan.cases) if _judge_only(d)]
    if judged_only:
        plan.remarks.append(
            f"{len(judged_only)} case(s) have only a rubric, so only the judge grades them "
            f"(run with --judge MODEL; without it they are left out of the run): "
            f"{listed(judged_only)}"
        )
    if plan.answers:
        answered = {a["case"] for a in plan.answers}
        unanswered = [p.stem for p, _ in plan.cases if p.stem not in answered]
        if unanswered:
            plan.remarks.append(
                f"{len(unanswered)} case(s) have no saved answer; a replay run reports them "
                f"as errors: {listed(unanswered)}"
            )


def _judge_prompt_for(suite: Suite, plan: Plan) -> None:
    """A rubric needs a judge, and a judge needs the suite's judge_prompt.txt: write a
    commented one when the suite has none. Say what the travel format's fields became."""
    rubrics = [p.stem for p, d in plan.cases if (d.get("expect") or {}).get("rubric")]
    path = suite.judge_prompt_path
    if rubrics and not path.exists() and not path.is_symlink():
        plan.judge_prompt = path
    if plan.fmt != "rubric":
        return
    retrieval = [p.stem for p, d in plan.cases if (d.get("expect") or {}).get("sources")]
    if retrieval:
        plan.remarks.append(
            f"expected_destinations became expect.sources in {len(retrieval)} case(s): "
            "retrieval_recall scores the share of them among the refs your system reports "
            "retrieving (a --target app's `retrieved`); the answer need not name them"
        )
    handover = [p.stem for p, d in plan.cases if (d.get("expect") or {}).get("abstain")]
    if handover:
        plan.remarks.append(
            f"{len(handover)} adversarial case(s) became hand-over cases (expect.abstain: "
            f"true), so an answer that invents fails: {listed(handover)}"
        )


def _judge_only(data: dict[str, Any]) -> bool:
    """A case only the LLM judge grades: no deterministic check applies to it."""
    from evals.checks.grading import grader_only
    from evals.suite.case import Case

    return grader_only(Case(data))
