"""Small builders shared by the tests: temp projects, suites and case files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))
# A fixed git identity and no user or system config: commits in temp repos work on any machine.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Case Owner",
    "GIT_AUTHOR_EMAIL": "owner@example.com",
    "GIT_COMMITTER_NAME": "Case Owner",
    "GIT_COMMITTER_EMAIL": "owner@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def good_case(case_id: str = "price-pro", **over: Any) -> dict[str, Any]:
    """A realistic valid case: the 21:45 shift beside the 45 € price."""
    data: dict[str, Any] = {
        "id": case_id,
        "category": "pricing",
        "question": "What does one more Pro seat cost per month? Our night shift starts at 21:45.",
        "context": {"plan": "pro"},
        "retrieved": [
            {
                "ref": "pricing#plans",
                "text": "Starter: 39 € per seat and month. Pro: 45 € per seat and month.",
            },
            {
                "ref": "rules#night",
                "text": "The night surcharge applies to shifts beginning at 22:00 or later.",
            },
        ],
        "expect": {
            "mentions": [r"\b45\s?€"],
            "sources": ["pricing#plans"],
            "must_not_contain": ["39 €"],
        },
        "reference": "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].",
        "known_wrong": [
            {"draft": "A Pro seat costs 39 € [doc:pricing#plans].", "why": "Starter price"}
        ],
    }
    data.update(over)
    return data


def make_project(
    tmp: Path, cases: list[dict[str, Any]] | None = None, prompt: str = "Be exact.\n"
) -> Path:
    """A project dir with pyproject.toml and a suite at `suite/`; returns the suite path."""
    (tmp / "pyproject.toml").write_text('[tool.evals]\nsuite = "suite"\n', encoding="utf-8")
    suite = tmp / "suite"
    (suite / "cases").mkdir(parents=True)
    (suite / "prompt.txt").write_text(prompt, encoding="utf-8")
    for c in cases if cases is not None else [good_case()]:
        write_case(suite, c)
    return suite


def write_case(suite: Path, data: dict[str, Any], name: str | None = None) -> Path:
    from evals.suite.case import canonical_json

    path = suite / "cases" / f"{name or data['id']}.json"
    path.write_text(canonical_json(data), encoding="utf-8")
    return path


def invoke(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a real `invoke` task of this project from `cwd`."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [INVOKE, "-r", str(ROOT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
