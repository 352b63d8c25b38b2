"""Time `invoke calibrate --checks` on the example suite and on a generated 1,000-case suite.

    .venv/bin/python bench/calibrate_speed.py [--cases 1000]

The generated suite has the case shapes of bench/mutate_speed.py, each with two known_right
drafts beside its known_wrong ones, and a labelled/generated.jsonl with one correct and one
wrong answer per case, so every kind of labelled answer is graded. Target: < 2 s wall for the
example suite.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mutate_speed import build  # the script's own folder is on sys.path

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))


def add_labelled(suite: Path) -> None:
    """known_right drafts in every case file, and a labelled/ file of real-looking answers."""
    lines: list[dict[str, Any]] = []
    for path in sorted((suite / "cases").glob("*.json")):
        case = json.loads(path.read_text("utf-8"))
        ref = case["reference"]
        sentences = [s for s in ref.replace("]. ", "].\n").split("\n") if s]
        case["known_right"] = [
            {"draft": " ".join(reversed(sentences)), "why": "the same sentences, other order"},
            {"draft": ref.replace("  ", " ").strip().lower(), "why": "all lower case"},
        ]
        path.write_text(json.dumps(case, ensure_ascii=False, indent=2) + "\n", "utf-8")
        lines.append(
            {"case": case["id"], "answer": ref, "label": "pass", "why": "the reference, as sent"}
        )
        if case.get("known_wrong"):
            wrong = case["known_wrong"][0]["draft"]
        elif case["expect"].get("abstain"):
            wrong = "Yes, it is legally valid and you must pay [doc:billing#increase]."
        else:
            wrong = "I don't know."
        lines.append({"case": case["id"], "answer": wrong + " ", "label": "fail", "why": "wrong"})
    (suite / "labelled").mkdir()
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines)
    (suite / "labelled" / "generated.jsonl").write_text(text, "utf-8")


def timed(suite: Path, cwd: Path) -> tuple[float, float, dict[str, Any], int]:
    """Wall seconds, CPU seconds, the JSON report and the exit code of one calibration."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [
            INVOKE,
            "-r",
            str(ROOT),
            "calibrate",
            "--checks",
            "--suite",
            str(suite),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time too: on a busy machine the wall clock also counts other processes' turns
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"calibrate failed with exit {proc.returncode}:\n{proc.stderr}")
    return wall, cpu, json.loads(proc.stdout), proc.returncode


def line(name: str, wall: float, cpu: float, report: dict[str, Any], code: int) -> str:
    sens, spec = report["sensitivity"], report["specificity"]
    return (
        f"calibrate --checks, {name}: {report['answers']} labelled answers in {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU (exit {code}; sensitivity {sens['caught']}/{sens['n']}, "
        f"specificity {spec['passed']}/{spec['n']})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    args = ap.parse_args()
    print(line("example suite", *timed(ROOT / "evals", ROOT)) + "; target < 2 s wall")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        build(suite, args.cases)
        add_labelled(suite)
        print(line(f"{args.cases} generated cases", *timed(suite, Path(tmp))))


if __name__ == "__main__":
    main()
