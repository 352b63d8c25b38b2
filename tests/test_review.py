"""`invoke review` on scratch git repositories with a history of case edits."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from casekit import GIT_ENV, good_case, invoke, make_project, write_case

from evals.review.changes import build_review, resolve_base


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=True,
    )
    return proc.stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def simple(case_id: str, **expect: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "question": f"Question for {case_id}?",
        "expect": expect or {"facts": ["x"]},
    }


def new_repo(tmp_path: Path, cases: list[dict[str, Any]]) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    suite = make_project(repo, cases)
    commit(repo, "base")
    return repo, suite


def sections(md: str) -> dict[str, list[str]]:
    """Markdown lines grouped under their `###` heading."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in md.splitlines():
        if line.startswith("### "):
            current = line[4:]
            out[current] = []
        elif line.strip():
            out.setdefault(current, []).append(line)
    return out


def heading(md: str, prefix: str) -> str:
    return next(h for h in sections(md) if h.startswith(prefix))


def review(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return invoke(repo, "review", *args, env=GIT_ENV)


def test_lists_exactly_added_removed_renamed_and_changed_cases_over_a_history(tmp_path):
    cases = [
        simple("refund", facts=["30 days"]),
        simple("old-name", facts=["45 €"]),
        simple("edited-twice", facts=["a"]),
        simple("gone", facts=["g"]),
        simple("untouched", facts=["u"]),
        simple("shifty", facts=["s"]),
    ]
    repo, suite = new_repo(tmp_path, cases)
    git(repo, "checkout", "-q", "-b", "feature")
    write_case(suite, simple("refund", facts=["14 days"]))
    commit(repo, "shorter refund window")
    data = json.loads((suite / "cases" / "old-name.json").read_text())
    (suite / "cases" / "old-name.json").unlink()
    write_case(suite, {**data, "id": "new-name"})
    commit(repo, "rename")
    write_case(suite, simple("edited-twice", facts=["b"]))
    commit(repo, "edit")
    write_case(suite, simple("edited-twice", facts=["a"]))
    commit(repo, "revert the edit")
    (suite / "cases" / "gone.json").unlink()
    write_case(suite, simple("brand-new", facts=["n"]))
    # Same content, different layout: a reformat, not a change.
    (suite / "cases" / "shifty.json").write_text(json.dumps(simple("shifty", facts=["s"])))
    commit(repo, "add and delete")
    # main moves on after the branch point: its new case is not part of this change.
    git(repo, "checkout", "-q", "main")
    write_case(suite, simple("main-only"))
    commit(repo, "on main")
    git(repo, "checkout", "-q", "feature")

    proc = review(repo)
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    cases_lines = sections(md)["Cases"]
    assert "- **Added (1)**: `brand-new`" in cases_lines
    assert "- **Removed (1)**: `gone`" in cases_lines
    assert "- `old-name` → `new-name`: same content" in cases_lines
    changed = [line for line in cases_lines if line.startswith("- `") and "→" not in line]
    assert changed == ["- `refund`"]
    assert '  - `expect.facts: - "30 days" + "14 days"`' in cases_lines
    assert any("Reformatted only" in line and "`shifty`" in line for line in cases_lines)
    for absent in ("main-only", "untouched", "edited-twice"):
        assert absent not in md

    top = repo.resolve()
    rv = build_review(resolve_base(None, top), top, suite, repo / "runs", repo / "schemas")
    kinds = {(c.kind, c.id) for c in rv.cases}
    assert kinds == {
        ("added", "brand-new"),
        ("removed", "gone"),
        ("renamed", "new-name"),
        ("changed", "refund"),
        ("reformatted", "shifty"),
    }


def test_every_weakened_expectation_is_listed_first_and_tightening_is_not(tmp_path):
    base = [
        simple("facts", facts=["30 days", "full refund"]),
        simple("mentions", mentions=[r"\b45\s?€"]),
        simple("forbidden", facts=["x"], must_not_contain=["39 €"]),
        good_case("sources"),
        simple("abstain", abstain=True),
        {**simple("checks", facts=["x"], max_words=50), "checks": ["facts_present", "max_words"]},
        simple("words", facts=["x"], max_words=40),
        {**simple("drafts", facts=["x"]), "known_wrong": [{"draft": "wrong", "why": "no"}]},
        simple("deleted", facts=["d"]),
        simple("tightened", facts=["x"]),
    ]
    repo, suite = new_repo(tmp_path, base)
    write_case(suite, simple("facts", facts=["30 days"]))
    write_case(suite, simple("mentions", facts=["45"]))
    write_case(suite, simple("forbidden", facts=["x"]))
    src = good_case("sources")
    src["expect"] = {k: v for k, v in src["expect"].items() if k != "sources"}
    write_case(suite, src)
    write_case(suite, simple("abstain", abstain=False))
    write_case(suite, {**simple("checks", facts=["x"], max_words=50), "checks": ["facts_present"]})
    write_case(suite, simple("words", facts=["x"], max_words=400))
    write_case(suite, simple("drafts", facts=["x"]))
    (suite / "cases" / "deleted.json").unlink()
    write_case(suite, simple("tightened", facts=["x", "y"], max_words=30))
    commit(repo, "loosen")

    proc = review(repo, "--base", "HEAD~1")
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    titles = [t for t in sections(md) if t]
    assert titles[0].startswith("WEAKENED expectations")
    assert titles.index(heading(md, "WEAKENED")) < titles.index("Cases")
    weak = "\n".join(sections(md)[heading(md, "WEAKENED")])
    expected = {
        "facts": 'fact removed "full refund"',
        "mentions": 'mention pattern removed "\\\\b45\\\\s?€"',
        "forbidden": 'forbidden phrase removed "39 €"',
        "sources": 'source removed "pricing#plans"',
        "abstain": "expect.abstain flipped: true -> false",
        "checks": "check(s) dropped from `checks`: max_words",
        "words": "expect.max_words loosened: 40 -> 400",
        "drafts": 'known_wrong: 1 draft(s) removed: "wrong"',
        "deleted": "case deleted",
    }
    for case_id, text in expected.items():
        assert f"`{case_id}`" in weak, case_id
        assert text in weak, text
    assert "tightened" not in weak
    assert heading(md, "WEAKENED") == f"WEAKENED expectations ({len(weak.splitlines()) - 2})"

    fails = review(repo, "--base", "HEAD~1", "--fail-on-weakened")
    assert fails.returncode == 1


def test_fail_on_weakened_passes_when_only_tightened(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("a", facts=["x"])])
    write_case(suite, simple("a", facts=["x", "y"]))
    write_case(suite, simple("b", facts=["z"]))
    commit(repo, "tighten")
    proc = review(repo, "--base", "HEAD~1", "--fail-on-weakened")
    assert proc.returncode == 0, proc.stdout
    assert "WEAKENED expectations (0)" in proc.stdout


