"""`invoke run --answers`: saved answers evaluated end to end through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import good_case, invoke, make_project, read_jsonl


def write_answers(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def only_run_file(project: Path) -> Path:
    [path] = sorted((project / "runs").glob("*.jsonl"))
    return path


def test_wrong_price_fails_mentions_but_passes_citation_checks(tmp_path: Path) -> None:
    make_project(tmp_path)
    answers = write_answers(
        tmp_path / "answers.jsonl",
        [
            {
                "case": "price-pro",
                "answer": "From your 21:45 shift on, a Pro seat costs 39 € [doc:pricing#plans].",
            }
        ],
    )
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 1, res.stderr
    assert "FAIL  price-pro  failed: mentions_expected, no_forbidden" in res.stdout
    [row] = [r for r in read_jsonl(only_run_file(tmp_path)) if r["kind"] == "case"]
    checks = row["checks"]
    assert checks["mentions_expected"]["status"] == "fail"
    assert checks["mentions_expected"]["detail"] == 'pattern not found: "\\b45\\s?€"'
    assert checks["citations_resolve"]["status"] == "pass"
    assert checks["no_unsourced_number"]["status"] == "pass"
    assert row["model"] == "acme/bot@2026-10-01"
    assert row["score"] == 0.0  # the retired price is forbidden: the whole case scores 0


def test_all_pass_exits_0(tmp_path: Path) -> None:
    make_project(tmp_path)
    answers = write_answers(
        tmp_path / "a.jsonl", [{"case": "price-pro", "answer": good_case()["reference"]}]
    )
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "PASS  price-pro" in res.stdout


def test_case_without_saved_answer_is_an_error_row_and_exit_3(tmp_path: Path) -> None:
    make_project(tmp_path, [good_case("a"), good_case("b")])
    answers = write_answers(
        tmp_path / "a.jsonl", [{"case": "a", "answer": good_case()["reference"]}]
    )
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 3
    rows = {r["case"]: r for r in read_jsonl(only_run_file(tmp_path)) if r["kind"] == "case"}
    assert rows["b"]["status"] == "error" and rows["b"]["score"] is None
    assert "no saved answer" in rows["b"]["error"]


def test_answers_for_cases_that_do_not_exist_are_counted_and_named(tmp_path: Path) -> None:
    make_project(tmp_path, [good_case("a"), good_case("b")])
    good = good_case()["reference"]
    strays = ["../../etc/passwd", "c", "d", "\x1b[31me", "f", "g", "h"]
    answers = write_answers(
        tmp_path / "a.jsonl",
        [{"case": "a", "answer": good}, {"case": "b", "answer": good}]
        + [{"case": s, "answer": good} for s in strays],
    )
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 0, res.stdout + res.stderr
    [line] = [x for x in res.stderr.splitlines() if "no case" in x]
    assert line.startswith(f"warning: {answers}: 7 answer(s) name no case in the suite")
    assert "'../../etc/passwd' (not a case id)" in line and "'c'" in line
    assert "\x1b" not in res.stderr and "and 2 more" in line
    # Answers for cases left out by --case are not strays: those cases exist.
    res = invoke(
        tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01", "--case", "a"
    )
    assert "7 answer(s) name no case" in res.stderr


def test_suite_check_that_raises_is_an_error_with_its_message_and_exit_3(tmp_path: Path) -> None:
    suite = make_project(tmp_path, [good_case(checks=["mentions_expected", "tone_ok"])])
    (suite / "checks.py").write_text(
        "from evals.checks import check\n\n"
        "@check()\ndef tone_ok(inp):\n    raise KeyError('tone lexicon not loaded')\n"
    )
    answers = write_answers(
        tmp_path / "a.jsonl", [{"case": "price-pro", "answer": good_case()["reference"]}]
    )
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 3, res.stdout + res.stderr
    [row] = [r for r in read_jsonl(only_run_file(tmp_path)) if r["kind"] == "case"]
    assert row["status"] == "error" and row["score"] is None
    assert row["checks"]["tone_ok"] == {
        "status": "error",
        "score": None,
        "detail": "KeyError: 'tone lexicon not loaded'",
    }
    assert row["checks"]["mentions_expected"]["status"] == "pass"


def test_answers_without_model_is_a_usage_error(tmp_path: Path) -> None:
    make_project(tmp_path)
    answers = write_answers(tmp_path / "a.jsonl", [{"case": "price-pro", "answer": "x"}])
    res = invoke(tmp_path, "run", "--answers", str(answers))
    assert res.returncode == 2 and "--answers needs --model" in res.stderr
    assert not (tmp_path / "runs").exists()


def test_malformed_answers_file_lists_every_bad_line(tmp_path: Path) -> None:
    make_project(tmp_path)
    bad = tmp_path / "a.jsonl"
    bad.write_text('{"case": "price-pro"}\nnot json\n{"case": "x", "answer": "y", "cited": "z"}\n')
    res = invoke(tmp_path, "run", "--answers", str(bad), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 2
    assert "line 1/answer: required string" in res.stderr
    assert "line 2: invalid JSON" in res.stderr
    assert "line 3/cited: must be a list of refs" in res.stderr
    assert "Traceback" not in res.stderr


def test_an_empty_answers_file_is_refused_before_anything_runs(tmp_path: Path) -> None:
    make_project(tmp_path)
    for text in ("", "\n  \n"):
        empty = tmp_path / "a.jsonl"
        empty.write_text(text, "utf-8")
        res = invoke(tmp_path, "run", "--answers", str(empty), "--model", "acme/bot@2026-10-01")
        assert res.returncode == 2, res.stdout + res.stderr
        assert res.stderr.splitlines() == [f"{empty}: /: no answers in the file (it is empty)"]
        assert not (tmp_path / "runs").exists()


def test_floating_model_alias_is_refused(tmp_path: Path) -> None:
    make_project(tmp_path)
    answers = write_answers(tmp_path / "a.jsonl", [{"case": "price-pro", "answer": "x"}])
    res = invoke(tmp_path, "run", "--answers", str(answers), "--model", "gpt-4o")
    assert res.returncode == 2 and "not date-pinned" in res.stderr


def test_answers_that_would_crash_a_run_are_refused_line_by_line(tmp_path: Path) -> None:
    import pytest

    from evals.errors import InputError
    from evals.providers.replay import load_answers

    bad = tmp_path / "a.jsonl"
    bad.write_text(
        '{"case": "a", "answer": "45 \\ud800"}\n'
        + "[" * 100_000
        + "]" * 100_000
        + "\n"
        + '{"case": "c", "answer": "x", "latency_ms": NaN}\n'
        + '{"case": "d", "answer": "x", "latency_ms": "fast", "usage": "lots"}\n'
        + '{"case": "e", "answer": "x", "usage": {"prompt_tokens": -5}}\n'
        + '{"case": "f", "case": "g", "answer": "x"}\n',
        "utf-8",
    )
    with pytest.raises(InputError) as err:
        load_answers(bad)
    lines = err.value.lines()
    for n, text in [
        (1, "lone surrogate"),
        (2, "nested too deeply"),
        (3, "NaN"),
        (4, "/latency_ms: must be a number"),
        (4, "/usage: must be an object"),
        (5, "/usage: must be an object"),
        (6, "key 'case' appears twice"),
    ]:
        assert any(f"line {n}" in ln and text in ln for ln in lines), (n, text, lines)


def test_answers_file_with_a_byte_order_mark_and_windows_line_ends_is_read(
    tmp_path: Path,
) -> None:
    from evals.providers.replay import load_answers

    path = tmp_path / "a.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + json.dumps({"case": "a", "answer": "x", "usage": {"prompt_tokens": 3}}).encode()
        + b"\r\n"
        + json.dumps({"case": "b", "answer": "y"}).encode()
        + b"\r\n"
    )
    assert sorted(load_answers(path)) == ["a", "b"]


def test_wrong_prices_on_the_example_pricing_cases_fail_as_unsupported_figures(
    tmp_path: Path,
) -> None:
    from casekit import ROOT

    (tmp_path / "pyproject.toml").write_text(
        f'[tool.evals]\nsuite = "{ROOT / "evals"}"\nruns_dir = "runs"\n', "utf-8"
    )
    wrong = {"45 €": "42 €", "29 €": "27 €", "20 %": "25 %", "15 %": "12 %", "50 seats": "40 seats"}
    records = []
    for path in sorted((ROOT / "evals" / "cases").glob("pricing-*.json")):
        answer = json.loads(path.read_text("utf-8"))["reference"]
        for right, bad in wrong.items():
            answer = answer.replace(right, bad)
        records.append({"case": path.stem, "answer": answer})
    answers = write_answers(tmp_path / "wrong.jsonl", records)
    res = invoke(
        tmp_path,
        "run",
        "--answers",
        str(answers),
        "--model",
        "acme/bot@2026-10-01",
        "--case",
        "pricing-*",
    )
    assert res.returncode == 1, res.stderr
    rows = [r for r in read_jsonl(only_run_file(tmp_path)) if r["kind"] == "case"]
    assert len(rows) == len(records) >= 7
    for row in rows:
        checks = row["checks"]
        # Every changed figure is cited, but its passage does not state it: claim support
        # names it, while the citations themselves are in order.
        assert "figures_supported" in row["failed_checks"], (row["case"], row["failed_checks"])
        assert checks["figures_supported"]["detail"].startswith("not stated by the cited passage")
        assert checks["citations_resolve"]["status"] == "pass"
        assert checks["no_unsourced_number"]["status"] == "pass"
