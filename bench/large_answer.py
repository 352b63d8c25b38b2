"""How long `invoke show` and `invoke label` take on a run holding one very long answer.

Makes a project with one case, runs it on a short replayed answer, then makes that row's
answer N megabytes of support prose full of figures and citations (as a runaway model
writes), and times, each as a whole process: `invoke show CASE`, and `invoke label` from
its start to the page served over loopback. Each is printed as wall time and as CPU time
(user + system of the process): on a shared, loaded machine the CPU time is the figure that
does not depend on what else runs.

    .venv/bin/python bench/large_answer.py [--mb 10]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import resource
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from casekit import good_case, make_project  # noqa: E402

INVOKE = str(Path(sys.executable).with_name("invoke"))
MODEL = "acme/support-bot@2026-10-01"
SENTENCE = (
    "An extra Pro seat costs 45 € per seat and month from 1 March 2026 [doc:pricing#plans]; "
    "the night surcharge applies from 22:00 and adds 25 % for up to 8 h. The trial lasts "
    "fourteen days, and twenty-five seats cost one thousand one hundred and twenty-five euros. "
)


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def label_start(root: Path, env: dict[str, str]) -> float:
    """Seconds from starting `invoke label` to its page fetched whole."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [INVOKE, "-r", str(ROOT), "label", "--no-browser", "--port", "0"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=600)
            if line.startswith("label page: "):
                url = line.split()[2]
                break
        with urllib.request.urlopen(url, timeout=600) as r:
            r.read()
        return time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, [good_case()])
        answers = root / "answers.jsonl"
        answers.write_text(json.dumps({"case": "price-pro", "answer": "Pro."}) + "\n", "utf-8")
        env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
        cmd = [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--answers", str(answers)]
        subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
        (path,) = (root / "runs").glob("*.jsonl")
        recs = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
        big = SENTENCE * int(args.mb * 1e6 / len(SENTENCE.encode()))
        for r in recs:
            if r.get("kind") == "case":
                r["draft"] = big
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "utf-8")
        cpu0 = children_cpu()
        start = time.perf_counter()
        show = subprocess.run(
            [INVOKE, "-r", str(ROOT), "show", "price-pro"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        show_s = time.perf_counter() - start
        show_cpu = children_cpu() - cpu0
        if show.returncode not in (0, 1):
            print(show.stderr[-2000:], file=sys.stderr)
            return 1
        cpu0 = children_cpu()
        page_s = label_start(root, env)  # the server is stopped when the page is read
        page_cpu = children_cpu() - cpu0
    mb = len(big.encode()) / 1e6
    print(f"answer: {mb:.1f} MB")
    print(f"invoke show: {show_s:.2f} s (cpu {show_cpu:.2f} s)")
    print(f"invoke label, start to page served: {page_s:.2f} s (cpu {page_cpu:.2f} s)")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs when done)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
