"""Time `invoke compare` work on four synthetic 1,000-case run files: read, pair, gate at the
Holm steps, every pair for "best", the grid, and the Markdown, JSON and HTML renderings.

Usage: .venv/bin/python bench/compare_speed.py [N_CASES] [N_RUNS]   (target: 4 x 1,000 in under 2 s)

It calls the comparison in-process and prints the figures; it exits 0 once it has printed
them, and with a traceback only if the comparison itself broke.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from diff_speed import _checks, _row  # the diff benchmark's synthetic rows, same shape

from evals.multi.command import read_runs
from evals.multi.comparison import compare_many
from evals.multi.render import render, render_json


def write_runs(folder: Path, n: int, k: int, seed: int = 1) -> list[Path]:
    """k runs over the same n cases; each run after the first changes about 15% of them."""
    rng = random.Random(seed)
    quality = [rng.uniform(0.5, 1.0) for _ in range(n)]
    base = [_checks(rng, q) for q in quality]
    paths = []
    for r in range(k):
        run_id = f"R{r}"
        rows = []
        for i in range(n):
            changed = r > 0 and rng.random() < 0.15
            checks = _checks(rng, quality[i] - 0.02 * r) if changed else base[i]
            rows.append(_row(run_id, i, checks, error=r > 0 and rng.random() < 0.002))
        header = {
            "kind": "run",
            "run_id": run_id,
            "created": "2026-11-01T10:00:00Z",
            "model": f"local/extractive-{r}@2026-11-01",
            "prompt_sha": "0" * 64,
            "suite": "evals",
            "suite_digest": "0" * 64,
            "git": {"commit": "0" * 40, "dirty": False},
            "versions": {},
            "judge": None,
            "label": f"variant-{r}",
            "settings": {"epochs": 1},
            "sealed": None,
        }
        counts = {s: sum(r["status"] == s for r in rows) for s in ("pass", "fail", "error")}
        summary = {
            "kind": "summary",
            "completed": True,
            "counts": {**counts, "total": n},
            "checks": {},
        }
        path = folder / f"{run_id}.jsonl"
        path.write_text(
            "\n".join(json.dumps(x) for x in (header, *rows, summary)) + "\n", encoding="utf-8"
        )
        paths.append(path)
    return paths


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_runs(Path(tmp), n, k)
        c0, t0 = time.process_time(), time.perf_counter()
        mc = compare_many(read_runs(paths), 0, list(range(1, k)))
        render(mc, "md")
        t1, c1 = time.perf_counter(), time.process_time()
        render_json(mc)
        t2 = time.perf_counter()
        try:
            from evals.multi.page import render_page

            render_page(mc)
            html = f"; the HTML page adds {time.perf_counter() - t2:.2f} s"
        except ImportError:
            html = ""
    verdicts = ", ".join(f"{mc.runs[c.run].key} {c.verdict.verdict}" for c in mc.candidates)
    print(
        f"compare of {k} {n:,}-case runs: {t1 - t0:.2f} s ({c1 - c0:.2f} s of CPU) to read, "
        f"gate {k - 1} candidates at their Holm steps, test {k * (k - 1) // 2} pairs and render "
        f"Markdown; {len(mc.disagreeing):,} cases disagree; verdicts {verdicts}; "
        f"--format json adds {t2 - t1:.2f} s{html}"
    )


if __name__ == "__main__":
    main()
