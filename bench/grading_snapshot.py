"""Every check's verdict and detail on every labelled answer the repo holds, written to a file,
and two such files compared: what a change to the checks moves, answer by answer.

Grades the example suite's labelled answers (each case's reference and drafts, and
labelled/*.jsonl) and every suite under bench/suites/ (its cases' drafts and its
answers.jsonl), in one order, and writes one JSON list of [case id, label, {check: [status,
detail]}]:

    .venv/bin/python bench/grading_snapshot.py before.json
    (change the checks)
    .venv/bin/python bench/grading_snapshot.py after.json
    .venv/bin/python bench/grading_snapshot.py --compare before.json after.json

`--compare` prints each answer whose verdict or detail moved, with its label ("pass" for a
correct answer, "fail" for a wrong one, "-" for a case's own draft), so a new signal's cost
on correct answers stands beside what it catches. `--skip NAME` leaves the suite
bench/suites/NAME out (one kept unseen until it is measured). Exit 0 always: this measures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading_profile import jobs_of  # noqa: E402

from evals.checks.grading import grade  # noqa: E402
from evals.reply import Reply  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _row(case_id: str, label: str, results: dict) -> list:
    return [case_id, label, {k: [v.status, v.detail] for k, v in results.items()}]


def snapshot(skip: frozenset[str] = frozenset()) -> list[list]:
    """Every labelled answer's check results, in a fixed order; the suites named in `skip`
    left out (one kept unseen)."""
    out = []
    jobs, settings = jobs_of(ROOT / "evals")
    out += [_row(c.id, "-", grade(c, r, settings)) for c, r in jobs]
    for suite in sorted(p for p in (ROOT / "bench" / "suites").iterdir() if p.is_dir()):
        if suite.name in skip:
            continue
        jobs, settings = jobs_of(suite)
        out += [_row(c.id, "-", grade(c, r, settings)) for c, r in jobs]
        cases = {c.id: c for c, _ in jobs}
        answers = suite / "answers.jsonl"
        if not answers.is_file():
            continue
        for line in answers.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            case = cases.get(rec["case"])
            if case is not None:
                results = grade(case, Reply(answer=rec["answer"]), settings)
                out.append(_row(case.id, rec.get("label", "-"), results))
    return out


def compare(before: list[list], after: list[list]) -> int:
    """Print each answer whose results moved; the number of them."""
    moved = 0
    if len(before) != len(after):
        print(f"the files hold {len(before)} and {len(after)} answers: not the same set")
        return -1
    for (case_id, label, a), (_, _, b) in zip(before, after, strict=True):
        changed = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        if not changed:
            continue
        moved += 1
        for k in changed:
            was, now = a.get(k, ["-", ""]), b.get(k, ["-", ""])
            print(f"{case_id} [{label}] {k}: {was[0]} -> {now[0]}  {str(now[1])[:160]}")
    print(f"{moved} of {len(after)} answers moved")
    return moved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="the file to write, or two files with --compare")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument(
        "--skip", action="append", default=[], help="a suite under bench/suites/ to leave out"
    )
    args = ap.parse_args()
    if args.compare:
        if len(args.files) != 2:
            ap.error("--compare takes two files")
        a, b = (json.loads(Path(f).read_text("utf-8")) for f in args.files)
        compare(a, b)
        return 0
    rows = snapshot(frozenset(args.skip))
    Path(args.files[0]).write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    print(f"{len(rows)} answers graded, written to {args.files[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
