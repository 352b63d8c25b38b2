"""`invoke validate`: every rule, each proven by a file that breaks it, all reported at once."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import good_case, invoke, make_project, write_case

from evals.checks.loading import load_cases
from evals.commands.suite import validate_suite
from evals.errors import InputError
from evals.suite.folder import open_suite


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


def test_broken_files_of_every_kind_are_each_reported_once_without_a_traceback(
    tmp_path: Path,
) -> None:
    suite = make_project(tmp_path, [good_case("ok-case")])
    cases = suite / "cases"
    broken = {
        "empty": b"",
        "blank": b"  \n",
        "array": b"[1, 2]",
        "null": b"null",
        "utf16": json.dumps(good_case("utf16")).encode("utf-16"),
        "bom": b"\xef\xbb\xbf" + json.dumps(good_case("bom")).encode(),
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "nan": b'{"id": "nan", "question": "q", "expect": {"max_words": NaN}}',
        "huge-int": b'{"id": "huge-int", "question": "q", "expect": {"max_words": '
        + b"9" * 5000
        + b"}}",
        "twice": b'{"id": "twice", "id": "twice", "question": "q", "expect": {"facts": ["a"]}}',
        "surrogate": b'{"id": "surrogate", "question": "\\ud800", "expect": {"facts": ["a"]}}',
        "bad-items": json.dumps(
            {"id": "bad-items", "question": "q", "retrieved": ["x", {"ref": 1}], "expect": "a"}
        ).encode(),
        "bad-lists": json.dumps(
            {
                "id": "bad-lists",
                "question": "q",
                "checks": "facts_present",
                "expect": {"mentions": 5},
            }
        ).encode(),
    }
    for name, raw in broken.items():
        (cases / f"{name}.json").write_bytes(raw)
    (cases / "folder.json").mkdir()
    before = {p.name: p.read_bytes() for p in cases.iterdir() if p.is_file()}
    res = invoke(tmp_path, "validate")
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and "Error:" not in res.stderr
    for name in [*broken, "folder"]:
        assert f"{name}.json: /" in res.stderr, name
    assert "ok-case.json" not in res.stderr
    assert f"in {len(broken) + 1} file(s)" in res.stderr
    assert {p.name: p.read_bytes() for p in cases.iterdir() if p.is_file()} == before
    lines = res.stderr.splitlines()
    expected = {
        "empty": "empty file",
        "array": "expected a JSON object, found an array",
        "null": "expected a JSON object, found null",
        "utf16": "UTF-16 text (byte-order mark)",
        "bom": "byte-order mark",
        "deep": "nested too deeply",
        "nan": "NaN is not a JSON value",
        "huge-int": "invalid JSON",
        "twice": "key 'id' appears twice",
        "surrogate": "lone surrogate",
        "folder": "is a directory",
    }
    for name, reason in expected.items():
        assert any(f"{name}.json: /" in ln and reason in ln for ln in lines), (name, lines)


def test_a_case_of_wrong_shapes_gets_schema_problems_not_a_crash(tmp_path: Path) -> None:
    data = {"id": "shapes", "question": "q", "retrieved": ["x"], "expect": {"mentions": [5]}}
    suite = make_project(tmp_path, [data])
    out = problems_of(suite)
    assert any("/retrieved/0: 'x' is not of type 'object'" in p for p in out), out
    assert any("/expect/mentions/0: 5 is not valid" in p for p in out), out


def test_an_expect_that_is_not_an_object_is_one_problem_not_two(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [{"id": "flat", "question": "q", "expect": "45 €"}])
    out = problems_of(suite)
    assert len(out) == 1 and "/expect: '45 €' is not of type 'object'" in out[0], out


def test_more_catastrophic_regexes_are_refused_each_with_its_pointer(tmp_path: Path) -> None:
    pats = ["(a|aa)+$", r"(\d+)*x", r"(\s*,?\s*)*$", "(?:a*)*b"]
    suite = make_project(tmp_path, [good_case(expect={"mentions": pats})])
    out = problems_of(suite)
    for i, pat in enumerate(pats):
        assert any(f"/expect/mentions/{i}: regex {pat!r} can backtrack" in p for p in out), out


def test_loaded_case_carries_its_content_sha(tmp_path: Path) -> None:
    from evals.suite.case import content_sha

    data = good_case()
    [case], problems = load_cases(open_suite(make_project(tmp_path, [data])))
    assert problems == [] and case.sha == content_sha(data)


def test_suite_settings_that_would_break_or_silently_change_checks_are_refused(
    tmp_path: Path,
) -> None:
    suite = make_project(tmp_path)
    (suite / "suite.toml").write_text(
        "refusal_phrase = ['i cannot say']\n"  # a typo: the defaults would silently apply
        "refusal_phrases = ['ok', 3]\n"
        "citation_pattern = '(a+)+$'\n"
        "figure_window = -1\n"
        "judge_threshold = true\n",
        "utf-8",
    )
    res = invoke(tmp_path, "validate")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    for pointer, text in [
        ("/refusal_phrase", "unknown setting"),
        ("/refusal_phrases", "must be a list of non-empty strings"),
        ("/citation_pattern", "regex '(a+)+$' can backtrack catastrophically"),
        ("/figure_window", "must be 0 or more"),
        ("/judge_threshold", "must be int"),
    ]:
        assert f"suite.toml: {pointer}: {text}" in res.stderr, (pointer, res.stderr)


def test_a_table_of_settings_for_the_suites_own_checks_is_accepted(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    (suite / "suite.toml").write_text("figure_window = 80\n[checks]\ntone = 'formal'\n", "utf-8")
    settings = open_suite(suite).settings
    assert settings.figure_window == 80
    assert settings.extra == {"checks": {"tone": "formal"}}


def test_known_right_drafts_have_the_shape_of_known_wrong_ones(tmp_path: Path) -> None:
    ok = good_case(
        "ok",
        known_right=[
            {"draft": "Pro is €45 a seat.", "why": "terse", "cited": ["pricing#plans"]},
            {"draft": "45 €.", "why": "bare", "retrieved": ["pricing#plans"], "abstained": False},
        ],
    )
    bad = good_case(
        "bad",
        known_right=[{"draft": "Pro is €45."}, {"draft": "", "why": "x", "style": "terse"}],
    )
    out = problems_of(make_project(tmp_path, [ok, bad]))
    assert out and all("bad.json" in p for p in out), out
    assert any(p.endswith("bad.json: /known_right/0: 'why' is a required property") for p in out)
    assert any("bad.json: /known_right/1: unknown field(s): 'style'" in p for p in out), out
    assert any("bad.json: /known_right/1/draft: '' should be non-empty" in p for p in out), out


def test_calibration_floors_in_suite_toml_are_read_and_checked(tmp_path: Path) -> None:
    suite = make_project(tmp_path)
    assert open_suite(suite).settings.min_sensitivity == 0.95
    (suite / "suite.toml").write_text("[calibration]\nmin_specificity = 0.9\n", "utf-8")
    settings = open_suite(suite).settings
    assert (settings.min_sensitivity, settings.min_specificity) == (0.95, 0.9)
    (suite / "suite.toml").write_text(
        "[calibration]\nmin_sensitivity = true\nmin_specificity = nan\n", "utf-8"
    )
    res = invoke(tmp_path, "validate")
    assert res.returncode == 2
    assert "suite.toml: /calibration/min_sensitivity: must be a number from 0 to 1" in res.stderr
    assert "suite.toml: /calibration/min_specificity: nan is not between 0 and 1" in res.stderr
