"""Time `invoke diff` work on two synthetic 10,000-case run files: read, pair, gate, render.

Usage: .venv/bin/python bench/diff_speed.py [N_CASES]   (target: under 2 s for 10,000 cases)

It calls the diff in-process, so there is no `invoke diff` exit code to read; the script
exits 0 once it has printed the figures, and with a traceback only if the diff itself broke.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from evals.compare.command import build_report

CHECKS = ("facts_present", "mentions_expected", "no_forbidden", "sources_cited", "retrieval_recall")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _checks(rng: random.Random, quality: float) -> dict[str, dict]:
    """Check results like the built-in checks give: coverage shares and pass/fail."""
    out = {}
    for name in CHECKS:
        if name == "facts_present":
            total = rng.randint(1, 5)
            found = sum(rng.random() < quality for _ in range(total))
            score = found / total
            status = "pass" if found == total else "fail"
        else:
            status = "pass" if rng.random() < quality + 0.1 else "fail"
            score = 1.0 if status == "pass" else 0.0
        out[name] = {"status": status, "score": score, "detail": "synthetic"}
    return out


def _row(
    run_id: str, i: int, checks: dict[str, dict], error: bool = False, clusters: bool = True
) -> dict:
    failed = [k for k, v in checks.items() if v["status"] == "fail"]
    score = round(sum(v["score"] for v in checks.values()) / len(checks), 6)
    return {
        "kind": "case",
        "run_id": run_id,
        "case": f"case-{i:05d}",
        "case_sha": _sha(f"case {i}"),
        "epoch": 0,
        "model": "local/extractive@2026-11-01",
        "prompt_sha": _sha(run_id),
        "status": "error" if error else ("fail" if failed else "pass"),
        "score": None if error else score,
        "checks": checks,
        "failed_checks": failed,
        "category": f"cat{i % 12}",
        "cluster": f"doc{i % 700}" if clusters else None,
        "question": f"How do I change setting number {i} for my team, and who can do it?",
        "draft": "Admins change it under Settings, Team [doc:settings#team]. " * 3,
        "retrieved": ["settings#team", "billing#plans"],
        "cited": ["settings#team"],
        "abstained": False,
        "latency_ms": 120.0,
        "usage": {"input_tokens": 900, "output_tokens": 80},
        "cost_usd": 0.0,
        "resolved_model": "extractive",
        "cached": False,
        "error": "ProviderError: 503" if error else None,
    }


def write_pair(
    folder: Path, n: int, seed: int = 1, jitter: bool = False, clusters: bool = True
) -> tuple[Path, Path]:
    """Run A and run B over the same n cases; about 15% of cases change between them.

    With `jitter`, every score in B moves a little, so each case has its own score
    difference. Without `clusters` the pass rate gets the exact McNemar test and its exact
    power (the slowest figure at this size).
    """
    rng = random.Random(seed)
    paths = []
    rows_a, rows_b = [], []
    for i in range(n):
        quality = rng.uniform(0.5, 1.0)
        checks_a = _checks(rng, quality)
        changed = rng.random() < 0.15
        checks_b = _checks(rng, quality - 0.03) if changed else checks_a
        rows_a.append(_row("A", i, checks_a, clusters=clusters))
        row_b = _row("B", i, checks_b, error=rng.random() < 0.002, clusters=clusters)
        if jitter and row_b["score"] is not None:
            row_b["score"] = round(min(1.0, max(0.0, row_b["score"] + rng.uniform(-0.05, 0.05))), 6)
        rows_b.append(row_b)
    for run_id, rows in (("A", rows_a), ("B", rows_b)):
        header = {
            "kind": "run",
            "run_id": run_id,
            "created": "2026-11-01T10:00:00Z",
            "model": "local/extractive@2026-11-01",
            "prompt_sha": _sha(run_id),
            "suite": "evals",
            "suite_digest": _sha("suite"),
            "git": {"commit": "0" * 40, "dirty": False},
            "versions": {},
            "settings": {"epochs": 1},
            "judge": None,
            "sealed": None,
        }
        counts = {k: sum(r["status"] == k for r in rows) for k in ("pass", "fail", "error")}
        summary = {
            "kind": "summary",
            "completed": True,
            "counts": {**counts, "total": len(rows)},
            "checks": {},
        }
        path = folder / f"{run_id}.jsonl"
        lines = [json.dumps(r) for r in (header, *rows, summary)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def time_diff(n: int, jitter: bool, clusters: bool = True) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pa, pb = write_pair(Path(tmp), n, jitter=jitter, clusters=clusters)
        c0, t0 = time.process_time(), time.perf_counter()
        cmp, _ = build_report(pa, pb, "md")  # what `invoke diff --a A --b B` does, less printing
        t1, c1 = time.perf_counter(), time.process_time()
        # JSON lists every paired case, so it keeps them all: timed as its own diff.
        t_json = time.perf_counter()
        every, _ = build_report(pa, pb, "json")
        t_json = time.perf_counter() - t_json
    distinct = len({round(c.score_diff, 9) for c in every.cases})
    tests = "; ".join(
        f"{f.name}: {f.interval.method}, MDE {f.mde_kind}" for f in cmp.decision.main.figures
    )
    print(
        f"diff of two {n:,}-case runs: {t1 - t0:.2f} s ({c1 - c0:.2f} s of CPU); "
        f"{cmp.stats.n_paired:,} paired cases, {distinct:,} distinct score differences, "
        f"{len(cmp.checks)} checks, {len(cmp.categories)} categories, verdict "
        f"{cmp.decision.verdict} ({tests}); the same with --format json {t_json:.2f} s"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    time_diff(n, jitter=False)
    time_diff(n, jitter=True)
    time_diff(n, jitter=False, clusters=False)


if __name__ == "__main__":
    main()