def test_touched_sealed_pile_prompt_baseline_and_runs_are_reported(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("a")])
    (suite / "sealed").mkdir()
    (suite / "sealed" / "MANIFEST.json").write_text('{"cases": 3}\n')
    (repo / "runs").mkdir()
    (repo / "runs" / "old.jsonl").write_text('{"kind":"run"}\n')
    commit(repo, "seal")
    old_prompt = (suite / "prompt.txt").read_bytes()
    (suite / "sealed" / "MANIFEST.json").write_text('{"cases": 2}\n')
    (suite / "prompt.txt").write_text("Be exact and brief.\n")
    (repo / "runs" / "new.jsonl").write_text('{"kind":"run"}\n')
    (repo / "runs" / "BASELINE").write_text("new.jsonl\n")
    commit(repo, "touch everything")

    md = review(repo, "--base", "HEAD~1").stdout
    titles = [t for t in sections(md) if t]
    alarm = heading(md, "ALARM")
    assert titles.index(alarm) == 1  # right after the weakened section
    assert any("suite/sealed/MANIFEST.json" in line for line in sections(md)[alarm])
    assert "sealed pile CHANGED" in md
    old_sha = hashlib.sha256(old_prompt).hexdigest()[:12]
    new_sha = hashlib.sha256(b"Be exact and brief.\n").hexdigest()[:12]
    prompts = sections(md)["Prompts"]
    assert prompts == [f"- `suite/prompt.txt` modified: `{old_sha}` → `{new_sha}` (+1 −1 lines)"]
    runs = "\n".join(sections(md)["Run files"])
    assert "`runs/new.jsonl` added" in runs
    assert "`runs/BASELINE`: `(none)` → `new.jsonl`" in runs
    assert "old.jsonl" not in runs


def test_untouched_sealed_pile_raises_no_alarm(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("a")])
    (suite / "sealed").mkdir()
    (suite / "sealed" / "MANIFEST.json").write_text("{}\n")
    commit(repo, "seal")
    write_case(suite, simple("b"))
    commit(repo, "add")
    md = review(repo, "--base", "HEAD~1").stdout
    assert "ALARM" not in md and "sealed" not in md


