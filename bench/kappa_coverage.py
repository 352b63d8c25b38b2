"""Coverage of the kappa interval by seeded simulation, over the grid its docs quote.

For each n (20, 40, 60, 200), label prevalence (both raters 50/50 and 85/15) and true kappa
(0.4, 0.6, 0.8) it draws tables from the multinomial, keeps the estimable ones (kappa
defined), and prints how often the 95 % interval holds the true kappa, how often it misses
below and above, and how often the lower end of the 90 % interval (the bound the kappa floor
passes on, one-sided 95 %) lies over it. Also the time one interval takes at n = 200.

    .venv/bin/python bench/kappa_coverage.py [--reps 20000] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals.calibrate.stats import cohen_kappa, kappa_interval  # noqa: E402

Cell = tuple[str, str]


def truth(prevalence: float, kappa: float) -> dict[Cell, float]:
    """Both raters label pass at the prevalence and agree with the given kappa."""
    q = prevalence * (1 - prevalence)
    return {
        ("pass", "pass"): prevalence**2 + kappa * q,
        ("pass", "fail"): q * (1 - kappa),
        ("fail", "pass"): q * (1 - kappa),
        ("fail", "fail"): (1 - prevalence) ** 2 + kappa * q,
    }


def measure(p: dict[Cell, float], kappa: float, n: int, reps: int, seed: int) -> list[float]:
    """[coverage 95 %, miss below, miss above, 90 % lower end over kappa, share estimable]."""
    rng = random.Random(seed)
    cells, weights = list(p), list(p.values())
    hit = under = over = over90 = done = 0
    for _ in range(reps):
        pairs = rng.choices(cells, weights, k=n)
        ci = kappa_interval(pairs)
        if ci is None:
            continue
        done += 1
        hit += ci[0] <= kappa <= ci[1]
        under += ci[1] < kappa
        over += ci[0] > kappa
        lo90, _ = kappa_interval(pairs, alpha=0.10)  # type: ignore[misc]
        over90 += lo90 > kappa
    return [hit / done, under / done, over / done, over90 / done, done / reps]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print(f"{args.reps} reps per setting, seed {args.seed}; figures over estimable samples")
    print("    n  labels  kappa  covers  below  above  lower-90-over  estimable")
    worst = 1.0
    for n in (20, 40, 60, 200):
        for prevalence in (0.5, 0.85):
            for kappa in (0.4, 0.6, 0.8):
                p = truth(prevalence, kappa)
                cover, below, above, over90, est = measure(p, kappa, n, args.reps, args.seed)
                worst = min(worst, cover)
                labels = f"{prevalence:.0%}".rjust(6)
                print(
                    f"  {n:3d}  {labels}  {kappa:5.1f}  {cover:6.1%}  {below:5.1%}  "
                    f"{above:5.1%}  {over90:13.1%}  {est:9.1%}"
                )
    print(f"lowest coverage: {worst:.1%}")
    pairs = random.Random(1).choices(list(truth(0.85, 0.6)), list(truth(0.85, 0.6).values()), k=200)
    assert cohen_kappa(pairs) is not None
    start = time.perf_counter()
    for _ in range(1000):
        kappa_interval(pairs)
    per = (time.perf_counter() - start) / 1000
    print(f"one interval at n = 200: {per * 1000:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
