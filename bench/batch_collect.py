"""A batch run of N cases end to end against the loopback Files and Batches server.

Times `invoke run --batch` as a whole process (start-up, building and uploading the input
file, polling, reading the output file, grading and writing every row), and prints its
peak memory, the input file's size and the rows per second. The batch answers everything
on its first status check, so the figure is the harness's own cost, not a provider's wait.

    .venv/bin/python bench/batch_collect.py [--cases 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from batch_server import BatchServer  # noqa: E402
from throughput import MODEL, REPLY, make_project  # noqa: E402

INVOKE = str(Path(sys.executable).with_name("invoke"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        BatchServer(polls_to_finish=1, responder=lambda body: REPLY, record=False) as srv,
    ):
        root = Path(tmp)
        make_project(root, args.cases, 32)
        with open(root / "pyproject.toml", "a", encoding="utf-8") as fh:
            fh.write("batch_discount = 0.5\n")
        text = (root / "pyproject.toml").read_text("utf-8")
        text = text.replace("[tool.evals]\n", "[tool.evals]\nbatch_poll_s = 0.05\n", 1)
        (root / "pyproject.toml").write_text(text, encoding="utf-8")
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-bench"}
        cmd = [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--batch", "--no-cache"]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if proc.returncode not in (0, 1):
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            return 1
        (path,) = sorted((root / "runs").glob("*.jsonl"))
        recs = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
        n_rows = sum(1 for r in recs if r["kind"] == "case")
        size = sum(f["bytes"] for f in srv.files.values() if f["purpose"] == "batch")
        print(f"cases: {args.cases}; rows written: {n_rows}; batches: {srv.batches_created}")
        print(f"input file: {size / 1e6:.1f} MB; batch run wall time: {wall:.2f} s")
        print(f"{n_rows / wall:,.0f} rows/s end to end; peak memory of the run: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
