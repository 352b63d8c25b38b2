"""`invoke calibrate --checks`: the deterministic checks against answers labelled right or wrong.

The suites are written here, with checks of their own (`checks.py`) whose verdict on each
answer is obvious from its words, so every figure can be computed by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke, make_project

from evals.calibrate.command import cmd_calibrate_checks
from evals.cli import guarded

# Verdicts anyone can read off the answer: OK must be a word of it, SWAP must not occur,
# BOOM makes the check itself crash, and the cited refs must include pricing#plans.
SUITE_CHECKS = """
from evals.checks import check, failed, passed, undecided

@check("calib_ok_word")
def calib_ok_word(inp):
    return passed("says OK") if "OK" in inp.answer.split() else failed("the word OK is missing")

@check("calib_no_swap")
def calib_no_swap(inp):
    return failed("says SWAP instead of the plan") if "SWAP" in inp.answer else passed("no SWAP")

@check("calib_boom")
def calib_boom(inp):
    if "BOOM" in inp.answer:
        raise RuntimeError("cannot read BOOM")
    return passed("no BOOM")

@check("calib_maybe")
def calib_maybe(inp):
    if "MAYBE" in inp.answer:
        return undecided("MAYBE: the plan the answer means cannot be told")
    return passed("no MAYBE")

@check("calib_cites_plans")
def calib_cites_plans(inp):
    if "pricing#plans" in inp.cited:
        return passed("cites pricing#plans")
    return failed(f"cites {inp.cited}, not pricing#plans")
