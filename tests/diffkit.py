"""Builders for run files in the documented format, for the diff and baseline tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

CHECKS = ("facts_present", "sources_cited", "no_forbidden")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def header(run_id: str, **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "run",
        "format": 1,
        "run_id": run_id,
        "created": "2026-11-01T10:00:00Z",
        "model": "local/extractive@2026-11-01",
        "provider": "local",
        "prompt_sha": sha("Be exact.\n"),
        "suite": "evals",
        "suite_digest": sha("suite"),
        "label": None,
        "git": {"commit": "a" * 40, "dirty": False},
        "versions": {"evals": "0.1.0", "python": "3.11.7"},
        "settings": {"concurrency": 8, "epochs": 1},
        "judge": None,
        "sealed": None,
    }
    data.update(over)
    return data


def row(
    run_id: str,
    case_id: str,
    status: str,
    score: float | None = None,
    *,
    failed: tuple[str, ...] = (),
    epoch: int = 0,
    case_text: str = "v1",
    cluster: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """A case row; `failed` names the checks that failed (default: facts_present on fail)."""
    if status == "fail" and not failed:
        failed = ("facts_present",)
    checks = {}
    for name in CHECKS:
        if status == "error":
            checks[name] = {"status": "error", "score": None, "detail": "provider error"}
        elif name in failed:
            checks[name] = {"status": "fail", "score": 0.0, "detail": "missing"}
        else:
            checks[name] = {"status": "pass", "score": 1.0, "detail": "ok"}
    if score is None and status != "error":
        score = 1.0 if status == "pass" else 1 - len(failed) / len(CHECKS)
    return {
        "kind": "case",
        "run_id": run_id,
        "case": case_id,
        "case_sha": sha(case_id + case_text),
        "epoch": epoch,
        "model": "local/extractive@2026-11-01",
        "prompt_sha": sha("Be exact.\n"),
        "status": status,
        "score": score,
        "checks": checks,
        "failed_checks": list(failed) if status != "error" else [],
        "category": "billing",
        "cluster": cluster,
        "question": f"What about {case_id}?",
        "draft": None if status == "error" else "An answer [doc:x#y].",
        "retrieved": ["x#y"],
        "cited": ["x#y"],
        "abstained": False,
        "latency_ms": 12.5,
        "usage": {"input_tokens": 10, "output_tokens": 5},
        "cost_usd": 0.0,
        "resolved_model": "extractive",
        "cached": False,
        "error": error if status == "error" else None,
    }


def summary(run_id: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in ("pass", "fail", "error")}
    scored = [r["score"] for r in rows if r["score"] is not None and r["status"] != "error"]
    return {
        "kind": "summary",
        "run_id": run_id,
        "completed": True,
        "stopped_reason": None,
        "counts": {**counts, "total": len(rows)},
        "score_mean": sum(scored) / len(scored) if scored else None,
        "n_scored": len(scored),
        "n_total": len(rows),
        "checks": {},
        "categories": {},
        "tokens": None,
        "cost_usd": 0.0,
    }


def write_run(
    path: Path,
    run_id: str,
    rows: list[dict[str, Any]],
    *,
    complete: bool = True,
    **header_over: Any,
) -> Path:
    records = [header(run_id, **header_over), *rows]
    if complete:
        records.append(summary(run_id, rows))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def project(tmp: Path) -> Path:
    """A project folder with a pyproject.toml and an empty runs/ folder."""
    (tmp / "pyproject.toml").write_text('[tool.evals]\nruns_dir = "runs"\n', encoding="utf-8")
    (tmp / "runs").mkdir(exist_ok=True)
    return tmp
