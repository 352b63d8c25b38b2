"""False alarms and power of the release gate, measured on seeded simulated run pairs.

Prints, for each simulated suite shape with nothing changed, how often each mode of the
gate FAILs (and says INCONCLUSIVE), then, for clusters of 60, 10, 5, 3, 1 and 1 cases, the
false-alarm rate and power of three cluster-robust tests of the pass-rate change side by
side: CR1 with G - 1 df (the old method), CR2 with Bell-McCaffrey df (the gate's), and the
t test on the cluster means. Seeded, so every run prints the same figures.

    .venv/bin/python bench/gate_false_alarms.py            # 1,000 repetitions each
    .venv/bin/python bench/gate_false_alarms.py --reps 200 # quicker
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.compare.clustered import cluster_design, cr2_se  # noqa: E402
from evals.compare.simulate import (  # noqa: E402
    SCENARIOS,
    UNBALANCED_SIZES,
    simulate_false_alarm,
)
from evals.maths.distributions import t_cdf  # noqa: E402

Test = Callable[[Sequence[float], Sequence[str]], float]


def cr1_p(d: Sequence[float], keys: Sequence[str]) -> float:
    """One-sided p of the CR1 test: Liang-Zeger with G/(G - 1), t with G - 1 df."""
    n, m = len(d), math.fsum(d) / len(d)
    sums: dict[str, float] = {}
    for x, g in zip(d, keys, strict=True):
        sums[g] = sums.get(g, 0.0) + x - m
    big_g = len(sums)
    se = math.sqrt(big_g / (big_g - 1) * math.fsum(s * s for s in sums.values())) / n
    return t_cdf(m / se, big_g - 1) if se > 0 else 1.0


def cr2_p(d: Sequence[float], keys: Sequence[str]) -> float:
    """One-sided p of the gate's test: CR2 with Bell-McCaffrey df."""
    design = cluster_design(keys)
    se = cr2_se(d, design)
    return t_cdf(math.fsum(d) / len(d) / se, design.dof) if se > 0 else 1.0


def means_p(d: Sequence[float], keys: Sequence[str]) -> float:
    """One-sided p of the t test on the cluster means (each cluster weighs the same)."""
    groups: dict[str, list[float]] = {}
    for x, g in zip(d, keys, strict=True):
        groups.setdefault(g, []).append(x)
    means = [math.fsum(v) / len(v) for v in groups.values()]
    k, m = len(means), math.fsum(means) / len(means)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in means) / (k - 1))
    return t_cdf(m / (sd / math.sqrt(k)), k - 1) if sd > 0 else 1.0


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def compare_tests(
    reps: int, seed: int, alpha: float, drop: float
) -> dict[str, tuple[float, float]]:
    """(false alarm, power) of each test on the unbalanced shape; `drop` is on the logit scale."""
    tests: dict[str, Test] = {"CR1, G-1 df": cr1_p, "CR2, BM df": cr2_p, "cluster means": means_p}
    out = {}
    for name, test in tests.items():
        rng = random.Random(seed)
        hits = [0, 0]
        for _ in range(reps):
            for k, shift in enumerate((0.0, drop)):
                d, keys = [], []
                for g, size in enumerate(UNBALANCED_SIZES):
                    level = rng.gauss(0.0, 1.0)
                    sa, sb = rng.gauss(0.0, 1.0), rng.gauss(0.0, 1.0)
                    for _ in range(size):
                        mu = level + rng.gauss(0.7, 1.0)
                        a = float(rng.random() < _logistic(mu + sa))
                        b = float(rng.random() < _logistic(mu + sb - shift))
                        d.append(b - a)
                        keys.append(f"g{g}")
                hits[k] += test(d, keys) <= alpha
        out[name] = (hits[0] / reps, hits[1] / reps)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    print(f"no change, {args.reps} seeded repetitions (seed {args.seed}); FAIL / INCONCLUSIVE")
    for alpha in (0.05, 0.01):
        for scenario in SCENARIOS:
            for mode in ("significant", "noninferior"):
                t0 = time.perf_counter()
                r = simulate_false_alarm(mode, scenario, args.reps, seed=args.seed, alpha=alpha)
                print(
                    f"  alpha {alpha:<5g} {scenario:<12} {mode:<12} FAIL {r.false_alarm:6.1%}"
                    f" (+-{r.mc_se:.1%})  INCONCLUSIVE {r.inconclusive:6.1%}"
                    f"  [{time.perf_counter() - t0:.1f} s]"
                )
    print("\nsmall independent suites (no change), --fail-on significant, FAIL / INCONCLUSIVE:")
    for n in (5, 20, 50):
        for alpha in (0.05, 0.01):
            r = simulate_false_alarm(
                "significant", "independent", args.reps, seed=args.seed, alpha=alpha, n_cases=n
            )
            print(f"  n = {n:<3} alpha {alpha:<5g} FAIL {r.false_alarm:6.1%}  "
                  f"INCONCLUSIVE {r.inconclusive:6.1%}")  # fmt: skip
    print("\n5% of tries erroring at random in each run (no change), --fail-on significant;")
    print("re-sends 0 is a run file written without them, 2 is invoke run's default:")
    for scenario, epochs in (("independent", 1), ("clustered", 1), ("unbalanced", 1),
                             ("independent", 3)):  # fmt: skip
        for retries in (0, 2):
            r = simulate_false_alarm(
                "significant", scenario, args.reps, seed=args.seed, epochs=epochs,
                errors=0.05, retries=retries,
            )  # fmt: skip
            print(
                f"  {scenario:<12} {epochs} epoch(s) re-sends {retries}  FAIL "
                f"{r.false_alarm:6.1%}  INCONCLUSIVE {r.inconclusive:6.1%}"
            )
    print("\n5% of attempts in review in each run (undecided, read both ways; no change):")
    r = simulate_false_alarm("significant", "independent", args.reps, seed=args.seed, review=0.05)
    print(f"  independent  FAIL {r.false_alarm:6.1%}  INCONCLUSIVE {r.inconclusive:6.1%}")
    print("\na B whose change makes 6% of the cases (passing in A) error on every try:")
    for errors, retries in ((0.0, 0), (0.05, 2), (0.05, 0)):
        r = simulate_false_alarm(
            "significant", "independent", args.reps, seed=args.seed, b_error_share=0.06,
            errors=errors, retries=retries,
        )  # fmt: skip
        print(
            f"  other errors {errors:.0%}, re-sends {retries}: PASS {r.passed:6.1%}  "
            f"INCONCLUSIVE {r.inconclusive:6.1%}  FAIL {r.false_alarm:6.1%}"
        )
    print("\nclusters 60/10/5/3/1/1, pass rate alone at alpha 0.05 (false alarm, power at a")
    print("logit drop of 1.5 for every case):")
    for name, (fa, pw) in compare_tests(args.reps, args.seed, 0.05, 1.5).items():
        print(f"  {name:<14} false alarm {fa:6.1%}  power {pw:6.1%}")
    print("\nthe whole gate (--fail-on significant, alpha 0.05) on a real drop:")
    for scenario in ("independent", "clustered", "unbalanced"):
        p = simulate_false_alarm("significant", scenario, args.reps, seed=args.seed, drop=1.0)
        print(f"  gate power, {scenario}, logit drop 1.0: FAIL {p.false_alarm:.1%}")
    p = simulate_false_alarm(
        "significant", "independent", args.reps, seed=args.seed, drop=1.0, errors=0.05, retries=2
    )
    print(f"  gate power, independent, logit drop 1.0, 5% errors re-sent: FAIL {p.false_alarm:.1%}")


if __name__ == "__main__":
    main()
