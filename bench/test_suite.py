"""Count the tests of the whole suite and of the fast subset, and optionally time them.

    .venv/bin/python bench/test_suite.py           # the counts (collection only, ~30 s)
    .venv/bin/python bench/test_suite.py --time    # also run both and time them (minutes)
    .venv/bin/python bench/test_suite.py --time --fast   # time the fast subset only

Prints one line per command: the tests it selects and, with --time, its wall time and the
CPU time of it and every process it starts (pytest-xdist workers, `invoke`, git, browsers).
docs/tests.md quotes these lines; tests/test_readme_figures.py recomputes the counts.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = str(Path(sys.executable).with_name("pytest"))
#: The two selections docs/tests.md gives figures for: (what to call it, pytest's arguments).
SELECTIONS = (
    ('.venv/bin/pytest -m "not slow"', ["-m", "not slow"]),
    (".venv/bin/pytest", []),
)


def count(args: list[str]) -> int:
    """The tests pytest selects with `args`, by collecting them (no test is run)."""
    proc = subprocess.run(
        [PYTEST, "-n", "0", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 5):
        sys.exit(f"collection failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    # `-q` prints `tests/test_x.py: 12` per file; a deselected file prints no line.
    return sum(int(n) for n in re.findall(r"^tests/\S+\.py: (\d+)$", proc.stdout, re.M))


def timed(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of pytest and its children, and pytest's exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run([PYTEST, "-q", *args], cwd=ROOT, check=False).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", action="store_true", help="run the selections and time them")
    ap.add_argument("--fast", action="store_true", help="with --time: the fast subset only")
    opts = ap.parse_args()
    for name, args in SELECTIONS:
        n = count(args)
        line = f"{name}: {n:,} tests"
        if opts.time and (not opts.fast or args):
            wall, cpu, code = timed(args)
            line += f", {wall:.0f} s wall, {cpu:.0f} s CPU (user + sys), exit {code}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
