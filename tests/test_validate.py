"""`invoke validate`: every rule, each proven by a file that breaks it, all reported at once."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import good_case, invoke, make_project, write_case

from evals.errors import InputError
from evals.suite import open_suite
from evals.validate import load_cases, validate_suite


def problems_of(suite: Path) -> list[str]:
    return [str(p) for p in validate_suite(open_suite(suite))]


def test_valid_case_has_no_problem(tmp_path: Path) -> None:
    assert problems_of(make_project(tmp_path)) == []


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    (suite / "cases" / "broken.json").write_text('{"id": "broken",\n  "question": }\n')
    [p] = problems_of(suite)
    assert p.startswith(
        str(suite / "cases" / "broken.json") + ": /: invalid JSON at line 2, column"
    )


def test_non_utf8_file_is_reported(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    (suite / "cases" / "latin.json").write_bytes(
        '{"id": "latin", "question": "Gr\xfc\xdfe"}'.encode("latin-1")
    )
    [p] = problems_of(suite)
    assert "latin.json: /: not UTF-8" in p


def test_wrong_type_names_the_pointer(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(expect={"facts": "45 €"})])
    out = problems_of(suite)
    assert any("/expect/facts: '45 €' is not of type 'array'" in p for p in out)


def test_unknown_top_level_field_is_an_error(tmp_path: Path) -> None:
    data = good_case()
    data["expcet"] = {"facts": ["x"]}
    suite = make_project(tmp_path, [data])
    out = problems_of(suite)
    assert any(p.endswith(": /: unknown field(s): 'expcet' was unexpected") for p in out), out


def test_unknown_expect_field_is_an_error(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(expect={"fact": ["x"], "facts": ["y"]})])
    assert any("/expect: unknown field(s)" in p for p in problems_of(suite))


def test_id_must_equal_file_stem(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [])
    write_case(suite, good_case("price-pro"), name="price-starter")
    out = problems_of(suite)
    assert any("price-starter.json: /id: id 'price-pro' must equal the file stem" in p for p in out)


def test_duplicate_ids_are_reported(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case("a")])
    write_case(suite, good_case("a"), name="b")
    out = problems_of(suite)
    assert any("b.json: /id: duplicate id 'a'" in p for p in out), out


def test_bad_id_characters_are_refused(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [])
    write_case(suite, good_case("Price Pro"), name="Price Pro")
    assert any("/id: 'Price Pro' does not match" in p for p in problems_of(suite))


def test_catastrophic_regex_is_refused(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(expect={"mentions": ["(a+)+$"]})])
    out = problems_of(suite)
    assert any(
        "/expect/mentions/0: regex '(a+)+$' can backtrack catastrophically" in p for p in out
    )


def test_regex_that_does_not_compile_is_refused(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(expect={"mentions": ["45 [€"]})])
    assert any(
        "/expect/mentions/0: regex '45 [€' does not compile" in p for p in problems_of(suite)
    )


def test_unknown_check_name_is_refused(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(checks=["facts_present", "fact_present"])])
    assert any("/checks/1: unknown check 'fact_present'" in p for p in problems_of(suite))


def test_case_with_no_check_is_refused(tmp_path: Path) -> None:
    data = {"id": "empty", "question": "Hello?"}
    suite = make_project(tmp_path, [data])
    assert any("empty.json: /expect: no check applies" in p for p in problems_of(suite))


def test_empty_explicit_checks_list_is_refused(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(checks=[])])
    assert any("no check applies" in p for p in problems_of(suite))


def test_suite_check_name_is_known_once_suite_checks_load(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(checks=["polite_greeting"])])
    (suite / "checks.py").write_text(
        "from evals.checks import check, passed\n\n"
        "@check()\ndef polite_greeting(inp):\n    return passed('ok')\n"
    )
    assert problems_of(suite) == []


def test_strict_load_raises_with_every_problem(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case("a", expect={"mentions": ["(a+)+$"]})])
    (suite / "cases" / "b.json").write_text("{")
    try:
        load_cases(open_suite(suite))
    except InputError as exc:
        assert len(exc.problems) == 2
    else:
        raise AssertionError("bad suite loaded without error")


def test_validate_command_reports_all_files_at_once_and_changes_nothing(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case("ok-case")])
    cases = suite / "cases"
    (cases / "bad-json.json").write_text('{"id": "bad-json", ')
    (cases / "wrong-type.json").write_text(json.dumps({"id": "wrong-type", "question": 42}))
    (cases / "unknown.json").write_text(json.dumps({**good_case("unknown"), "colour": "red"}))
    write_case(suite, good_case("ok-case"), name="dup")
    (cases / "regex.json").write_text(
        json.dumps(good_case("regex", expect={"mentions": ["(a+)+$"]}))
    )
    (cases / "latin.json").write_bytes(b'{"id": "latin", "question": "\xfc"}')
    before = {p.name: p.read_bytes() for p in cases.iterdir()}
    res = invoke(tmp_path, "validate")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    for name in ("bad-json", "wrong-type", "unknown", "dup", "regex", "latin"):
        assert f"{name}.json: /" in res.stderr, name
    # dup.json repeats ok-case's id: the file not named after the id is the duplicate.
    assert "dup.json: /id: duplicate id 'ok-case'" in res.stderr
    assert not any(line.startswith(str(cases / "ok-case.json")) for line in res.stderr.splitlines())
    assert "in 6 file(s)" in res.stderr
    assert {p.name: p.read_bytes() for p in cases.iterdir()} == before


def test_validate_command_passes_a_good_suite(tmp_path: Path) -> None:
    make_project(tmp_path)
    res = invoke(tmp_path, "validate")
    assert res.returncode == 0, res.stderr
    assert "ok: 1 case file(s) valid" in res.stdout


def test_missing_prompt_is_reported(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    (suite / "prompt.txt").unlink()
    assert any("prompt.txt is missing" in p for p in problems_of(suite))
