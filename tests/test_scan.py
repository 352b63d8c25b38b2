"""A run and `invoke validate` read the case files into a CaseList: the same cases and
problems as loading them all, each case read from its file again when it is reached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casekit import good_case, make_project, write_case

from evals.checks.known_valid import KNOWN_VALID, KnownValid
from evals.checks.loading import load_cases
from evals.commands import scan
from evals.commands.scan import scan_cases
from evals.errors import InputError
from evals.suite.caselist import CaseList
from evals.suite.folder import open_suite, select_cases, suite_digest

# Ids whose file names sort unlike them: "pro-a.json" < "pro.json", but "pro" < "pro-a".
IDS = ["pro", "pro-a", "pro.b", "a-1", "a", "z"]


def _suite(tmp_path: Path) -> Path:
    return make_project(tmp_path, [good_case(i, category="x" if i < "p" else "y") for i in IDS])


def _seen(cases) -> list[tuple]:
    return [(c.id, c.sha, c.data, c.path) for c in cases]


def test_the_case_list_holds_the_valid_cases_in_id_order_and_in_name_order_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = open_suite(_suite(tmp_path))
    loaded, _ = load_cases(suite)
    monkeypatch.setattr(scan, "BLOCK", 2)  # several blocks, the store read and written per block
    cases, problems = scan_cases(suite, known=KnownValid(tmp_path / KNOWN_VALID))
    assert problems == [] and isinstance(cases, CaseList)
    assert list(cases.ids()) == sorted(IDS)
    assert _seen(cases) == _seen(sorted(loaded, key=lambda c: c.id))
    assert _seen(cases.in_name_order()) == _seen(loaded)  # load_cases gives name order
    assert suite_digest(cases) == suite_digest(loaded)
    again, _ = scan_cases(suite, known=KnownValid(tmp_path / KNOWN_VALID))  # from the store
    assert _seen(again) == _seen(cases)
    picked = select_cases(cases, case_glob="pro*", category="y", limit=2)
    assert _seen(picked) == _seen(select_cases(loaded, case_glob="pro*", category="y", limit=2))
    assert [c.id for c in cases[1:3]] == sorted(IDS)[1:3] and cases[-1].id == "z"
    kept, left = cases.split(lambda c: c.category == "x")
    assert list(kept.ids()) == ["a", "a-1"] and len(left) == len(IDS) - 2


def test_a_scan_reports_the_problems_of_load_cases_in_the_same_order(tmp_path: Path) -> None:
    root = _suite(tmp_path)
    write_case(root, good_case("pro"), name="aaa")  # a duplicate of pro, named otherwise
    write_case(root, good_case("ghost"), name="zz")
    write_case(root, good_case("ghost"), name="zy")
    (root / "cases" / "broken.json").write_text("{not json", "utf-8")
    (root / "cases" / "dir.json").mkdir()
    write_case(root, {**good_case("pro-c"), "checks": ["no-such-check"]})
    suite = open_suite(root)
    expected = load_cases(suite, strict=False)
    cases, problems = scan_cases(suite, strict=False)
    assert [str(p) for p in problems] == [str(p) for p in expected[1]]
    assert any("duplicate id 'pro'" in str(p) for p in problems)
    assert _seen(cases.in_name_order()) == _seen(expected[0])
    with pytest.raises(InputError):
        scan_cases(suite)


def test_a_case_file_changed_after_it_was_validated_is_refused_not_read(tmp_path: Path) -> None:
    root = _suite(tmp_path)
    cases, _ = scan_cases(open_suite(root))
    path = root / "cases" / "z.json"
    path.write_text(json.dumps({**good_case("z"), "question": "Something else?"}), "utf-8")
    assert cases[0].id == "a"  # the others still read
    with pytest.raises(InputError, match="changed since it was validated"):
        cases[-1]
