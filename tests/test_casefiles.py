"""`invoke fmt` and `invoke new`: one canonical form, and skeletons that never overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casekit import good_case, invoke, make_project

from evals.suite.case import canonical_json, content_sha


def test_canonical_form_is_stable_ordered_and_unescaped() -> None:
    data = {"question": "Grüße, 45 €?", "id": "x", "expect": {"sources": ["a"], "facts": ["b"]}}
    text = canonical_json(data)
    assert text.startswith('{\n  "id": "x",\n  "question": "Grüße, 45 €?"')
    assert text.index('"facts"') < text.index('"sources"')
    assert text.endswith("}\n")
    assert canonical_json(json.loads(text)) == text


def test_content_sha_ignores_formatting_but_not_content() -> None:
    a = good_case()
    b = json.loads(json.dumps(a, indent=7))
    assert content_sha(a) == content_sha(b)
    assert content_sha(a) != content_sha({**a, "question": a["question"] + "?"})


def test_content_sha_ignores_the_revealed_marker_so_unsealed_cases_still_pair() -> None:
    a = good_case()
    assert content_sha({**a, "revealed": "2026-11-29"}) == content_sha(a)


def test_fmt_check_reports_and_changes_nothing_then_fmt_fixes(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    path = suite / "cases" / "price-pro.json"
    messy = json.dumps(json.loads(path.read_text()), indent=4, ensure_ascii=True)
    path.write_text(messy)
    res = invoke(tmp_path, "fmt", "--check")
    assert res.returncode == 1
    assert "would reformat" in res.stdout
    assert path.read_text() == messy
    assert invoke(tmp_path, "fmt").returncode == 0
    assert path.read_text() == canonical_json(good_case())
    assert invoke(tmp_path, "fmt", "--check").returncode == 0


def test_fmt_reports_unreadable_file_with_exit_2(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    (suite / "cases" / "bad.json").write_text("{")
    res = invoke(tmp_path, "fmt", "--check")
    assert res.returncode == 2
    assert "bad.json: /: invalid JSON" in res.stderr
    assert "Traceback" not in res.stderr


def test_new_writes_a_valid_skeleton_and_refuses_to_overwrite(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [])
    res = invoke(tmp_path, "new", "refund-window")
    assert res.returncode == 0, res.stderr
    path = suite / "cases" / "refund-window.json"
    assert json.loads(path.read_text())["id"] == "refund-window"
    assert invoke(tmp_path, "validate").returncode == 0
    path.write_text(path.read_text().replace("medium", "hard"))
    before = path.read_text()
    res = invoke(tmp_path, "new", "refund-window")
    assert res.returncode == 2
    assert "already exists" in res.stderr
    assert path.read_text() == before


def test_new_refuses_a_bad_id(tmp_path: Path) -> None:
    make_project(tmp_path, [])
    res = invoke(tmp_path, "new", "Refund Window")
    assert res.returncode == 2 and "lower-case" in res.stderr


def test_fmt_lists_every_unreadable_file_and_rewrites_none_of_them(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    cases = suite / "cases"
    raws = {
        "empty": b"",
        "utf16": json.dumps(good_case("utf16")).encode("utf-16"),
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "surrogate": b'{"id": "surrogate", "question": "\\ud800"}',
        "twice": b'{"id": "twice", "id": "twice", "question": "q"}',
        "array": b"[]",
    }
    for name, raw in raws.items():
        (cases / f"{name}.json").write_bytes(raw)
    (cases / "folder.json").mkdir()
    res = invoke(tmp_path, "fmt")
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    for name in [*raws, "folder"]:
        assert f"{name}.json: /" in res.stderr, name
    assert {n: (cases / f"{n}.json").read_bytes() for n in raws} == raws


def test_fmt_rewrites_windows_line_endings_to_the_canonical_form(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [])
    path = suite / "cases" / "crlf.json"
    path.write_bytes(json.dumps(good_case("crlf"), indent=2).replace("\n", "\r\n").encode())
    assert invoke(tmp_path, "fmt", "--check").returncode == 1
    assert invoke(tmp_path, "fmt").returncode == 0
    assert path.read_text("utf-8") == canonical_json(good_case("crlf"))
    assert [p.name for p in path.parent.iterdir()] == ["crlf.json"]  # no temporary left


def test_fmt_that_cannot_write_reports_it_with_exit_2(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [])
    path = suite / "cases" / "ugly.json"
    path.write_text(json.dumps(good_case("ugly")))
    before = path.read_bytes()
    (suite / "cases" / "ugly.json.tmp").mkdir()  # where the new text would be written first
    res = invoke(tmp_path, "fmt")
    assert res.returncode == 2 and "ugly.json: /: cannot write" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert path.read_bytes() == before


def test_new_refuses_an_id_too_long_for_a_file_name(tmp_path: Path) -> None:
    make_project(tmp_path, [])
    res = invoke(tmp_path, "new", "a" * 300)
    assert res.returncode == 2 and "at most 120 characters" in res.stderr
    assert "Traceback" not in res.stderr


def test_known_right_sits_after_known_wrong_in_the_canonical_form() -> None:
    a = good_case()
    right = [{"draft": "Pro is €45 a seat [doc:pricing#plans].", "why": "currency first"}]
    b = {"known_right": right, **a}  # first in the file as typed
    text = canonical_json(b)
    keys = list(json.loads(text))
    assert keys[keys.index("known_wrong") + 1] == "known_right"
    assert content_sha(b) == content_sha(json.loads(text))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("difficulty", "hard"),
        ("tags", ["night-shift"]),
        ("category", "billing"),
        ("note", "asked twice a week"),
        ("source", "ticket 1234"),
        ("cluster", "pricing-pro"),
        ("reference", "Pro costs 45 € per seat and month [doc:pricing#plans]."),
        ("known_right", [{"draft": "Pro is €45 a seat [doc:pricing#plans].", "why": "short"}]),
        ("known_wrong", [{"draft": "Pro is 39 €.", "why": "retired price"}]),
        ("mutation_exempt", [{"operator": "swap_figure", "why": "two prices"}]),
    ],
)
def test_editing_what_no_check_reads_keeps_the_content_sha(field: str, value: object) -> None:
    a = good_case()
    assert content_sha({**a, field: value}) == content_sha(a)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("question", "What does one more Starter seat cost per month?"),
        (
            "messages",
            [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
        ),
        ("context", {"plan": "starter"}),
        ("retrieved", [{"ref": "pricing#plans", "text": "Pro: 49 € per seat and month."}]),
        ("expect", {"mentions": [r"\b49\s?€"]}),
        ("checks", ["mentions_expected"]),
    ],
)
def test_editing_what_grading_reads_changes_the_content_sha(field: str, value: object) -> None:
    a = good_case()
    assert content_sha({**a, field: value}) != content_sha(a)
