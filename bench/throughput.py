"""Throughput: the harness vs a bare `openai` async client against the loopback server.

Both are timed as whole processes, start-up included, sending the same N requests at
the same concurrency C to tests/openai_server.py with a fixed reply latency. Prints
both times, the ideal N*latency/C, the ratios, a fully cached re-run, and each
process's peak memory (from the kernel's rusage for that child).

    .venv/bin/python bench/throughput.py [--cases 1000] [--latency-ms 100] [--concurrency 32]

Each harness line ends with `invoke run`'s exit code: 0 every case passed (the scripted
reply is a correct answer), 1 a case failed its checks, 3 a case errored (a timing that
includes errors is not comparable). Any code but 0 is printed with its meaning and stderr.
The script itself exits 0 once it has printed the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
INVOKE = str(Path(PY).with_name("invoke"))
MODEL = "bench/echo-model@2024-01-01"
REPLY = "The Pro plan costs 45 EUR per seat and month [doc:pricing#plans]."

#: `invoke run`'s exit codes (README, "Exit codes").
EXIT_MEANING = {
    0: "every case passed",
    1: "a case failed its checks",
    2: "bad input or usage",
    3: "a case errored or the run stopped early",
    130: "interrupted",
}

BARE = r"""
import asyncio, json, sys
from openai import AsyncOpenAI

async def main():
    reqs = json.load(open(sys.argv[1]))
    conc = int(sys.argv[2])
    client = AsyncOpenAI(max_retries=4, timeout=60)
    sem = asyncio.Semaphore(conc)
    async def one(body):
        async with sem:
            r = await client.chat.completions.create(**body)
            return r.choices[0].message.content
    out = await asyncio.gather(*(one(b) for b in reqs))
    await client.close()
    print(len(out))

asyncio.run(main())
"""


def make_case(i: int) -> dict:
    return {
        "id": f"bench-{i:05d}",
        "category": "pricing",
        "question": f"Customer {i}: what does one more Pro seat cost per month?",
        "context": {"plan": "pro", "seats": i % 50 + 1},
        "retrieved": [
            {
                "ref": "pricing#plans",
                "text": "Starter: 39 EUR per seat and month. Pro: 45 EUR per seat and month.",
            },
            {"ref": "billing#invoices", "text": "Invoices are issued on the first of the month."},
        ],
        "expect": {"mentions": [r"\b45 EUR"], "sources": ["pricing#plans"]},
    }


def make_project(tmp: Path, n: int, conc: int) -> None:
    (tmp / "pyproject.toml").write_text(
        "[tool.evals]\n"
        'suite = "suite"\nruns_dir = "runs"\ncache = ".evals-cache/cache.sqlite"\n'
        f"concurrency = {conc}\ntimeout_s = 60\nmax_retries = 4\n"
        f'[tool.evals.prices."{MODEL}"]\ninput = 0.15\noutput = 0.60\n',
        encoding="utf-8",
    )
    cases = tmp / "suite" / "cases"
    cases.mkdir(parents=True)
    (tmp / "suite" / "prompt.txt").write_text(
        "You are the support assistant. Answer only from the passages and cite each as [doc:REF].\n",
        encoding="utf-8",
    )
    for i in range(n):
        c = make_case(i)
        (cases / f"{c['id']}.json").write_text(json.dumps(c, indent=2) + "\n", encoding="utf-8")


def requests_file(tmp: Path) -> Path:
    """The exact request bodies the harness sends, for the bare client to send too."""
    sys.path.insert(0, str(ROOT))
    from evals.providers.modelid import endpoint_name
    from evals.providers.openai_compat import build_messages
    from evals.suite.case import Case

    prompt = (tmp / "suite" / "prompt.txt").read_text("utf-8")
    bodies = []
    for f in sorted((tmp / "suite" / "cases").glob("*.json")):
        case = Case(json.loads(f.read_text("utf-8")))
        bodies.append(
            {
                "model": endpoint_name(MODEL),
                "messages": build_messages(prompt, case),
                "temperature": 0.0,
            }
        )
    out = tmp / "requests.json"
    out.write_text(json.dumps(bodies), encoding="utf-8")
    return out


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float, int]:
    """Wall seconds, peak RSS in MB, CPU seconds and exit code of one child process."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode() if p.stderr else ""
    p.stderr and p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        meaning = EXIT_MEANING.get(code, "unexpected")
        print(
            f"  ! {' '.join(cmd[:3])}... exited {code} ({meaning}): {err[-2000:]}", file=sys.stderr
        )
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, code


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--latency-ms", type=float, default=100.0)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=1, help="repeat each timing, keep the best")
    args = ap.parse_args()
    n, lat, conc = args.cases, args.latency_ms, args.concurrency
    tmp = Path(tempfile.mkdtemp(prefix="evals-bench-"))
    server = None
    try:
        make_project(tmp, n, conc)
        reqs = requests_file(tmp)
        (tmp / "bare.py").write_text(BARE, encoding="utf-8")
        server = subprocess.Popen(
            [PY, str(ROOT / "tests" / "openai_server.py"), "--port", "0"]
            + ["--latency-ms", str(lat), "--content", REPLY, "--max-seconds", "1800"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1]
        env = {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-bench-not-a-secret"}
        env.pop("FORCE_COLOR", None)
        harness = [INVOKE, "--search-root", str(ROOT), "run", "--model", MODEL]
        harness += ["--concurrency", str(conc)]

        bare_cmd = [PY, str(tmp / "bare.py"), str(reqs), str(conc)]
        runs: dict[str, list[tuple[float, float, float, int]]] = {}
        # Interleaved and repeated, keeping each one's best: other load on the machine
        # then hits both sides alike instead of whichever happened to run second.
        for _ in range(args.repeat):
            runs.setdefault("bare", []).append(timed(bare_cmd, tmp, env))
            shutil.rmtree(tmp / ".evals-cache", ignore_errors=True)
            runs.setdefault("cold", []).append(timed(harness, tmp, env))
            runs.setdefault("nocache", []).append(timed([*harness, "--no-cache"], tmp, env))
            runs.setdefault("cached", []).append(timed(harness, tmp, env))
        bare, cold, nocache, cached = (min(runs[k]) for k in ("bare", "cold", "nocache", "cached"))
        ideal = n * lat / 1000 / conc
        print(f"cases {n}, reply latency {lat:g} ms, concurrency {conc}; whole processes")
        print(f"  ideal N*latency/C            {ideal:7.2f} s")
        print(
            f"  bare openai async client     {bare[0]:7.2f} s   cpu {bare[2]:5.2f} s   peak {bare[1]:6.1f} MB"
        )
        for name, r in (("harness (cache cold)", cold), ("harness --no-cache", nocache)):
            print(
                f"  {name:<28} {r[0]:7.2f} s   cpu {r[2]:5.2f} s   peak {r[1]:6.1f} MB   "
                f"{r[0] / bare[0]:.2f}x bare, {r[0] / ideal:.2f}x ideal, cpu {r[2] / bare[2]:.2f}x bare"
                f"   exit {r[3]}"
            )
        print(
            f"  harness fully cached re-run  {cached[0]:7.2f} s   cpu {cached[2]:5.2f} s   "
            f"peak {cached[1]:6.1f} MB   exit {cached[3]}"
        )
        codes = sorted({r[3] for r in (cold, nocache, cached)})
        print(
            "  exit codes: " + "; ".join(f"{c} {EXIT_MEANING.get(c, 'unexpected')}" for c in codes)
        )
        load = os.getloadavg()[0]
        print(f"  (load average {load:.1f} on {os.cpu_count()} CPUs when done)")
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
