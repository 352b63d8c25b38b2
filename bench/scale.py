"""Peak memory and time of the commands that read a whole suite or run, at two suite sizes.

On the generated suite of bench/throughput.py (one pricing case per file), at --small and
--large cases (default 1,000 and 100,000), each a whole `invoke` process on the offline
model:

- `invoke validate`;
- `invoke run` (two runs, A and B; B on a prompt one line longer, so the diff pairs two
  different prompts);
- `invoke run --shard 1/2` and `--shard 2/2`, then `invoke merge` of the two shard files;
- `invoke diff --a A --b B`;
- `invoke report A --html page.html` (and the page's size).

Each line prints wall seconds, CPU seconds and peak resident memory (the child's rusage);
the last lines print, per command, the ratio of peak memory at --large to that at --small
(target: at most 1.5x) and the size of the HTML page at --large (target: at most 50 MB).

    .venv/bin/python bench/scale.py [--small 1000] [--large 100000] [--keep DIR]

Last measured (`bench/scale.py --small 1000 --large 100000`, the 2-CPU build machine, shared
with other work; docs/performance.md, "Large suites", has the table): peak memory at 100,000
cases against 1,000: validate 1.39x (55.9 MB), run 1.38x (75.3 MB), run --shard 1.26x,
merge 1.36x, diff 1.40x (53.5 MB; 5.09x, 199 MB, before it streamed both runs), report --html
1.40x (101.9 MB, a 6.0 MB page), all within the target.

Generating and running 100,000 cases takes a few minutes per command on a quiet machine.
The script exits 0 once it has printed the figures; a command that exits with an
unexpected code is reported with its stderr.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import EXIT_MEANING, make_project  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
INVOKE = str(Path(PY).with_name("invoke"))


@dataclass(frozen=True)
class Timing:
    """One child process: wall and CPU seconds, peak resident memory in MB, exit code."""

    wall: float
    cpu: float
    peak_mb: float
    code: int


def timed(cmd: list[str], cwd: Path, expect: tuple[int, ...]) -> Timing:
    """Run `cmd` to the end; say so on stderr when its exit code is not one of `expect`."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "OPENAI_API_KEY")}
    start = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert p.stderr is not None
    err = p.stderr.read().decode(errors="replace")  # drained first: a full pipe would block it
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in expect:
        meaning = EXIT_MEANING.get(code, "unexpected")
        print(
            f"  ! {' '.join(cmd[3:6])}... exited {code} ({meaning}): {err[-1500:]}", file=sys.stderr
        )
    return Timing(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)


def newest(runs: Path, before: set[Path]) -> Path:
    """The one run file that appeared in `runs` since `before` was listed."""
    (new,) = set(runs.glob("*.jsonl")) - before
    return new


def measure(n: int, tmp: Path) -> tuple[dict[str, Timing], int]:
    """Every command's timing on an n-case generated suite, and the HTML page's bytes."""
    root = tmp / f"n{n}"
    root.mkdir()
    make_project(root, n, 8)
    inv = [INVOKE, "--search-root", str(ROOT)]
    runs = root / "runs"
    runs.mkdir()
    out: dict[str, Timing] = {}
    out["validate"] = timed([*inv, "validate"], root, (0,))
    seen = set(runs.glob("*.jsonl"))
    out["run"] = timed([*inv, "run", "--no-cache", "--label", "a"], root, (0, 1, 3))
    run_a = newest(runs, seen)
    prompt = root / "suite" / "prompt.txt"
    prompt.write_text(prompt.read_text("utf-8") + "Be brief.\n", "utf-8")
    seen = set(runs.glob("*.jsonl"))
    timed([*inv, "run", "--no-cache", "--label", "b"], root, (0, 1, 3))
    run_b = newest(runs, seen)
    shards = []
    for i in (1, 2):
        seen = set(runs.glob("*.jsonl"))
        out[f"run --shard {i}/2"] = timed(
            [*inv, "run", "--no-cache", "--shard", f"{i}/2", "--label", f"shard-{i}"],
            root,
            (0, 1, 3),
        )
        shards.append(str(newest(runs, seen)))
    out["merge"] = timed(
        [*inv, "merge", ",".join(shards), "--out", str(tmp / f"m{n}.jsonl")], root, (0,)
    )
    out["diff"] = timed([*inv, "diff", "--a", str(run_a), "--b", str(run_b)], root, (0, 1, 3))
    page = tmp / f"report{n}.html"
    out["report --html"] = timed([*inv, "report", str(run_a), "--html", str(page)], root, (0, 1, 3))
    size = page.stat().st_size if page.is_file() else 0
    return out, size


def browser_seconds(page: Path) -> str:
    """Seconds to open the page in headless Chromium and filter it to failures, or why not."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "not measured (playwright is not installed)"
    chromium = os.environ.get("EVALS_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        except Exception as exc:  # no browser here: say so, the other figures stand
            return f"not measured ({str(exc).splitlines()[0][:80]})"
        tab = browser.new_page()
        start = time.perf_counter()
        tab.goto(page.as_uri())
        tab.wait_for_selector("#cases tbody tr")
        opened = time.perf_counter() - start
        start = time.perf_counter()
        tab.select_option("#f-status", "pass")
        tab.inner_text("#shown-count")
        filtered = time.perf_counter() - start
        browser.close()
    return f"opened in {opened:.2f} s, filtered in {filtered:.2f} s (target: under 3 s together)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=100_000)
    ap.add_argument("--keep", type=Path, help="generate in this folder and keep it")
    args = ap.parse_args()
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="evals-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        figures = {}
        for n in (args.small, args.large):
            t, size = measure(n, tmp)
            figures[n] = (t, size)
            print(f"{n:,} generated cases (offline model), whole processes")
            for name, x in t.items():
                print(
                    f"  {name:<18} {x.wall:7.2f} s  cpu {x.cpu:7.2f} s  peak {x.peak_mb:6.1f} MB"
                    f"   exit {x.code}"
                )
            print(f"  HTML page          {size / 1e6:7.2f} MB")
            shard = t["run --shard 1/2"]
            print(
                f"  a shard (offline model): {n / 2 / shard.cpu:,.0f} cases per CPU second, "
                f"{n / 2 / shard.wall:,.0f} cases per wall second"
            )
            sys.stdout.flush()
        small, large = figures[args.small][0], figures[args.large][0]
        print(f"peak memory at {args.large:,} cases / at {args.small:,} (target <= 1.5x)")
        for name in small:
            ratio = large[name].peak_mb / small[name].peak_mb
            print(f"  {name:<18} {ratio:5.2f}x")
        size = figures[args.large][1]
        print(f"HTML page at {args.large:,} cases: {size / 1e6:.1f} MB (target <= 50 MB)")
        print(f"  in Chromium: {browser_seconds(tmp / f'report{args.large}.html')}")
        print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs when done)")
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
