"""The family-wise false-alarm rate and the power of `invoke compare`, by seeded simulation.

Prints, for 2, 4 and 8 candidates that are the same system as the baseline, how often any of
them is called worse (the family-wise rate, to be at most alpha), and for four candidates of
which one is truly worse, how often that one is called worse (the power). Seeded: every run
prints the same figures. tests/test_multi_simulate.py asserts the same bounds.

    .venv/bin/python bench/compare_family.py            # 1,000 repetitions each
    .venv/bin/python bench/compare_family.py --reps 200 # quicker
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.multi.simulate import SCENARIOS, simulate_family  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    reps = parser.parse_args().reps
    for scenario in SCENARIOS:
        for m in (2, 4, 8):
            r = simulate_family(m, scenario, reps=reps)
            print(
                f"{scenario:11}  {m} unchanged candidates: any called worse in "
                f"{100 * r.family_false_alarm:.1f}% of {reps} reps (alpha {100 * r.alpha:g}%, "
                f"MC SE {100 * r.mc_se:.1f} points)"
            )
    for drop in (0.5, 1.0):
        r = simulate_family(4, "independent", reps=reps, drop=drop)
        print(
            f"independent  1 of 4 candidates worse by {drop:g} on the logit scale: called worse "
            f"in {100 * (r.power or 0):.1f}% of {reps} reps; an unchanged one in "
            f"{100 * r.family_false_alarm:.1f}%"
        )


if __name__ == "__main__":
    main()
