"""sealed/LEDGER.jsonl: one line per sealed run, hash-chained, and the query budget it spends."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from evals.errors import Problem
from evals.run.files import run_headers
from evals.suite.folder import Suite

LEDGER = "LEDGER.jsonl"


def ledger_path(suite: Suite) -> Path:
    return suite.sealed_dir / LEDGER


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [ln for ln in path.read_text("utf-8").splitlines() if ln.strip()]


def read_ledger(suite: Suite) -> list[dict[str, Any]]:
    """Every parseable ledger entry, oldest first."""
    out = []
    for line in _lines(ledger_path(suite)):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _sha(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def append_ledger(suite: Suite, entry: dict[str, Any]) -> dict[str, Any]:
    """Append one entry, chained to the previous line's hash; flushed to disk before returning."""
    path = ledger_path(suite)
    lines = _lines(path)
    rec = {**entry, "prev": _sha(lines[-1]) if lines else None}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return rec


def ledger_problems(suite: Suite) -> list[Problem]:
    """Malformed lines and a broken hash chain (an earlier line edited or deleted)."""
    from evals.suite.schemas import schema_problems

    path = ledger_path(suite)
    where = str(path)
    problems: list[Problem] = []
    prev: str | None = None
    for n, line in enumerate(_lines(path), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(where, f"line {n}", f"invalid JSON: {exc.msg}"))
            prev = _sha(line)
            continue
        for p in schema_problems(rec, "ledger.schema.json", where):
            problems.append(Problem(where, f"line {n}{p.pointer}", p.message))
        if isinstance(rec, dict) and rec.get("prev") != prev:
            problems.append(
                Problem(where, f"line {n}", "ledger altered: an earlier line was edited or removed")
            )
        prev = _sha(line)
    return problems


def sealed_run_files(runs_dir: Path, pile_id: str) -> list[tuple[dict[str, Any], Path]]:
    """(header, path) of every run file in runs_dir that ran this pile, oldest first."""
    out = []
    for header, path in run_headers(runs_dir):
        sealed = header.get("sealed")
        if isinstance(sealed, dict) and sealed.get("pile_id") == pile_id:
            out.append((header, path))
    return sorted(out, key=lambda hp: (hp[0].get("created") or "", hp[1].name))


def ledger_count(suite: Suite, pile_id: str) -> int:
    """Sealed runs of this pile the ledger records."""
    return sum(1 for e in read_ledger(suite) if e.get("pile_id") == pile_id)


def budget_used(suite: Suite, pile_id: str, runs_dir: Path) -> int:
    """Sealed runs spent on this pile: the ledger's count, or the run files' if that is larger.

    Counting both means deleting ledger lines does not give the budget back.
    """
    return max(ledger_count(suite, pile_id), len(sealed_run_files(runs_dir, pile_id)))
