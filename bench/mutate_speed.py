"""Time `invoke mutate` on a synthetic 1,000-case suite (no judge); prints the seconds.

    .venv/bin/python bench/mutate_speed.py [--cases 1000]

The figure is the time; the line also gives `invoke mutate`'s exit code and what it means.
The generated cases are not tightly checked (some German negations survive, by design of
the generator), so the usual code is 1: survivors found, which says nothing about speed.
This script exits 0 once it has printed the figure, and stops with the reason when
`invoke mutate` fails outright (exit 2 or 3).

The cases follow the shapes of real support cases: prices beside the ticket's own times,
archived passages, several sentences with citations, hand-overs, German and Spanish.
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

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))
PLANS = [("Starter", 29), ("Pro", 45), ("Business", 89)]


def pricing(i: int) -> dict[str, Any]:
    name, price = PLANS[i % 3]
    other, old = PLANS[(i + 1) % 3]
    return {
        "id": f"price-{i:04d}",
        "category": "pricing",
        "question": f"What does one more {name} seat cost? Our night shift starts at 21:{i % 60:02d}.",
        "context": {"plan": name.lower()},
        "retrieved": [
            {
                "ref": "pricing#plans",
                "text": f"The {name} plan costs {price} € per seat and month. "
                f"The {other} plan costs {old} € per seat and month. "
                "Seats can be added at any time under Settings › Billing and are charged "
                "pro rata.",
            },
            {
                "ref": "pricing#archive",
                "text": f"ARCHIVED: until 2024 the {name} plan cost {price - 6} €.",
            },
            {
                "ref": "trial#overview",
                "text": "Every plan can be tried for 14 days without a card.",
            },
        ],
        "expect": {
            "facts": [f"{price} €"],
            "mentions": [rf"\b{price}\s?€"],
            "sources": ["pricing#plans"],
            "must_not_contain": [f"{price - 6} €", f"{old} €"],
        },
        "reference": f"An extra {name} seat costs {price} € per seat and month [doc:pricing#plans]. "
        f"You can add it at any time under Settings › Billing, and it is charged pro rata "
        f"[doc:pricing#plans].",
        "known_wrong": [
            {
                "draft": f"A {name} seat costs {price - 6} € [doc:pricing#archive].",
                "why": "archived price",
            }
        ],
    }


def handover(i: int) -> dict[str, Any]:
    return {
        "id": f"legal-{i:04d}",
        "category": "legal",
        "question": "Is the price increase in my contract legally valid?",
        "retrieved": [{"ref": "billing#increase", "text": "Prices rise by 8 % on 1 January 2027."}],
        "expect": {"abstain": True, "must_not_contain": ["legally valid", "you must pay"]},
        "reference": "That is a legal question, so I'll hand this over to our billing team, who "
        "will reply to you in writing.",
    }


def german(i: int) -> dict[str, Any]:
    return {
        "id": f"de-seats-{i:04d}",
        "category": "billing",
        "question": "Was kostet ein zusätzlicher Platz im Pro-Tarif?",
        "retrieved": [
            {
                "ref": "pricing#plans",
                "text": "Pro: 45 € pro Platz und Monat. Starter: 29 € pro Platz.",
            },
            {
                "ref": "billing#seats",
                "text": "Neue Plätze werden ab dem Tag der Aktivierung anteilig berechnet.",
            },
        ],
        "expect": {
            "facts": ["45 €", "anteilig"],
            "sources": ["pricing#plans", "billing#seats"],
            "must_not_contain": ["29 €"],
        },
        "reference": "Ein zusätzlicher Platz kostet im Pro-Tarif 45 € pro Platz und Monat "
        "[doc:pricing#plans]. Neue Plätze werden ab dem Tag der Aktivierung anteilig berechnet "
        "[doc:billing#seats].",
    }


def retention(i: int) -> dict[str, Any]:
    return {
        "id": f"data-{i:04d}",
        "category": "data",
        "question": "How long do you keep our data after we cancel?",
        "retrieved": [
            {
                "ref": "data#retention",
                "text": "Data is kept for 30 days after the subscription ends. "
                "Backups are overwritten within a further 14 days.",
            },
            {
                "ref": "data#export",
                "text": "Admins export data as CSV or XLSX under Settings › Data.",
            },
        ],
        "expect": {"facts": ["30 days", "14 days"], "sources": ["data#retention"]},
        "reference": "Your data is kept for 30 days after the subscription ends "
        "[doc:data#retention]. Backup copies are overwritten within a further 14 days "
        "[doc:data#retention].",
        "mutation_exempt": [
            {"operator": "negation", "why": "facts are durations; covered by the judge"}
        ],
    }


SHAPES = [pricing, pricing, handover, german, retention]


def build(suite: Path, n: int) -> None:
    (suite / "cases").mkdir(parents=True)
    (suite / "prompt.txt").write_text(
        "Answer from the passages, cite [doc:REF].\n", encoding="utf-8"
    )
    for i in range(n):
        data = SHAPES[i % len(SHAPES)](i)
        (suite / "cases" / f"{data['id']}.json").write_text(
            json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        build(suite, args.cases)
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            [INVOKE, "-r", str(ROOT), "mutate", "--suite", str(suite), "--format", "json"],
            capture_output=True,
            text=True,
            cwd=tmp,
        )
        seconds = time.perf_counter() - start
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU time too: on a busy machine the wall clock also counts other processes' turns
        cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (
            cpu_after.ru_stime - cpu_before.ru_stime
        )
        if proc.returncode not in (0, 1):
            sys.exit(f"mutate failed with exit {proc.returncode}:\n{proc.stderr}")
        totals = json.loads(proc.stdout)["totals"]
    print(
        f"mutate: {args.cases} cases, {totals['mutants']} mutants, {totals['invariants']} "
        f"invariance variants, {totals['known_wrong']} known_wrong drafts in {seconds:.2f} s "
        f"wall, {cpu:.2f} s CPU (target < 10 s wall)"
    )
    print(f"invoke mutate exit {proc.returncode}: {exit_meaning(proc.returncode, totals)}")


def exit_meaning(code: int, totals: dict[str, Any]) -> str:
    """What `invoke mutate`'s exit code says about the synthetic suite (not about speed)."""
    if code == 0:
        return "every mutant killed and every invariance variant held"
    return (
        f"{totals['survived']} mutant(s) survived ({totals['survived_exempt']} exempt), "
        f"{totals['false_alarms']} false alarm(s), {totals['known_wrong_missed']} known_wrong "
        "draft(s) missed: the generated cases' checks are not tight; the timing stands"
    )


if __name__ == "__main__":
    main()