def test_uncommitted_edits_and_untracked_cases_count_as_the_change(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("a", facts=["x"])])
    write_case(suite, simple("a", facts=["y"]))
    write_case(suite, simple("draft-case"))
    md = review(repo).stdout  # on main: the base is HEAD itself
    assert "- **Added (1)**: `draft-case`" in md
    assert '`expect.facts: - "x" + "y"`' in md


def test_validation_problems_of_changed_files_only(tmp_path):
    bad_old = simple("legacy")
    repo, suite = new_repo(tmp_path, [simple("a"), bad_old])
    # An unchanged file with a problem is not this change's problem.
    (suite / "cases" / "legacy.json").write_text(json.dumps({**bad_old, "id": "Legacy"}))
    commit(repo, "legacy problem")
    write_case(suite, {**simple("b"), "id": "b-wrong"}, name="b")
    (suite / "cases" / "a.json").write_text('{"id": "a", ')
    commit(repo, "bad cases")
    md = review(repo, "--base", "HEAD~1").stdout
    problems = sections(md)[heading(md, "Validation problems")]
    assert len(problems) == 2
    assert "suite/cases/a.json: /: invalid JSON at line 1" in problems[0]
    assert "suite/cases/b.json: /id: id 'b-wrong' must equal the file stem 'b'" in problems[1]
    assert any(line.startswith("- `a`: now: unreadable") for line in sections(md)["Cases"])


def test_a_case_moved_and_edited_is_removed_plus_added_not_a_rename(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("old", facts=["a", "b"])])
    (suite / "cases" / "old.json").unlink()
    write_case(suite, {**simple("old", facts=["a"]), "id": "fresh"})
    commit(repo, "rename and loosen")
    md = review(repo, "--base", "HEAD~1").stdout
    assert "- **Removed (1)**: `old`" in md
    assert "- **Added (1)**: `fresh`" in md
    assert "`old`: `case deleted (it required facts: 2; checks: facts_present)`" in md
    assert "Renamed" not in md


def test_unknown_base_is_bad_input(tmp_path):
    repo, _ = new_repo(tmp_path, [simple("a")])
    proc = review(repo, "--base", "no-such-branch")
    assert proc.returncode == 2
    assert "unknown ref 'no-such-branch'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_default_base_falls_back_to_parent_then_explains(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "trunk")
    suite = make_project(repo, [simple("a")])
    commit(repo, "one")
    proc = review(repo)
    assert proc.returncode == 2
    assert "no base to compare with" in proc.stderr and "--base" in proc.stderr
    write_case(suite, simple("b"))
    commit(repo, "two")
    proc = review(repo)
    assert proc.returncode == 0, proc.stderr
    assert "HEAD~1" in proc.stdout and "- **Added (1)**: `b`" in proc.stdout


@pytest.mark.timeout(60)
def test_works_on_a_shallow_clone_with_the_base_fetched(tmp_path):
    origin, suite = new_repo(tmp_path, [simple("a", facts=["x"]), simple("b")])
    for i in range(3):  # history the shallow clone will not have
        write_case(suite, simple(f"c{i}"))
        commit(origin, f"c{i}")
    git(origin, "checkout", "-q", "-b", "feature")
    write_case(suite, simple("a", facts=["y"]))
    (suite / "cases" / "b.json").unlink()
    commit(origin, "pr")
    clone = tmp_path / "clone"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        "--branch",
        "feature",
        f"file://{origin}",
        str(clone),
    )
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    proc = review(clone, "--base", "origin/main")
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    assert "no merge base" in md
    assert "- **Removed (1)**: `b`" in md
    assert '`expect.facts: - "x" + "y"`' in md
    assert "Added" not in md and "`c0`" not in md

    # The same with the base fetched by commit id, as CI does with the PR's base sha.
    sha = git(origin, "rev-parse", "main")
    clone2 = tmp_path / "clone2"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        "--branch",
        "feature",
        f"file://{origin}",
        str(clone2),
    )
    git(clone2, "fetch", "-q", "--depth", "1", "origin", sha)
    proc = review(clone2, "--base", sha)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("- **Removed (1)**: `b`") == 1
    assert f"Base: `{sha[:12]}`" in proc.stdout


