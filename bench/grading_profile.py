"""Grading CPU per labelled answer, and where it goes: a profile of `grade()`.

Over the example suite's labelled answers (each case's reference and known_right /
known_wrong drafts, and labelled/*.jsonl) and over the generated 1,000-case suite of
bench/calibrate_speed.py, in this one process:

- the median, mean and 95th percentile of the CPU time of one `grade()` call (after one
  warm-up pass over the same answers, which a long run's memos have made as well, and on
  the first pass, as a single `invoke calibrate --checks` meets them), graded as calibrate
  grades them (in a `GradePool` of one, which freezes the loaded heap out of the
  collector's full scans);
- the functions of the package that take the most CPU inside `grade()` (cProfile,
  cumulative), by module, so the slow checks are named.

    .venv/bin/python bench/grading_profile.py [--cases 1000] [--top 25]

Target (printed, not asserted): median grading CPU per labelled answer of the example suite
at most 1.0 ms.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_speed import add_labelled  # noqa: E402
from mutate_speed import build  # noqa: E402

from evals.calibrate.grading import labelled_answers  # noqa: E402
from evals.checks.grading import grade  # noqa: E402
from evals.run.pool import GradePool  # noqa: E402
from evals.suite.folder import load_suite_checks, open_suite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 1.0


def jobs_of(path: Path) -> tuple[list, object]:
    """(case, reply) of every labelled answer of the suite at `path`, and its settings."""
    suite = open_suite(path)
    load_suite_checks(suite)
    cases, items = labelled_answers(suite, [])
    by_id = {c.id: c for c in cases}
    return [(by_id[i.case], i.reply()) for i in items], suite.settings


def per_answer_ms(jobs: list, settings: object) -> list[float]:
    """CPU milliseconds of each `grade()` call, in order."""
    out = []
    for case, reply in jobs:
        start = time.process_time()
        grade(case, reply, settings)
        out.append((time.process_time() - start) * 1000)
    return out


def figures(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=20)[-1] if len(ms) > 1 else ms[0]
    return (
        f"  {name:<11} median {statistics.median(ms):6.3f} ms  mean {statistics.fmean(ms):6.3f} ms"
        f"  p95 {q:6.3f} ms  total {sum(ms) / 1000:6.2f} s over {len(ms)} answers"
    )


def profile(jobs: list, settings: object, top: int) -> None:
    """The package's functions by cumulative CPU inside `grade()`, and the checks' modules."""
    prof = cProfile.Profile()
    prof.enable()
    for case, reply in jobs:
        grade(case, reply, settings)
    prof.disable()
    stats = pstats.Stats(prof)
    rows = []
    by_module: dict[str, float] = {}
    for (file, line, func), (_, _, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "/evals/" not in file:
            continue
        rel = file.split("/evals/", 1)[1]
        rows.append((cumtime, tottime, f"evals/{rel}:{line}({func})"))
        by_module[rel] = by_module.get(rel, 0.0) + tottime
    total = sum(by_module.values()) or 1.0
    print("  own CPU by module of the package (share of the package's own time):")
    for rel, t in sorted(by_module.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    {t:6.2f} s  {t / total:5.1%}  evals/{rel}")
    print(f"  top {top} functions by cumulative CPU (profiled, so slower than the figures):")
    for cum, own, where in sorted(rows, reverse=True)[:top]:
        print(f"    {cum:6.2f} s cum  {own:6.2f} s own  {where}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / "suite"
        build(generated, args.cases)
        add_labelled(generated)
        for name, path in (
            ("example suite", ROOT / "evals"),
            (f"{args.cases} generated", generated),
        ):
            jobs, settings = jobs_of(path)
            # Graded as `invoke calibrate --checks` grades them: in a pool (here of one, this
            # process), which keeps what is loaded out of the collector's full scans.
            with GradePool(1, settings):
                first = per_answer_ms(jobs, settings)
                warm = per_answer_ms(jobs, settings)
            print(f"{name}: grading CPU per labelled answer")
            print(figures("first pass", first))
            print(figures("warm", warm))
            if path == ROOT / "evals":
                med = statistics.median(first)
                print(f"  target: median <= {TARGET_MS} ms (first pass: {med:.3f} ms)")
            profile(jobs, settings, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
