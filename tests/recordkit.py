"""Complete, schema-valid run-file records for tests that write run files by hand.

`read_run` checks every record against schemas/run.schema.json, so a hand-made run file
needs every field the writer would put there; give only what the test is about.
"""

from __future__ import annotations

import hashlib
from typing import Any


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def header(**over: Any) -> dict[str, Any]:
    """A run header (kind=run)."""
    rec: dict[str, Any] = {
        "kind": "run",
        "run_id": "r1",
        "created": "2026-11-29T10:00:00Z",
        "model": "m@2026-01-01",
        "prompt_sha": sha("prompt"),
        "suite": "suite",
        "suite_digest": sha("suite"),
        "git": {"commit": None, "dirty": None},
        "versions": {},
        "settings": {"epochs": 1},
        "judge": None,
        "sealed": None,
    }
    return {**rec, **over}


def row(case: str = "a", **over: Any) -> dict[str, Any]:
    """A case row (kind=case); an `error` status gets a null score and a reason."""
    rec: dict[str, Any] = {
        "kind": "case",
        "run_id": "r1",
        "case": case,
        "case_sha": sha(case),
        "epoch": 0,
        "model": "m@2026-01-01",
        "prompt_sha": sha("prompt"),
        "status": "pass",
        "score": 1.0,
        "checks": {},
    }
    rec.update(over)
    if rec["status"] == "error":
        rec.setdefault("error", "failed")
        rec["score"] = None
    return rec
