"""`invoke export --format jsonl`: the suite as one JSONL file that `invoke import` reads back."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import good_case, invoke, make_project, write_case

CASES = [
    good_case("price-pro"),
    {
        "id": "refund",
        "category": "billing",
        "question": "Kann ich zurückgeben?",
        "expect": {"facts": ["30 Tage"], "abstain": False, "max_words": 80},
        "checks": ["facts_present", "abstention", "max_words"],
        "human": {"label": "pass", "by": "sam"},
        "note": "from ticket 812",
    },
    {"id": "decline", "question": "Stock tips?", "expect": {"abstain": True}},
]


def test_export_writes_one_canonical_case_per_line_in_id_order(tmp_path):
    make_project(tmp_path, CASES)
    proc = invoke(tmp_path, "export", "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["decline", "price-pro", "refund"]
    assert json.loads(lines[2]) == CASES[1]
    assert list(json.loads(lines[2])) == [
        "id",
        "category",
        "question",
        "expect",
        "checks",
        "human",
        "note",
    ]


def test_export_then_import_round_trips_byte_for_byte(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    src = make_project(tmp_path / "a", CASES)
    out = tmp_path / "suite.jsonl"
    assert invoke(tmp_path / "a", "export", "--out", str(out)).returncode == 0
    dest = make_project(tmp_path / "b", cases=[])
    proc = invoke(tmp_path / "b", "import", str(out), "--suite", "suite")
    assert proc.returncode == 0, proc.stderr
    assert "(format: case)" in proc.stdout
    for path in sorted((src / "cases").glob("*.json")):
        assert (dest / "cases" / path.name).read_bytes() == path.read_bytes()
    assert len(list((dest / "cases").glob("*.json"))) == len(CASES)


def test_export_refuses_to_overwrite_without_force(tmp_path):
    make_project(tmp_path, CASES)
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    proc = invoke(tmp_path, "export", "--out", str(out))
    assert proc.returncode == 2 and "already exists" in proc.stderr
    assert out.read_text() == "keep me\n"
    assert invoke(tmp_path, "export", "--out", str(out), "--force").returncode == 0
    assert len(out.read_text().splitlines()) == 3


def test_export_of_an_invalid_suite_or_unknown_format_is_bad_input(tmp_path):
    suite = make_project(tmp_path, CASES)
    assert invoke(tmp_path, "export", "--format", "csv").returncode == 2
    write_case(suite, {"id": "broken", "question": "Q?"})  # no expectation: no check applies
    proc = invoke(tmp_path, "export")
    assert proc.returncode == 2
    assert "broken.json: /expect: no check applies" in proc.stderr
    assert not Path(tmp_path / "suite.jsonl").exists()
