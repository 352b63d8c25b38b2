"""Grade labelled answers against a suite's checks, as a user's suite would be graded: false
alarms, misses and answers left in review, optionally with every fact cut to its first
phrasing (a fact as a user writes it).

    .venv/bin/python bench/fresh_answers.py evals evals/labelled/rotaboard-3.jsonl [--first] [-v]
    .venv/bin/python bench/fresh_answers.py bench/suites/pedalo bench/suites/pedalo/answers.jsonl
    .venv/bin/python bench/fresh_answers.py bench/suites/polder bench/suites/polder/answers.jsonl

Every suite under bench/suites/ was written from the docs alone, in other domains and
languages, with answers written blind from the prompt and the tickets (most with their
labels checked by a blind second reviewer: second_review.jsonl); the README says which were
measured unseen, and when.
`--part held` grades only the cases SUITE/split.json lists under that key (onda: the half
kept back while the checks changed, `held`, and the half they were improved on, `dev`).

    .venv/bin/python bench/fresh_answers.py bench/suites/onda bench/suites/onda/answers.jsonl --part held

Prints one line of counts; -v also prints every disagreement and review with the checks'
details; --by-check prints, for each check and reason, how many correct answers it failed or
sent to review and how many wrong answers it failed (caught) or sent to review: a signal's
precision beside its recall. Exit 0 always: this measures, the floors are
`invoke calibrate --checks`'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals.checks.grading import grade, outcome  # noqa: E402
from evals.checks.loading import load_cases  # noqa: E402
from evals.reply import Reply  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402


def first_phrasings(facts: list) -> list:
    """Every fact cut to its first phrasing."""
    out = []
    for f in facts:
        if isinstance(f, list):
            out.append(f[:1])
        elif isinstance(f, dict) and isinstance(f.get("any"), list):
            out.append({**f, "any": f["any"][:1]})
        else:
            out.append(f)
    return out


def reason(check: str, status: str, detail: str) -> str:
    """A check's verdict and the kind of reason it gave, without the quoted words: what one
    signal of that check did."""
    head = detail.split(":")[0].split('"')[0].split("(")[0].strip()
    if check == "facts_present" and status == "review":
        head = (
            "retired in other words"
            if "no longer applies" in detail
            else "a no in other words"
            if "open with a yes" in detail
            else "taken off in other words"
            if "takes it off" in detail
            else "its words there"
        )
    return f"{check} {status}: {head[:60]}"


def print_by_check(by_check: dict[str, Counter[str]]) -> None:
    """One row per check and reason: correct answers it failed or sent to review (its cost)
    beside wrong answers it failed or sent to review (what it catches). An answer another
    check also flags counts for each."""
    print("| check, verdict: reason | correct answers | wrong answers |")
    print("|---|---:|---:|")
    for key in sorted(by_check):
        c = by_check[key]
        status = key.split(":")[0].rsplit(" ", 1)[1]
        print(f"| {key} | {c[f'pass {status}']} | {c[f'fail {status}']} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--first", action="store_true", help="cut every fact to its first phrasing")
    ap.add_argument("-v", action="store_true", help="print each disagreement and review")
    ap.add_argument(
        "--by-check", action="store_true", help="per check and reason: correct vs wrong answers"
    )
    ap.add_argument(
        "--part",
        help="only the cases SUITE/split.json lists under this key (onda: dev, held)",
    )
    args = ap.parse_args()
    only = None
    if args.part:
        only = set(json.loads((Path(args.suite) / "split.json").read_text("utf-8"))[args.part])
    suite = open_suite(Path(args.suite))
    cases = {c.id: c for c in load_cases(suite)[0]}
    if args.first:
        for c in cases.values():
            if c.expect.get("facts"):
                c.expect["facts"] = first_phrasings(c.expect["facts"])
    counts = {"n": 0, "false_alarms": 0, "misses": 0, "review": 0, "errors": 0}
    by_check: dict[str, Counter[str]] = defaultdict(Counter)
    for name in args.files:
        for line in Path(name).read_text("utf-8").split("\n"):
            if not line.strip():
                continue
            rec = json.loads(line)
            if only is not None and rec["case"] not in only:
                continue
            results = grade(cases[rec["case"]], Reply(answer=rec["answer"]), suite.settings)
            status = outcome(results).status
            counts["n"] += 1
            for check, r in results.items():
                if r.status in ("fail", "review"):
                    by_check[reason(check, r.status, r.detail)][f"{rec['label']} {r.status}"] += 1
            kind = {
                ("review", "pass"): "review",
                ("review", "fail"): "review",
                ("fail", "pass"): "false_alarms",
                ("pass", "fail"): "misses",
                ("error", "pass"): "errors",
                ("error", "fail"): "errors",
            }.get((status, rec["label"]))
            if kind is None:
                continue
            counts[kind] += 1
            if args.v:
                print(f"--- {kind} {rec['case']} (label {rec['label']}): {rec['why']}")
                print(f"    {rec['answer']}")
                for check, r in results.items():
                    if r.status in ("fail", "review", "error"):
                        print(f"    {check}: {r.status}: {r.detail}")
    print(" ".join(f"{k}={v}" for k, v in counts.items()), f"(first phrasing only: {args.first})")
    if args.by_check:
        print_by_check(by_check)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
