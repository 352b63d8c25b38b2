"""Time `invoke calibrate --checks` on the example suite and on a generated 1,000-case suite.

    .venv/bin/python bench/calibrate_speed.py [--cases 1000] [--pairs 5]

On the example suite it prints, with their targets:

- the CPU time of `invoke calibrate --checks` beyond what `invoke validate` takes (which
  loads the same cases), per labelled answer: medians of `--pairs` runs of each, with one
  worker (the grading itself) and with the default of one worker per core (workers' CPU
  included); target at most 1.0 ms;
- the wall time with `--workers 2` over the wall time with `--workers 1`, the median of
  `--pairs` alternating pairs; target at most 0.6 with two free cores. The load average is
  printed beside it: on a machine where other processes hold the cores the ratio says how
  much of two cores the pool got, not what it can do. The two reports must be the same
  (the script stops if they are not): N workers grade as one does.

The generated suite has the case shapes of bench/mutate_speed.py, each with two known_right
drafts beside its known_wrong ones, and a labelled/generated.jsonl with one correct and one
wrong answer per case, so every kind of labelled answer is graded.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
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


def timed(
    suite: Path, cwd: Path, command: tuple[str, ...] = ("calibrate", "--checks", "--format", "json")
) -> tuple[float, float, dict[str, Any] | None, int]:
    """Wall seconds, CPU seconds (its worker processes' included), the JSON report (None
    for a command that prints none) and the exit code of one command on the suite."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [INVOKE, "-r", str(ROOT), *command[:1], "--suite", str(suite), *command[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time too: on a busy machine the wall clock also counts other processes' turns
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(command)} failed with exit {proc.returncode}:\n{proc.stderr}")
    report = json.loads(proc.stdout) if "json" in command else None
    return wall, cpu, report, proc.returncode


def line(name: str, wall: float, cpu: float, report: dict[str, Any] | None, code: int) -> str:
    assert report is not None
    sens, spec = report["sensitivity"], report["specificity"]
    return (
        f"calibrate --checks, {name}: {report['answers']} labelled answers in {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU (exit {code}; sensitivity {sens['caught']}/{sens['n']}, "
        f"specificity {spec['passed']}/{spec['n']})"
    )


def example_figures(pairs: int) -> None:
    """The example suite's figures against the targets: CPU beyond validate per answer, and
    the wall ratio of two workers to one."""
    suite, calib = ROOT / "evals", ("calibrate", "--checks", "--format", "json")
    timed(suite, ROOT, calib)  # a first run, not counted: files read into the page cache
    validate, one, default, ratios = [], [], [], []
    answers = 0
    for _ in range(pairs):
        validate.append(timed(suite, ROOT, ("validate",))[1])
        w1, c1, report, _ = timed(suite, ROOT, (*calib, "--workers", "1"))
        w2, _, report2, _ = timed(suite, ROOT, (*calib, "--workers", "2"))
        if report2 != report:
            sys.exit("calibrate --checks printed another report with --workers 2 than with 1")
        default.append(timed(suite, ROOT, calib)[1])
        one.append(c1)
        ratios.append(w2 / w1)
        answers = report["answers"] if report else 0
    base = statistics.median(validate)
    for name, cpus in (("--workers 1", one), (f"default ({os.cpu_count()} workers)", default)):
        beyond = (statistics.median(cpus) - base) / answers * 1000
        print(
            f"calibrate --checks {name}: CPU beyond invoke validate {beyond:.2f} ms per labelled "
            f"answer (median {statistics.median(cpus):.2f} s CPU, validate {base:.2f} s, "
            f"{answers} answers, {pairs} runs); target <= 1.0 ms"
        )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"calibrate --checks wall, --workers 2 / --workers 1: {statistics.median(ratios):.2f} "
        f"(median of {pairs} alternating pairs: {', '.join(f'{r:.2f}' for r in ratios)}; "
        f"{os.cpu_count()} cores, load average {load}); target <= 0.6 with two free cores"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=5)
    args = ap.parse_args()
    print(line("example suite", *timed(ROOT / "evals", ROOT)))
    example_figures(args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        build(suite, args.cases)
        add_labelled(suite)
        print(line(f"{args.cases} generated cases", *timed(suite, Path(tmp))))


if __name__ == "__main__":
    main()
