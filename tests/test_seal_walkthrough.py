"""The sealed-pile walk-through in docs/sealing.md, run verbatim on a fresh copy of this project."""

from __future__ import annotations

import json
from pathlib import Path

from clonekit import bash, doc_block, fresh_copy, run_lines


def test_the_seal_walkthrough_works_verbatim_on_a_fresh_clone(tmp_path: Path) -> None:
    repo = fresh_copy(tmp_path / "clone")
    lines = doc_block("docs/sealing.md", "## Try it on the example suite")
    assert lines[0].startswith("export EVAL_SEAL_KEY=")
    assert any(" --allow-exposed" in line for line in lines)

    # Without the flag the seal is refused, naming the run file and the way forward.
    plain = [line.replace(" --allow-exposed", "") for line in lines[:2]]
    refused = bash("\n".join(plain), repo)
    assert refused.returncode == 2
    err = refused.stderr.splitlines()
    assert any("_baseline-offline.jsonl" in e and "a run file" in e for e in err)
    assert err[-1].endswith("invoke seal --fraction 0.2 --seed 7 --allow-exposed")
    assert not (repo / "evals" / "sealed").exists()

    codes, done = run_lines(lines, repo)
    assert len(codes) == len(lines), done.stdout + done.stderr
    assert codes[:2] == [0, 0], done.stdout + done.stderr
    # 1: cases failed. The last line, calibrate --checks on the visible cases only, may be
    # 3: with the sealed cases' answers out, a floor can lie within its figure's bounds.
    assert all(c in (0, 1) for c in codes[2:-1]), done.stdout + done.stderr
    assert codes[-1] in (0, 1, 3) and "Traceback" not in done.stderr, done.stdout + done.stderr
    manifest = json.loads((repo / "evals" / "sealed" / "MANIFEST.json").read_text("utf-8"))
    assert manifest["exposed"] == manifest["n"] > 0
    assert "gap: visible" in done.stdout
    # validate and calibrate --checks leave the sealed cases' labelled answers out, with one
    # note each, instead of a line per answer calling its case unknown.
    assert lines[-2].startswith("invoke validate ") and lines[-1].startswith("invoke calibrate ")
    assert codes[-2] == 0, done.stdout + done.stderr
    assert "unknown case" not in done.stdout + done.stderr
    assert (done.stdout + done.stderr).count("taken for answers of sealed cases") == 2