"""


def toy_case(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "toy",
        "question": "Which plan?",
        "checks": ["calib_ok_word", "calib_no_swap", "calib_boom"],
        "reference": "OK the answer",
        "known_right": [{"draft": "OK but SWAP", "why": "SWAP is a fine word here"}],
        "known_wrong": [
            {"draft": "No word here", "why": "says nothing"},
            {"draft": "OK SWAP", "why": "the other plan"},
        ],
    }
    data.update(over)
    return data


def line(answer: str, label: str, case: str = "toy", **more: Any) -> dict[str, Any]:
    return {"case": case, "answer": answer, "label": label, "why": f"{label} by hand", **more}


# 7 correct answers pass and 2 fail (false alarms); 4 wrong answers fail and 1 passes (a miss).
HAND_LABELLED = [
    *(line(f"OK number {i}", "pass") for i in range(1, 7)),
    line("Fine answer without the word", "pass", style="terse"),
    line("SWAP and no word", "fail"),
    line("nothing OK here SWAP", "fail", style="terse"),
    line("OK wrong but it passes", "fail", style="chatty"),
]


def project(
    tmp: Path,
    labelled: list[dict[str, Any]] | None = None,
    cases: list[dict[str, Any]] | None = None,
    suite_toml: str | None = None,
) -> Path:
    suite = make_project(tmp, cases if cases is not None else [toy_case()])
    (suite / "checks.py").write_text(SUITE_CHECKS, encoding="utf-8")
    if labelled is not None:
        (suite / "labelled").mkdir()
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in labelled)
        (suite / "labelled" / "by-hand.jsonl").write_text(text, encoding="utf-8")
    if suite_toml is not None:
        (suite / "suite.toml").write_text(suite_toml, encoding="utf-8")
    return suite


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        return json.loads(self.out)


@pytest.fixture
def calib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Result]:
    """`invoke calibrate --checks` in this process: the same command body and exit code."""

    def call(fmt: str = "md") -> Result:
        monkeypatch.chdir(tmp_path)
        capsys.readouterr()
        code = guarded(lambda: cmd_calibrate_checks(None, fmt))
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return call


def test_sensitivity_specificity_and_kappa_equal_the_hand_computation(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    project(tmp_path, HAND_LABELLED)
    report = calib("json").json()
    # Correct: the reference and 6 labelled pass, the known_right draft and one labelled fail.
    # Wrong: 2 known_wrong and 2 labelled fail, 1 labelled passes.
    assert report["verdicts"] == {
        "pass": {"pass": 7, "fail": 2, "review": 0, "error": 0, "unscored": 0},
        "fail": {"pass": 1, "fail": 4, "review": 0, "error": 0, "unscored": 0},
    }
    assert report["sensitivity"] == {"value": 0.8, "caught": 4, "n": 5}
    assert report["specificity"] == {"value": round(7 / 9, 6), "passed": 7, "n": 9}
    # p_o = 11/14; labels 9 pass / 5 fail, checks 8 pass / 6 fail: p_e = (9*8 + 5*6) / 14^2.
    # kappa = (154 - 102) / (196 - 102) = 52 / 94.
    assert report["kappa"] == {"value": round(52 / 94, 6), "n": 14}
    assert report["sources"] == {"reference": 1, "known_right": 1, "known_wrong": 2, "labelled": 10}
    by_check = report["by_check"]
    assert by_check["calib_ok_word"]["false_alarms"] == {
        "value": round(1 / 9, 6),
        "failed": 1,
        "n": 9,
    }
    assert by_check["calib_ok_word"]["caught"] == {"value": 0.4, "caught": 2, "n": 5}
    # "No word here" is caught by calib_ok_word alone; "OK SWAP" and "nothing OK here SWAP" by
    # calib_no_swap alone; "SWAP and no word" by both, so by neither alone.
    assert by_check["calib_ok_word"]["only_catch"] == 1
    assert by_check["calib_no_swap"]["only_catch"] == 2
    assert by_check["calib_no_swap"]["caught"]["caught"] == 3
    assert by_check["calib_boom"]["false_alarms"]["failed"] == 0
    assert report["by_style"] == {
        "chatty": {
            "correct": 0,
            "false_alarms": 0,
            "wrong": 1,
            "misses": 1,
            "errors": 0,
            "unscored": 0,
            "review": 0,
        },
        "terse": {
            "correct": 1,
            "false_alarms": 1,
            "wrong": 1,
            "misses": 0,
            "errors": 0,
            "unscored": 0,
            "review": 0,
        },
    }
    # The default floors are 95 %: 4 of 5 and 7 of 9 are below it, but so few answers
    # cannot show it (their upper bounds, 99.0% and 95.9%, reach the floor): exit 3.
    assert report["exit_code"] == 3
    assert report["shortfalls"] == [
        "sensitivity 80.0% cannot be told from the floor 95% (its lower bound is 34.3%, "
        "n = 5): label more wrong answers",
        "specificity 77.8% cannot be told from the floor 95% (its lower bound is 45.0%, "
        "n = 9): label more correct answers",
    ]
    assert [f["verdict"] for f in report["floors"]["checks"]] == ["INCONCLUSIVE"] * 2


def test_a_correct_answer_a_check_fails_is_a_false_alarm_naming_the_check_and_its_detail(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    long_answer = "Fine answer without the word " + "and then some more text " * 10
    project(tmp_path, [line(long_answer, "pass", style="chatty")])
    res = calib()
    assert res.code == 1, res.out + res.err
    md = res.out
    assert "## False alarms: correct answers the checks failed (2)" in md
    assert "### `toy`" in md
    assert '- known_right[0]: "OK but SWAP"' in md
    assert "  - failed by calib_no_swap: says SWAP instead of the plan" in md
    assert "  - right because: SWAP is a fine word here" in md
    # The labelled answer is shown by its first 100 characters, with where it came from.
    shown = " ".join(long_answer.split())[:100].rstrip() + "…"
    assert f'- labelled/by-hand.jsonl:1, chatty: "{shown}"' in md
    assert "  - failed by calib_ok_word: the word OK is missing" in md
    assert "- calib_no_swap (1): `toy` known_right[0]" in md
    assert "| calib_ok_word | 33.3% (1/3) |" in md  # the reference, known_right, labelled
    assert "specificity: 33.3% (1/3) of the correct answers passed (floor 95%)" in md


def test_a_wrong_answer_every_check_passes_is_a_miss_with_the_checks_that_passed_it(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    project(tmp_path, [line("OK wrong but it passes", "fail")])
    md = calib().out
    assert "## Misses: wrong answers the checks passed (1)" in md
    assert '- labelled/by-hand.jsonl:1: "OK wrong but it passes"' in md
    assert "  - wrong because: fail by hand" in md
    assert "  - passed by: calib_ok_word, calib_no_swap, calib_boom" in md
    assert "sensitivity: 66.7% (2/3) of the wrong answers caught" in md


def test_a_rephrased_price_fails_a_word_order_pattern_and_a_padded_wrong_one_passes_it(
    tmp_path: Path,
) -> None:
    # The built-in pattern check, end to end through `invoke calibrate --checks`.
    case = {
        "id": "pro-price",
        "question": "What does the Pro plan cost per seat?",
        "checks": ["mentions_expected"],
        "expect": {"mentions": [r"(?:costs|is)\s+45\s?€"]},
        "reference": "The Pro plan costs 45 € per seat and month.",
        "known_right": [{"draft": "Pro is €45 per seat and month.", "why": "currency first"}],
        "known_wrong": [
            {"draft": "Pro costs 45 € per seat, but only when billed yearly.", "why": "invented"}
        ],
    }
    make_project(tmp_path, [case])
    proc = invoke(tmp_path, "calibrate", "--checks")
    assert proc.returncode == 3, proc.stdout + proc.stderr  # one answer of each: undecided
    assert '- known_right[0]: "Pro is €45 per seat and month."' in proc.stdout
    assert "  - failed by mentions_expected: " in proc.stdout
    assert "  - passed by: mentions_expected" in proc.stdout
    assert "sensitivity: 0.0% (0/1)" in proc.stdout
    assert "specificity: 50.0% (1/2)" in proc.stdout


def test_an_answer_a_check_crashes_on_is_an_error_never_a_pass_or_fail_and_exits_3(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    toml = "[calibration]\nmin_sensitivity = 0.5\nmin_specificity = 0.5\n"
    project(tmp_path, [*HAND_LABELLED, line("OK BOOM", "pass"), line("BOOM", "fail")], None, toml)
    res = calib("json")
    report = res.json()
    assert res.code == 3 and report["exit_code"] == 3
    assert report["verdicts"]["pass"]["error"] == 1 and report["verdicts"]["fail"]["error"] == 1
    # Left out of every figure: the same n and rates as without them.
    assert report["sensitivity"]["n"] == 5 and report["specificity"]["n"] == 9
    assert report["kappa"]["n"] == 14
    assert report["by_check"]["calib_boom"]["errors"] == 2
    assert report["by_check"]["calib_ok_word"]["caught"]["n"] == 5
    assert [(e["answer"], e["errors"]) for e in report["errors"]] == [
        ("OK BOOM", {"calib_boom": "RuntimeError: cannot read BOOM"}),
        ("BOOM", {"calib_boom": "RuntimeError: cannot read BOOM"}),
    ]
    md = calib().out
    assert "## Errors: answers a check could not grade (2)" in md
    assert "  - error in calib_boom: RuntimeError: cannot read BOOM" in md
    assert "**Result: INCOMPLETE**: 2 answer(s) hit a check error (exit 3)" in md


def test_an_answer_in_review_is_neither_agree_nor_disagree_and_its_rate_is_printed_by_label(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    case = toy_case(
        checks=["calib_ok_word", "calib_no_swap", "calib_maybe"],
        known_right=[{"draft": "OK MAYBE", "why": "right, but which plan?"}],
        known_wrong=[
            {"draft": "No word here", "why": "says nothing"},
            {"draft": "nothing MAYBE", "why": "a failing check decides beside review"},
        ],
    )
    labelled = [
        line("OK MAYBE wrong", "fail"),
        line("OK fine", "pass"),
        line("OK MAYBE again", "pass"),
    ]
    project(tmp_path, labelled, [case])
    report = calib("json").json()
    # Correct: reference and "OK fine" pass; 2 in review. Wrong: 2 fail; 1 in review.
    assert report["verdicts"]["pass"] == {
        "pass": 2,
        "fail": 0,
        "review": 2,
        "error": 0,
        "unscored": 0,
    }
    assert report["verdicts"]["fail"] == {
        "pass": 0,
        "fail": 2,
        "review": 1,
        "error": 0,
        "unscored": 0,
    }
    # The first reading leaves the answers in review out; the floors use the second, which
    # counts a wrong answer in review as not caught and a correct one as not passed.
    assert report["sensitivity"] == {"value": 1.0, "caught": 2, "n": 2}
    assert report["specificity"] == {"value": 1.0, "passed": 2, "n": 2}
    assert report["sensitivity_with_review"]["n"] + report["specificity_with_review"]["n"] == 7
    assert report["sensitivity_with_review"]["value"] < 1.0
    assert report["kappa"]["n"] == 4 and report["exit_code"] == 1  # counted against: below
    assert report["review_rate"] == {
        "all": {"value": round(3 / 7, 6), "review": 3, "n": 7},
        "correct": {"value": 0.5, "review": 2, "n": 4},
        "wrong": {"value": round(1 / 3, 6), "review": 1, "n": 3},
    }
    # The check itself was undecided on 4: "nothing MAYBE" too, which another check failed.
    assert report["by_check"]["calib_maybe"]["review"] == 4
    assert [g["answer"] for g in report["review"]] == [
        "OK MAYBE",
        "OK MAYBE wrong",
        "OK MAYBE again",
    ]
    assert report["review"][1]["review"] == {
        "calib_maybe": "MAYBE: the plan the answer means cannot be told"
    }
    md = calib().out
    assert "- in review: 42.9% (3/7) of the labelled answers: 2 of 4 correct, 1 of 3 wrong" in md
    section = md.split("## In review: answers a check could not decide (3)")[1]
    assert '- labelled/by-hand.jsonl:1: "OK MAYBE wrong"' in section
    assert (
        "  - undecided by calib_maybe: MAYBE: the plan the answer means cannot be told" in section
    )
    assert "  - labelled fail because: fail by hand" in section
    # Counted against the checks, 2 of 4 correct answers passed: even the upper bound is
    # below the floor.
    assert "**Result: FAIL**" in md and "specificity 50.0% is below the floor 95%" in md


@pytest.mark.parametrize(
    "floors,code",
    [
        # 4 of 5 caught: exact bounds [34.3%, 99.0%]; 7 of 9 passed: [45.0%, 95.9%].
        ("", 3),  # defaults 0.95 / 0.95: inside both intervals
        ("min_sensitivity = 0.34\nmin_specificity = 0.45\n", 0),  # both lower bounds meet them
        ("min_sensitivity = 0.34\nmin_specificity = 0.46\n", 3),  # 45.0% < 46%
        ("min_sensitivity = 0.995\nmin_specificity = 0\n", 1),  # even 99.0% is below 99.5%
    ],
)
def test_the_floors_in_suite_toml_decide_on_the_bounds(
    tmp_path: Path, calib: Callable[..., Result], floors: str, code: int
) -> None:
    project(tmp_path, HAND_LABELLED, suite_toml=f"[calibration]\n{floors}")
    res = calib()
    assert res.code == code, res.out
    if code == 1:
        assert "**Result: FAIL**: " in res.out and "is below the floor" in res.out
    elif code == 3:
        assert "**Result: INCONCLUSIVE**: " in res.out and "cannot be told" in res.out
    else:
        assert "**Result: PASS**" in res.out


def test_bad_floors_are_input_errors_with_their_pointer(tmp_path: Path) -> None:
    project(tmp_path, [], suite_toml="[calibration]\nmin_sensitivity = 1.5\nmin_specifcity = 0.9\n")
    proc = invoke(tmp_path, "calibrate", "--checks")
    assert proc.returncode == 2
    assert "suite.toml: /calibration/min_sensitivity: 1.5 is not between 0 and 1" in proc.stderr
    assert "suite.toml: /calibration/min_specifcity: unknown setting" in proc.stderr
    (tmp_path / "b").mkdir()
    project(tmp_path / "b", [], suite_toml='calibration = "high"\n')
    proc = invoke(tmp_path / "b", "validate")
    assert proc.returncode == 2 and "/calibration: must be a table" in proc.stderr


def test_no_wrong_answer_means_sensitivity_is_unknown_and_never_passes(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    project(tmp_path, None, [toy_case(known_wrong=[], known_right=[])])
    res = calib()
    assert res.code == 3
    assert "sensitivity: n/a (0/0)" in res.out
    assert "sensitivity is unknown: no wrong answer was graded (n = 0)" in res.out


def test_without_a_labelled_folder_or_known_right_the_cases_own_answers_are_graded(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    judge_only = {"id": "tone", "question": "Be nice?", "expect": {"rubric": "Kind."}}
    judge_only["reference"] = "Of course."
    project(tmp_path, None, [toy_case(known_right=[]), judge_only])
    res = calib()
    assert res.code == 3, res.out + res.err  # 2 wrong and 1 correct answer: floors undecided
    assert "4 labelled answers to 2 cases: 2 references, 0 known_right and 2 known_wrong" in res.out
    assert "Cohen's kappa, labels vs checks: 1.000 (n = 3)" in res.out
    assert "not graded: 1 answer(s) of cases with no deterministic check" in res.out
    assert "2 of 2 cases without a false alarm, miss, answer in review or error." in res.out


def test_reported_cited_and_retrieved_refs_are_used_when_given(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    case = toy_case(
        checks=["calib_cites_plans"],
        reference="It costs 45 € [doc:pricing#plans].",
        known_right=[{"draft": "It costs 45 €.", "why": "cited aside", "cited": ["pricing#plans"]}],
        known_wrong=[{"draft": "It costs 39 € [doc:pricing#plans].", "why": "x", "cited": []}],
    )
    labelled = [
        line("45 € a seat.", "pass", cited=["pricing#plans"], retrieved=["pricing#plans"]),
        line("45 € a seat, no refs reported.", "pass"),
    ]
    project(tmp_path, labelled, [case])
    report = calib("json").json()
    assert report["verdicts"]["pass"] == {
        "pass": 3,
        "fail": 1,
        "review": 0,
        "error": 0,
        "unscored": 0,
    }
    [alarm] = report["false_alarms"]
    assert alarm["answer"] == "45 € a seat, no refs reported."
    assert alarm["failed"] == {"calib_cites_plans": "cites [], not pricing#plans"}
    assert report["misses"] == [] and report["sensitivity"]["caught"] == 1


def test_bad_labelled_files_are_reported_at_once_with_file_line_and_pointer(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    suite = project(tmp_path)
    folder = suite / "labelled"
    folder.mkdir()
    lines = [
        json.dumps(line("OK one", "pass")),
        json.dumps(line("OK two", "maybe")),
        "{not json",
        json.dumps(line("OK three", "pass", case="nope")),
        json.dumps(line("  OK   one ", "fail")),
        json.dumps({"case": "toy", "answer": "OK four", "label": "pass"}),
        json.dumps(line("OK five", "pass", cited="pricing#plans")),
        json.dumps({**line("OK six", "pass"), "lable": "pass"}),
        "",
        "[1, 2]",
    ]
    bad = folder / "run-a.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # A BOM, Windows line ends and a U+2028 inside a string are all fine.
    good = line("OK with\u2028a line separator", "pass")
    (folder / "run-b.jsonl").write_bytes(
        b"\xef\xbb\xbf" + json.dumps(good, ensure_ascii=False).encode() + b"\r\n"
    )
    expected = [
        f"{bad}:2: /label: 'maybe' is not one of ['pass', 'fail']",
        f"{bad}:3: /: invalid JSON at column 2: Expecting property name enclosed in double quotes",
        f"{bad}:4: /case: unknown case 'nope': not in cases/",
        f"{bad}:5: /label: contradicts the label of the same answer to 'toy' at "
        "run-a.jsonl:1 (there pass, here fail): neither decides",
        f"{bad}:6: /: 'why' is a required property",
        f"{bad}:7: /cited: 'pricing#plans' is not of type 'array'",
        f"{bad}:8: /: unknown field(s): 'lable' was unexpected",
        f"{bad}:10: /: expected a JSON object, found an array",
    ]
    res = calib()
    assert res.code == 2 and res.out == ""
    assert res.err.splitlines() == expected
    proc = invoke(tmp_path, "validate")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[:-1] == expected
    assert proc.stderr.splitlines()[-1] == "8 problem(s) in 1 file(s); 1 case file(s) checked"
    bad.unlink()
    proc = invoke(tmp_path, "validate")
    assert proc.returncode == 0, proc.stderr
    assert "1 case file(s) and 1 labelled answer file(s) valid" in proc.stdout
    assert calib("json").json()["sources"]["labelled"] == 1


def test_judge_flags_do_not_mix_with_checks_and_format_needs_checks(tmp_path: Path) -> None:
    project(tmp_path)
    proc = invoke(tmp_path, "calibrate", "--checks", "--judge", "openai/gpt-4o@2024-08-06")
    assert proc.returncode == 2 and "--checks calls no model" in proc.stderr
    proc = invoke(tmp_path, "calibrate", "--format", "json")
    assert proc.returncode == 2 and "--format applies to --checks" in proc.stderr
    proc = invoke(tmp_path, "calibrate", "--checks", "--format", "csv")
    assert proc.returncode == 2 and "--format must be md or json" in proc.stderr
