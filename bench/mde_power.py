"""Power of the gate at the smallest drop it prints, by seeded simulation.

For each suite shape it draws an unchanged pair of runs, takes the smallest drop in pass
rate the gate prints as detected with 80% power, then draws a fresh pair whose B is worse
by exactly that drop (in expectation: B fails each case it would have passed with one extra
chance) and counts how often `decide` FAILs it. Also the share of unchanged pairs that
print no detectable drop at all. The pair generator is the one tests/test_power.py uses.

    .venv/bin/python bench/mde_power.py [--reps 2000] [--seed 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_power import pair_with_drop  # noqa: E402

from evals.compare.gate import decide  # noqa: E402

SHAPES = {
    "independent-200": "200 independent cases",
    "independent-40": "40 independent cases",
    "unbalanced": "clusters of 60, 10, 5, 3, 1 and 1 cases",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    print(f"{args.reps} unchanged pairs per shape, seed {args.seed}")
    for shape, label in SHAPES.items():
        rng = random.Random(args.seed)
        fails = printed = 0
        drops: list[float] = []
        for _ in range(args.reps):
            mde = decide(pair_with_drop(rng, shape, 0.0)).main.figures[0].mde
            if mde is None:
                continue
            printed += 1
            drops.append(mde)
            fails += decide(pair_with_drop(rng, shape, mde), compute_mde=False).verdict == "FAIL"
        power = fails / printed if printed else float("nan")
        mean_drop = 100 * sum(drops) / len(drops) if drops else float("nan")
        print(
            f"  {label}: power at the printed drop {power:.1%} (printed on {printed / args.reps:.0%}"
            f" of pairs, mean {mean_drop:.1f} points)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
