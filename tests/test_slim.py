"""A compared row keeps what a comparison reads, read like the row it was; a diff reads
the same from runs whose rows are in any order."""

from __future__ import annotations

import json
import random
from pathlib import Path

from evals.compare.pairing import compare_runs
from evals.compare.render import render_text
from evals.run.files import read_run
from evals.run.slim import UNCOMPARED, UNREAD, slimmer

ROOT = Path(__file__).resolve().parent.parent
BASELINE = next((ROOT / "runs").glob("*.jsonl"))


def test_a_slim_row_reads_as_the_row_without_what_a_comparison_never_reads() -> None:
    row = {
        "kind": "case",
        "run_id": "r",
        "case": "c-1",
        "case_sha": "s",
        "status": "fail",
        "score": 0.5,
        "checks": {"facts_present": {"status": "fail", "score": 0.5, "detail": "missing"}},
        "failed_checks": ["facts_present"],
        "draft": "an answer",
        "precedent": {"label": "fail"},
        "cluster": None,
    }
    slim = slimmer()(row)
    kept = {k: v for k, v in row.items() if k not in UNCOMPARED and k not in UNREAD}
    kept["checks"] = {"facts_present": {"status": "fail", "score": 0.5}}
    assert dict(slim) == kept and len(slim) == len(kept)
    assert slim["precedent"] == {"label": "fail"} and slim.get("cluster", 1) is None
    assert "epoch" not in slim and slim.get("epoch", 0) == 0 and "draft" not in slim
    for key in ("epoch", "draft", "nothing"):
        try:
            slim[key]
            raise AssertionError(f"{key} read from a row that has none")
        except KeyError:
            pass


def test_a_diff_of_runs_whose_rows_come_in_another_order_says_the_same(tmp_path: Path) -> None:
    lines = BASELINE.read_text("utf-8").splitlines(keepends=True)
    rows = [json.loads(x) for x in lines[1:-1]]
    # Run B: a few cases fail, and its rows were written in another order.
    for r in rows[::7]:
        r.update(status="fail", score=0.0, failed_checks=["facts_present"])
    random.Random(5).shuffle(rows)
    b = tmp_path / "b.jsonl"
    b.write_text(lines[0] + "".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    shuffled = tmp_path / "a.jsonl"
    a_rows = lines[1:-1]
    random.Random(9).shuffle(a_rows)
    shuffled.write_text(lines[0] + "".join(a_rows) + lines[-1], "utf-8")
    in_order = compare_runs(read_run(BASELINE, slim=True), read_run(b, slim=True))
    reordered = compare_runs(read_run(shuffled, slim=True), read_run(b, slim=True))
    whole = compare_runs(read_run(BASELINE), read_run(b))
    texts = [render_text(c).replace(str(shuffled), str(BASELINE)) for c in (in_order, reordered)]
    assert texts[0] == texts[1] == render_text(whole)
    assert in_order.decision == reordered.decision == whole.decision
