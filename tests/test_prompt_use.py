"""A run or a diff whose answers cannot have seen prompt.txt says so."""

from __future__ import annotations

from pathlib import Path

from casekit import good_case, invoke, make_project

from evals.run.prompt_use import diff_note, run_note


def test_only_systems_that_ignore_the_prompt_get_a_note() -> None:
    for kind in ("local", "replay", "target"):
        note = run_note(kind)
        assert note is not None and "prompt.txt" in note and "llama-server" in note
    assert run_note("openai") is None
    a = {"prompt_sha": "a" * 64, "provider": "local"}
    assert diff_note(a, {**a, "prompt_sha": "b" * 64}) is not None
    assert diff_note(a, a) is None  # same prompt: nothing to explain
    assert diff_note(a, {"prompt_sha": "b" * 64, "provider": "openai"}) is None


def test_editing_the_prompt_under_the_offline_model_is_named_by_run_and_diff(
    tmp_path: Path,
) -> None:
    suite = make_project(tmp_path, [good_case("price-pro"), good_case("price-again")])
    first = invoke(tmp_path, "run", "--label", "before")
    assert first.returncode in (0, 1), first.stdout + first.stderr
    assert "note: the offline model (local/extractive) does not read prompt.txt" in first.stdout
    (suite / "prompt.txt").write_text("Answer in one short sentence.\n", encoding="utf-8")
    assert invoke(tmp_path, "run", "--label", "after").returncode in (0, 1)
    (before,) = (tmp_path / "runs").glob("*_before.jsonl")
    (after,) = (tmp_path / "runs").glob("*_after.jsonl")
    diff = invoke(tmp_path, "diff", "--a", str(before), "--b", str(after))
    # Two cases cannot show a regression whatever happened: the gate says INCONCLUSIVE (3).
    assert diff.returncode == 3, diff.stdout + diff.stderr
    assert "could not fail at this n" in diff.stdout
    assert "note: prompt.txt changed between the runs" in diff.stderr
    assert "the offline model (local/extractive) does not read prompt.txt" in diff.stderr
