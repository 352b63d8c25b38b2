"""`invoke history` on a git repository with three committed baselines: three rows, oldest
first, each with the gate's verdict against the one before, and a page with the chart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casekit import invoke
from diffkit import project
from historykit import commit, git, three_baselines


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return three_baselines(tmp_path)


def test_three_committed_baselines_give_three_rows_oldest_first(repo: Path) -> None:
    res = invoke(repo, "history", "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [d["subject"] for d in data] == [
        "first release",
        "second release",
        "third release: the baseline re-run",
    ]
    assert [d["verdict"] for d in data] == [None, "FAIL", "PASS"]
    assert data[0]["pass_rate"] == pytest.approx(108 / 120)
    lo, hi = data[0]["pass_ci"]
    assert lo < 108 / 120 < hi
    assert data[1]["checks"]["facts_present"]["scored"] == 120
    text = invoke(repo, "history").stdout
    assert "3 committed baseline(s), oldest first" in text
    assert text.count("local/extractive@2026-11-01") == 3


def test_the_page_draws_one_point_per_baseline_and_fetches_nothing(repo: Path) -> None:
    out = repo / "history.html"
    res = invoke(repo, "history", "--html", str(out))
    assert res.returncode == 0, res.stderr
    html = out.read_text("utf-8")
    assert html.count('class="release"') == 3 and "<svg" in html and "<polyline" in html
    assert 'data-verdict="FAIL"' in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "script-src &#x27;none&#x27;" in html  # no script at all


def test_a_project_below_the_repositorys_top_reads_its_own_runs(tmp_path: Path) -> None:
    root = three_baselines(tmp_path / "suite-project", top=tmp_path)
    data = json.loads(invoke(root, "history", "--format", "json").stdout)
    assert [d["verdict"] for d in data] == [None, "FAIL", "PASS"]


def test_outside_git_or_without_a_baseline_it_says_why_with_exit_2(tmp_path: Path) -> None:
    project(tmp_path)
    res = invoke(tmp_path, "history")
    assert res.returncode == 2 and "not a git repository" in res.stderr
    git(tmp_path, "init", "-q")
    (tmp_path / "x.txt").write_text("x", encoding="utf-8")
    commit(tmp_path, "nothing yet")
    res = invoke(tmp_path, "history")
    assert res.returncode == 2 and "no committed baseline" in res.stderr
