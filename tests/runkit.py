"""Helpers for the run tests: a temp project wired to the loopback server, and its run files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals.cli import guarded
from evals.commands.run import RunOptions, cmd_run
from evals.suite.case import canonical_json

MODEL = "acme/chat-small@2024-07-18"
API_KEY = "sk-test-SECRET-0123456789abcdef"
GOOD = "One more Pro seat costs 45 EUR per month [doc:pricing#plans]."
WRONG = "One more Pro seat costs 39 EUR per month [doc:pricing#plans]."


def case(i: int, **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": f"case-{i:03d}",
        "category": "pricing" if i % 2 else "billing",
        "question": f"Customer {i}: what does one more Pro seat cost per month?",
        "context": {"plan": "pro", "seats": i},
        "retrieved": [
            {"ref": "pricing#plans", "text": "Starter: 39 EUR per seat. Pro: 45 EUR per seat."},
            {"ref": "billing#dates", "text": "Invoices are issued monthly."},
        ],
        "expect": {"mentions": [r"\b45 EUR"], "sources": ["pricing#plans"]},
    }
    data.update(over)
    return data


def make_project(
    tmp: Path,
    n: int = 6,
    *,
    prompt: str = "Answer from the passages; cite as [doc:REF].\n",
    timeout_s: float = 2.0,
    max_retries: int = 2,
    resend: int = 0,
    concurrency: int = 4,
    price: tuple[float, float] | None = (1.0, 2.0),
    extra: str = "",
) -> Path:
    """A project (pyproject.toml + suite/) with `n` cases; returns the project root.

    `resend` is 0 by default: these tests pin down what one failed attempt becomes (an
    error row); tests/test_retry.py pins down the re-sends."""
    lines = [
        "[tool.evals]",
        'suite = "suite"',
        'runs_dir = "runs"',
        'cache = ".evals-cache/cache.sqlite"',
        f"concurrency = {concurrency}",
        f"timeout_s = {timeout_s}",
        f"max_retries = {max_retries}",
        f"resend = {resend}",
        extra,
    ]
    if price is not None:
        lines += [f'[tool.evals.prices."{MODEL}"]', f"input = {price[0]}", f"output = {price[1]}"]
    (tmp / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cases = tmp / "suite" / "cases"
    cases.mkdir(parents=True)
    (tmp / "suite" / "prompt.txt").write_text(prompt, encoding="utf-8")
    for i in range(n):
        write_case(tmp, case(i))
    return tmp


def write_case(root: Path, data: dict[str, Any]) -> None:
    path = root / "suite" / "cases" / f"{data['id']}.json"
    path.write_text(canonical_json(data), encoding="utf-8")


def use(monkeypatch: pytest.MonkeyPatch, root: Path, base_url: str | None) -> None:
    """Run commands from `root` against the server at `base_url`."""
    monkeypatch.chdir(root)
    if base_url:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def run(**opts: Any) -> int:
    """`invoke run` in-process, with its exit code."""
    models = opts.pop("models", None)
    if models is None and "target" not in opts and "answers" not in opts:
        models = [MODEL]
    o = RunOptions(models=list(models or []), **opts)
    o.model = o.models[0] if len(o.models) == 1 else None
    return guarded(lambda: cmd_run(o))


def run_files(root: Path) -> list[Path]:
    return sorted((root / "runs").glob("*.jsonl"))


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").split("\n") if x.strip()]


def rows(path: Path) -> list[dict[str, Any]]:
    return [r for r in records(path) if r["kind"] == "case"]


def summary(path: Path) -> dict[str, Any]:
    return [r for r in records(path) if r["kind"] == "summary"][-1]
