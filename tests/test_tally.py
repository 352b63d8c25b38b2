"""The summary built row by row (`Tally`) is the record `summarise` gives over the same rows."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from evals.run.files import read_run
from evals.run.summary import summarise
from evals.run.tally import Tally

ROOT = Path(__file__).resolve().parent.parent
BASELINE = next((ROOT / "runs").glob("*.jsonl"))


def varied_rows(seed: int) -> list[dict[str, Any]]:
    """The committed baseline's rows, changed the ways real runs differ: errors, cached and
    unpriced answers, judged rows (scored, errored, skipped, flagged), labels, questions,
    three epochs."""
    rng = random.Random(seed)
    out = []
    for epoch in range(3):
        for row in read_run(BASELINE).rows:
            r = copy.deepcopy(row)
            r["epoch"] = epoch
            roll = rng.random()
            if roll < 0.1:
                r.update(status="error", score=None, checks={}, usage=None)
            elif roll < 0.2:
                r["status"] = rng.choice(["pass", "fail", "review"])
            r["cached"] = rng.random() < 0.3
            r["cost_usd"] = None if rng.random() < 0.02 else round(rng.random() / 1000, 6)
            if rng.random() < 0.3:
                status = rng.choice(["pass", "fail", "error", "skip"])
                r.setdefault("checks", {})["judge"] = {
                    "status": status,
                    "score": None if status in ("error", "skip") else float(status == "pass"),
                    "detail": rng.choice(["no rubric", "graded", "not graded: no judge"]),
                }
                r["judge"] = {"attempts": rng.randint(1, 3), "cached": rng.random() < 0.2}
                r["judge_usage"] = {"prompt_tokens": rng.randint(1, 900), "completion_tokens": 9}
                r["judge_cost_usd"] = round(rng.random() / 1000, 6)
                r["needs_review"] = rng.random() < 0.3
            if rng.random() < 0.1:
                r["judge_questions"] = [
                    {"attempts": 1, "cached": False, "error": None, "stated": rng.random() < 0.5}
                ]
            if rng.random() < 0.1:
                label = rng.choice(["pass", "fail"])
                r["precedent"] = {"label": label, "checks_status": rng.choice(["pass", "fail"])}
            out.append(r)
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_tally_of_the_rows_is_the_summary_of_the_rows(seed: int) -> None:
    rows = varied_rows(seed)
    tally = Tally()
    for row in rows:
        tally.add(row)
    kw: dict[str, Any] = {"completed": True, "run_id": "r", "elapsed_s": 1.5, "left_out": ["x"]}
    assert tally.record(**kw) == summarise(rows, **kw)


def test_one_epoch_without_per_case_counts_gives_the_same_summary() -> None:
    rows = [r for r in varied_rows(7) if r["epoch"] == 0]
    tally = Tally(per_case=False)
    for row in rows:
        tally.add(row)
    assert tally.record(completed=False) == summarise(rows, completed=False)
    assert tally.by_case == {}


def test_an_empty_tally_is_the_summary_of_no_rows() -> None:
    assert Tally().record(completed=True) == summarise([], completed=True)
