"""Shards: `--shard I/N` slices deterministically; `invoke merge` joins only matching shards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from casekit import invoke
from reviewkit import ANSWERS, PASS_ANSWER, REVIEW_ANSWER, review_suite, run_review
from runkit import API_KEY, GOOD, make_project, records, rows, run, run_files, summary, use

from evals.commands.options import in_shard
from evals.errors import InputError
from evals.run.merge import merge_runs

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))


def _shards(root: Path, n: int, **opts) -> list[Path]:
    for i in range(1, n + 1):
        run(shard=f"{i}/{n}", label=f"shard-{i}", **opts)
    return run_files(root)


def test_shards_are_disjoint_and_cover_every_case():
    ids = [f"case-{i:03d}" for i in range(200)]
    owners = [[i for i in (1, 2, 3) if in_shard(c, i, 3)] for c in ids]
    assert all(len(o) == 1 for o in owners)
    sizes = [sum(1 for o in owners if o == [i]) for i in (1, 2, 3)]
    assert min(sizes) > 40  # a hash spreads them, not a first-N split


def test_merge_joins_three_shards_into_one_run(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 9)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    files = _shards(root, 3)
    assert len(files) == 3
    out = root / "merged.jsonl"
    env = {**os.environ, "OPENAI_API_KEY": API_KEY}
    arg = ",".join(str(f) for f in files)
    p = subprocess.run(
        [INVOKE, "-r", str(ROOT), "merge", arg, "--out", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    merged = rows(out)
    assert sorted(r["case"] for r in merged) == [f"case-{i:03d}" for i in range(9)]
    header = records(out)[0]
    assert header["settings"]["shard"] is None and len(header["merged_from"]) == 3
    # One shard's label does not name the whole run; each shard's stays in merged_from.
    assert header["label"] is None
    assert [m["label"] for m in header["merged_from"]] == ["shard-1", "shard-2", "shard-3"]
    assert header["n_cases"] == 9
    assert summary(out)["counts"]["total"] == 9 and summary(out)["completed"] is True
    # The merged digest equals a whole-suite run's digest: same cases, same content.
    run(label="whole")
    whole = [f for f in run_files(root) if f.name.endswith("_whole.jsonl")][0]
    assert records(whole)[0]["suite_digest"] == header["suite_digest"]


def test_merged_shards_count_and_print_their_cases_in_review(tmp_path: Path) -> None:
    ids = ("price-fail", "price-pass", "price-review", "price-pass-2", "price-review-2")
    review_suite(tmp_path, ids)
    answers = {i: REVIEW_ANSWER if "review" in i else ANSWERS.get(i, PASS_ANSWER) for i in ids}
    for shard in ("1/2", "2/2"):
        assert run_review(tmp_path, answers, "--shard", shard).returncode in (1, 3)
    shards = sorted((tmp_path / "runs").glob("*.jsonl"))
    out = tmp_path / "merged.jsonl"
    p = invoke(tmp_path, "merge", ",".join(map(str, shards)), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "5 rows (2 pass, 1 fail, 2 in review, 0 error, 5 total)" in p.stdout
    assert summary(out)["counts"] == {"pass": 2, "fail": 1, "review": 2, "error": 0, "total": 5}
    review = sorted(r["case"] for r in rows(out) if r["status"] == "review")
    assert review == ["price-review", "price-review-2"]


def test_merge_refuses_different_stamps_missing_shards_and_overwrites(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 6)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run(shard="1/2", label="a")
    (root / "suite" / "prompt.txt").write_text("A different prompt.\n", encoding="utf-8")
    run(shard="2/2", label="b")
    a, b = run_files(root)
    try:
        merge_runs([a, b], root / "m.jsonl")
        raise AssertionError("merged runs with different prompts")
    except InputError as exc:
        text = "\n".join(exc.lines())
        assert "/prompt_sha" in text
    assert not (root / "m.jsonl").exists()
    try:
        merge_runs([a, a], root / "m.jsonl")
        raise AssertionError("merged a shard with itself")
    except InputError as exc:
        text = "\n".join(exc.lines())
        assert "the same file is given twice" in text and "2/2 missing" in text
        assert "also in" not in text  # one line for the repeated file, not one per case
    (root / "taken.jsonl").write_text("x\n")
    try:
        merge_runs([a, b], root / "taken.jsonl")
        raise AssertionError("overwrote a file")
    except InputError as exc:
        assert "already exists" in "\n".join(exc.lines())


def test_two_runs_of_the_same_shard_name_a_few_clashing_cases_and_count_the_rest(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 14)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run(shard="1/1", label="first")
    run(shard="1/1", label="again")
    a, b = run_files(root)
    try:
        merge_runs([a, b], root / "m.jsonl")
        raise AssertionError("merged two runs of the same shard")
    except InputError as exc:
        lines = exc.lines()
    assert sum("given twice" in x for x in lines) == 1
    assert sum(": also in " in x for x in lines) == 5
    assert any("and 9 more case(s) also in" in x for x in lines)
    assert not (root / "m.jsonl").exists()


def test_shards_that_left_out_different_rubric_only_cases_merge_and_name_them_all(
    tmp_path, monkeypatch
):
    from runkit import case, write_case

    root = make_project(tmp_path, 6)
    for i in range(6, 14):  # rubric-only cases: without --judge each shard leaves its own out
        data = case(i, expect={"rubric": "Gives the Pro price."})
        del data["retrieved"]
        write_case(root, data)
    use(monkeypatch, root, None)
    files = _shards(root, 2, models=["local/extractive@2026-11-01"])
    left = [records(f)[0]["settings"]["left_out"] for f in files]
    assert left[0] and left[1] and not set(left[0]) & set(left[1])
    out = root / "merged.jsonl"
    merge_runs(files, out)
    expected = sorted(f"case-{i:03d}" for i in range(6, 14))
    assert records(out)[0]["settings"]["left_out"] == expected
    assert summary(out)["not_graded"]["cases_left_out"] == expected
    assert len(rows(out)) == 6


def test_merge_with_suite_refuses_a_shard_of_another_suite(tmp_path: Path, monkeypatch) -> None:
    from diffkit import project, row, write_run

    from evals.cli import guarded
    from evals.run.merge import cmd_merge

    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    ours = "2026-11-01T10-00-00-000000Z_aaaaaaa"
    theirs = "2026-11-01T11-00-00-000000Z_aaaaaaa"
    a = write_run(tmp_path / "runs" / f"{ours}.jsonl", ours, [row(ours, "c0", "pass")])
    b = write_run(
        tmp_path / "runs" / f"{theirs}.jsonl", theirs, [row(theirs, "c1", "pass")], suite="other"
    )
    out = tmp_path / "merged.jsonl"
    assert guarded(lambda: cmd_merge([f"{a},{b}"], str(out), "evals")) == 2
    assert not out.exists()
    with pytest.raises(InputError) as err:
        cmd_merge([f"{a},{b}"], str(out), "evals")
    assert err.value.lines() == [f"{b}: line 1/suite: a shard of the suite other, not of evals"]


OFFLINE = ["local/extractive@2026-11-01"]


def _body(path: Path) -> tuple[list[dict], dict]:
    """A merged file's rows and summary without the merged run's id."""
    recs = records(path)
    rows_ = [{k: v for k, v in r.items() if k != "run_id"} for r in recs[1:-1]]
    return rows_, {k: v for k, v in recs[-1].items() if k != "run_id"}


def test_shards_given_in_any_order_with_rows_in_any_order_merge_to_the_same_rows(
    tmp_path, monkeypatch
):
    import evals.run.ordered

    root = make_project(tmp_path, 12)
    use(monkeypatch, root, None)
    files = _shards(root, 3, models=OFFLINE, epochs=2)
    merge_runs(files, root / "in-order.jsonl")
    expected = _body(root / "in-order.jsonl")
    assert [(r["epoch"], r["case"]) for r in expected[0]] == sorted(
        (e, f"case-{i:03d}") for e in (0, 1) for i in range(12)
    )
    # A shard whose rows finished in another order, and the shards given backwards, sorted
    # through chunks of a few rows each: the same rows, in the same order.
    lines = files[1].read_text("utf-8").splitlines(keepends=True)
    files[1].write_text("".join([lines[0], *reversed(lines[1:-1]), lines[-1]]), "utf-8")
    monkeypatch.setattr(evals.run.ordered, "CHUNK_BYTES", 3000)
    merge_runs(files[::-1], root / "backwards.jsonl")
    assert _body(root / "backwards.jsonl") == expected
    assert (
        records(root / "backwards.jsonl")[0]["suite_digest"]
        == records(root / "in-order.jsonl")[0]["suite_digest"]
    )
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("evals-merge-*/chunk-*"))


def test_clashing_cases_are_named_in_their_file_order_whatever_the_chunks(tmp_path, monkeypatch):
    import evals.run.ordered

    root = make_project(tmp_path, 14)
    use(monkeypatch, root, None)
    run(shard="1/1", label="first", models=OFFLINE)
    run(shard="1/1", label="again", models=OFFLINE)
    a, b = run_files(root)
    lines = b.read_text("utf-8").splitlines(keepends=True)
    b.write_text("".join([lines[0], *reversed(lines[1:-1]), lines[-1]]), "utf-8")
    found = []
    for size in (1 << 20, 2000):
        monkeypatch.setattr(evals.run.ordered, "CHUNK_BYTES", size)
        with pytest.raises(InputError) as exc:
            merge_runs([a, b], root / "m.jsonl")
        found.append(exc.value.lines())
    assert found[0] == found[1]
    named = [x for x in found[0] if ": also in " in x]
    # The first five of b's rows as b holds them (reversed), each against a.
    assert [x.split("case ")[1].split(":")[0] for x in named] == [
        f"case-{i:03d}" for i in range(13, 8, -1)
    ]
    assert any("and 9 more case(s) also in" in x for x in found[0])
