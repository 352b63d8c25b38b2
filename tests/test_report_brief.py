"""A large run's HTML report: the first rows in full, every other row in brief, all listed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reportkit import large_run

from evals.report.brief import FULL_ROWS, Briefs, brief_of, briefs_for
from evals.report.data import build_report
from evals.report.html import render_run_html
from evals.report.page import json_list_script, json_script, script_json
from evals.run.files import read_run
from evals.run.summary import summarise


def page_of(path: Path) -> str:
    briefs = briefs_for(path)
    assert briefs is not None
    return render_run_html(build_report(read_run(path, keep=briefs.keep), briefs))


def test_a_small_run_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    large_run(path, FULL_ROWS)
    assert briefs_for(path) is None


def rows_of(html: str) -> tuple[list[tuple[str, str]], list[list[Any]]]:
    """(status, id) of the rows in full, and the brief rows, as the page holds them."""
    full = re.findall(r'<tr class="case-row (\w+)"[^>]*data-k-id="([^"]+)"', html)
    found = re.search(r'id="brief-rows">(.*?)</script>', html, re.S)
    return full, json.loads(found.group(1)) if found else []


def test_a_large_run_shows_its_failures_in_full_and_its_passes_in_brief(tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    rows = large_run(path, FULL_ROWS + 700)
    html = page_of(path)
    full, brief = rows_of(html)
    assert len(full) + len(brief) == len(rows)
    assert {c for _, c in full} | {b[0] for b in brief} == {r["case"] for r in rows}
    failing = {r["case"] for r in rows if r["status"] == "fail"}
    assert {c for _, c in full} == failing and {b[2] for b in brief} == {"pass"}
    assert f'id="shown-count">{len(rows)} of {len(rows)}<' in html
    assert html.count('<article class="detail"') == len(failing) + 1  # and the brief rows' one


def test_failures_past_the_first_thousands_are_listed_in_brief_after_them(tmp_path: Path) -> None:
    path = tmp_path / "failing.jsonl"
    rows = large_run(path, FULL_ROWS + 300, failing=FULL_ROWS + 100)
    full, brief = rows_of(page_of(path))
    assert len(full) == FULL_ROWS and len(brief) == 300
    assert [b[2] for b in brief] == ["fail"] * 100 + ["pass"] * 200
    # The failures in full are the lowest scores: none in brief scored lower.
    scores = {r["case"]: r["score"] for r in rows}
    assert max(scores[c] for _, c in full) <= min(b[3] for b in brief[:100])


def test_a_large_run_without_summary_gets_the_numbers_of_all_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "nosummary.jsonl"
    rows = large_run(path, FULL_ROWS + 50, summary=False, seed=3)
    briefs = briefs_for(path)
    assert briefs is not None
    rep = build_report(read_run(path, keep=briefs.keep), briefs)
    expected = summarise(rows, completed=False, stopped_reason="no summary record")
    assert rep.summary == expected and rep.recomputed
    assert rep.latency.n_total == len(rows)


def test_a_brief_row_costs_a_hundred_bytes_of_page_or_so(tmp_path: Path) -> None:
    small, large = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    large_run(small, FULL_ROWS + 1)
    large_run(large, FULL_ROWS + 2001)
    per_row = (len(page_of(large)) - len(page_of(small))) / 2000
    assert per_row < 150


def test_a_pass_the_judge_flagged_is_kept_whole_for_the_review_list(tmp_path: Path) -> None:
    path = tmp_path / "flagged.jsonl"
    rows = large_run(path, FULL_ROWS + 20, failing=0)
    lines = path.read_text("utf-8").splitlines()
    flagged = json.loads(lines[5])
    flagged["needs_review"] = True
    lines[5] = json.dumps(flagged)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    briefs = briefs_for(path)
    assert briefs is not None
    rep = build_report(read_run(path, keep=briefs.keep), briefs)
    assert [r["case"] for r in rep.flagged] == [flagged["case"]]
    assert briefs.n_passes == len(rows) - 1


def _pass(case: str, score: Any, category: str = "c") -> dict[str, Any]:
    return {"kind": "case", "case": case, "status": "pass", "score": score, "category": category}


def _old_order(rows: list[dict[str, Any]], epochs: int) -> list[str]:
    """The briefs as the page listed them when it held each as a list of values."""
    kept = sorted(
        (brief_of(r, epochs) for r in rows), key=lambda b: (-1 if b[3] is None else b[3], b[0])
    )
    return [script_json(b) for b in kept]


def test_passes_kept_as_text_are_listed_as_the_briefs_sorted_by_score_and_label() -> None:
    ids = [f"case-{i:03d}" for i in (7, 3, 12, 1, 30)] + ["case-1", "case-10", "case-1.x"]
    rows = [_pass(c, s) for c, s in zip(ids, [1.0, 0.5, 1.0, 1, 0.5, 1.0, 1.0, 1.0], strict=True)]
    briefs = Briefs(1)
    for r in rows:
        assert briefs.keep(r) is None
    assert briefs.plain and briefs.listed([]) == _old_order(rows, 1)


def test_labels_that_do_not_sort_as_their_text_and_repeated_labels_keep_the_old_order() -> None:
    # A space sorts before the quote that ends a label in its text, '<' is escaped, a
    # repeated label is ordered by arrival (not by the rest of its text), no score is -1.
    odd = [
        _pass("a b", 1.0),
        _pass("a", 1.0),
        _pass("a<b", 1.0),
        _pass("a&", None),
        _pass("é", 1.0),
        _pass("dup", 1.0, "z"),
        _pass("dup", 1.0, "a"),
    ]
    briefs = Briefs(1)
    for r in odd:
        briefs.keep(r)
    assert not briefs.plain and briefs.listed([]) == _old_order(odd, 1)
    repeated = [_pass("dup", 1.0, "z"), _pass("b", 1.0), _pass("dup", 1.0, "a")]
    briefs = Briefs(1)
    for r in repeated:
        briefs.keep(r)
    assert briefs.plain and briefs.listed([]) == _old_order(repeated, 1)


def test_the_brief_rows_script_holds_the_same_bytes_as_the_list_it_stands_for() -> None:
    items = [["a<b", 1.0, None, "x & y"], ["c", 0.5, 2, ""]]
    assert json_list_script("brief-rows", [script_json(i) for i in items]) == json_script(
        "brief-rows", items
    )