def test_field_level_diff_of_question_retrieval_checks_reference_and_drafts(tmp_path):
    before = good_case("price-pro")
    repo, suite = new_repo(tmp_path, [before])
    after = json.loads(json.dumps(before))
    after["question"] = "What does a Pro seat cost?"
    after["retrieved"][0]["text"] = (
        "Starter: 39 € per seat and month. Pro: 49 € per seat and month."
    )
    after["retrieved"].append({"ref": "pricing#faq", "text": "Prices are per month."})
    after["checks"] = ["mentions_expected", "no_forbidden", "sources_cited", "citations_resolve"]
    after["reference"] = "An extra Pro seat costs 49 € a month [doc:pricing#plans]."
    after["known_wrong"].append({"draft": "It is free.", "why": "Not free"})
    after["known_right"] = [{"draft": "Pro is €49 a month [doc:pricing#plans].", "why": "terse"}]
    write_case(suite, after)
    commit(repo, "edit")
    md = review(repo, "--base", "HEAD~1").stdout
    lines = sections(md)["Cases"]
    q_old, q_new = (
        json.dumps(before["question"], ensure_ascii=False),
        '"What does a Pro seat cost?"',
    )
    assert f"  - `question: - {q_old} + {q_new}`" in lines
    assert '  - `retrieved[].ref: + "pricing#faq"`' in lines
    assert (
        '  - `retrieved[pricing#plans].text: - "Starter: 39 € per seat and month. Pro: 45 € per '
        'seat and month." + "Starter: 39 € per seat and month. Pro: 49 € per seat and month."`'
    ) in lines
    assert (
        '  - `checks: + "mentions_expected" + "no_forbidden" + "sources_cited" + "citations_resolve"`'
    ) in lines
    assert any(line.startswith("  - `reference: - ") and "49 €" in line for line in lines)
    assert '  - `known_wrong[].draft: + "It is free."`' in lines
    assert '  - `known_right[].draft: + "Pro is €49 a month [doc:pricing#plans]."`' in lines
    weak = "\n".join(sections(md)[heading(md, "WEAKENED")])
    # `checks` now lists fewer checks than the expect fields implied: that loosens the case.
    assert (
        "check(s) dropped from `checks`: retrieval_recall, citation_precision, no_unsourced_number"
        in weak
    )


def test_sealed_ledger_appends_are_told_apart_from_a_reset_budget(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("a")])
    ledger = suite / "sealed" / "LEDGER.jsonl"
    ledger.parent.mkdir()
    ledger.write_text('{"run": 1}\n')
    commit(repo, "one sealed run")
    ledger.write_text('{"run": 1}\n{"run": 2}\n{"run": 3}\n')
    commit(repo, "two more")
    md = review(repo, "--base", "HEAD~1").stdout
    (line,) = sections(md)[heading(md, "ALARM")][1:]
    assert line.endswith(": 2 sealed run(s) recorded (appended)")
    ledger.write_text('{"run": 3}\n')
    commit(repo, "forget two runs")
    md = review(repo, "--base", "HEAD~1").stdout
    (line,) = sections(md)[heading(md, "ALARM")][1:]
    assert "ledger records removed or rewritten: the pile's query budget was reset" in line


def test_a_moved_and_edited_case_points_to_its_new_id_without_becoming_a_rename(tmp_path):
    repo, suite = new_repo(tmp_path, [simple("old", facts=["a", "b"]), simple("other")])
    (suite / "cases" / "old.json").unlink()
    moved = simple("fresh", facts=["a"])
    moved["question"] = "Question for old? Thanks!"
    write_case(suite, moved)
    commit(repo, "move and loosen")
    md = review(repo, "--base", "HEAD~1").stdout
    assert "- **Removed (1)**: `old` (moved and edited? see fresh)" in md
    assert "- **Added (1)**: `fresh` (like removed old)" in md
    assert "Renamed" not in md


def test_unknown_base_tells_how_to_fetch_it_into_a_single_branch_clone(tmp_path):
    repo, _ = new_repo(tmp_path, [simple("a")])
    proc = review(repo, "--base", "origin/main")
    assert proc.returncode == 2
    assert "git fetch --depth 1 origin BRANCH:refs/remotes/origin/BRANCH" in proc.stderr


def test_removing_the_revealed_marker_is_a_weakening(tmp_path):
    repo, suite = new_repo(tmp_path, [{**simple("once-sealed"), "revealed": "2026-10-01"}])
    write_case(suite, simple("once-sealed"))
    commit(repo, "forget it was sealed")
    md = review(repo, "--base", "HEAD~1").stdout
    weak = sections(md)[heading(md, "WEAKENED")]
    assert weak[-1] == (
        "- `once-sealed`: `revealed marker removed: a case once unsealed must never be sealed again`"
    )


def test_an_added_case_still_holding_the_skeleton_is_named_as_not_filled_in(tmp_path):
    from evals.suite.casefiles import skeleton

    repo, suite = new_repo(tmp_path, [simple("a")])
    write_case(suite, skeleton("refund-late"))
    md = review(repo).stdout
    assert (
        "- **Added (1)**: `refund-late` (not filled in: still the placeholder text of `invoke new`)"
        in md
    )
