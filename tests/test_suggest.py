"""`invoke calibrate --checks --suggest`: each disagreement turned into an edit of the suite,
offered only when it breaks no other labelled answer, written only with --apply."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke, make_project

from evals.calibrate.command import cmd_suggest
from evals.calibrate.edits import Edit, add_phrasing, add_to
from evals.calibrate.grading import calibrate_checks
from evals.calibrate.suggest import Proposal, begin, compose
from evals.suite.folder import Suite

FACT = "the trial lasts 14 days"


def trial_case(**expect: Any) -> dict[str, Any]:
    return {
        "id": "trial-length",
        "category": "billing",
        "question": "How long is the free trial?",
        "expect": {"facts": [FACT], **expect},
        "reference": "The trial lasts 14 days.",
    }


def labelled(suite: Path, *rows: tuple[str, str]) -> Path:
    """Write the answers, each (answer, label), as labelled/people.jsonl."""
    (suite / "labelled").mkdir(exist_ok=True)
    path = suite / "labelled" / "people.jsonl"
    lines = [
        json.dumps({"case": "trial-length", "answer": a, "label": label, "why": "read by a person"})
        for a, label in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def snapshot(suite: Path) -> dict[str, bytes]:
    return {str(p.relative_to(suite)): p.read_bytes() for p in suite.rglob("*") if p.is_file()}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    s = make_project(tmp_path, [trial_case()], prompt="Answer briefly. At most 40 words.\n")
    labelled(
        s,
        ("Your trial runs two weeks. After that you pick a plan.", "pass"),
        ("The trial lasts 30 days.", "fail"),
    )
    return s


def test_a_correct_answer_that_misses_a_fact_gets_its_phrasing_proposed(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(suite)
    assert cmd_suggest(str(suite), write=False) == 0
    out = capsys.readouterr().out
    assert "--- a/cases/trial-length.json" in out
    assert "+++ b/cases/trial-length.json" in out
    # The fact becomes a list of phrasings: its own, and the answer's words for it (no
    # leading "Your": a phrasing starts on a word that carries meaning).
    assert f'-      "{FACT}"' in out
    assert '+        "trial runs two weeks"' in out
    assert "fixes: labelled/people.jsonl:1" in out
    assert "1 change(s) offered, fixing 1 labelled answer(s)" in out
    assert "nothing written" in out
    assert snapshot(suite) == before  # without --apply, nothing is written


def test_apply_writes_the_change_and_calibration_then_agrees(tmp_path: Path, suite: Path) -> None:
    assert calibrate_checks(Suite(suite)).of_kind("false_alarm")
    proc = invoke(tmp_path, "calibrate", "--checks", "--suggest", "--apply")
    assert proc.returncode == 0, proc.stderr
    assert "written: cases/trial-length.json" in proc.stdout
    data = json.loads((suite / "cases" / "trial-length.json").read_text("utf-8"))
    assert data["expect"]["facts"] == [[FACT, "trial runs two weeks"]]
    after = calibrate_checks(Suite(suite))
    assert [g.kind for g in after.graded] == ["agree", "agree", "agree"]


def test_a_change_that_would_let_a_wrong_answer_pass_is_not_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case()])
    labelled(
        s,
        ("Your trial runs two weeks.", "pass"),
        # Wrong (the card), and caught today only because the fact is missing: the phrasing
        # "Your trial runs two weeks" would let it pass.
        ("Your trial runs two weeks. You must enter a credit card first.", "fail"),
    )
    before = snapshot(s)
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "---" not in out
    assert "0 change(s) offered" in out
    assert "labelled/people.jsonl:1 (trial-length, labelled pass, checks say fail)" in out
    assert snapshot(s) == before


def test_a_fact_with_three_phrasings_gets_a_synonym_instead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fact = [FACT, "the trial runs 14 days", "the trial is 14 days long"]
    s = make_project(tmp_path, [trial_case(facts=[fact])])
    (s / "synonyms.toml").write_text('groups = [\n  ["plan", "tier"],\n]\n', encoding="utf-8")
    labelled(s, ("The trial endures 14 days.", "pass"))
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "+++ b/synonyms.toml" in out
    assert '+  ["lasts", "endures"],' in out
    text = (s / "synonyms.toml").read_text("utf-8")
    assert text == 'groups = [\n  ["plan", "tier"],\n  ["lasts", "endures"],\n]\n'
    assert not calibrate_checks(Suite(s)).of_kind("false_alarm")


def test_a_wrong_answer_that_passed_gets_a_forbidden_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case()])
    labelled(s, ("The trial lasts 14 days and then costs 99 € a month.", "fail"))
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "expect.forbidden_figures: add '99 €'" in out
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    assert data["expect"]["forbidden_figures"] == ["99 €"]
    assert not calibrate_checks(Suite(s)).of_kind("miss")


def test_max_words_is_loosened_to_what_the_prompt_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case(max_words=8)], prompt="At most 20 words.\n")
    labelled(s, ("Good question: the trial lasts 14 days, and you can cancel it any time.", "pass"))
    cmd_suggest(str(s), write=True)
    assert "expect.max_words: 20, as the prompt allows" in capsys.readouterr().out
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    assert data["expect"]["max_words"] == 20


def test_apply_without_suggest_and_suggest_without_checks_are_input_errors(
    tmp_path: Path, suite: Path
) -> None:
    for args in (("--checks", "--apply"), ("--suggest",)):
        proc = invoke(tmp_path, "calibrate", *args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr


def test_a_word_a_case_expects_is_not_offered_as_a_synonym(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fact = [FACT, "the trial runs 14 days", "the trial is 14 days long"]
    other = {**trial_case(facts=["the contract endures a year"]), "id": "contract-length"}
    s = make_project(tmp_path, [trial_case(facts=[fact]), other])
    labelled(s, ("The trial endures 14 days.", "pass"))
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "synonyms.toml" not in out
    assert not (s / "synonyms.toml").exists()


def test_a_fact_at_three_phrasings_worded_apart_gets_a_fourth_said_to_be_past_the_usual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fact = [FACT, "the trial runs 14 days", "the trial is 14 days long"]
    s = make_project(tmp_path, [trial_case(facts=[fact])])
    # Two of the fact's words are missing ("trial", "lasts"): no one-word synonym says it.
    labelled(s, ("You may evaluate Pro for free during 14 days.", "pass"))
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "its 4th phrasing, past the usual 3" in out
    assert "synonyms.toml" not in out
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    added = data["expect"]["facts"][0][3]
    assert "14" in added and len(added.split()) <= 6
    assert all(g.kind == "agree" for g in calibrate_checks(Suite(s)).graded)


def test_a_correct_answer_in_review_gets_the_words_that_state_the_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case()])
    answer = "Good news [doc:trial#overview]: the 14 days of the trial are free."
    labelled(s, (answer, "pass"))
    assert [g.kind for g in calibrate_checks(Suite(s)).graded] == ["agree", "review"]
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    added = data["expect"]["facts"][0][1]
    # Cut from the answer: no citation marker, no leading "the", the fact's number kept.
    assert "[" not in added and not added.lower().startswith("the ") and "14" in added
    assert f"add the phrasing {added!r}" in out
    assert all(g.kind == "agree" for g in calibrate_checks(Suite(s)).graded)


def test_a_phrasing_of_the_opposite_polarity_is_never_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = {
        **trial_case(facts=["archived employees are not billed"]),
        "id": "archived",
        "question": "Do we pay for archived employees?",
        "reference": "No: archived employees are not billed.",
    }
    s = make_project(tmp_path, [case])
    # Correct (they are not billed once archived), but its only words near the fact say
    # "billed" without a negation: "removed employees are billed" would read as the fact.
    row = {
        "case": "archived",
        "answer": "Archive them: removed employees are billed until month end, archived ones drop out.",
        "label": "pass",
        "why": "read by a person",
    }
    (s / "labelled").mkdir()
    (s / "labelled" / "people.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    before = snapshot(s)
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "0 change(s) offered" in out
    assert "labelled/people.jsonl:1 (archived, labelled pass" in out
    assert snapshot(s) == before


def test_edits_to_one_fact_compose_into_one_diff_that_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case()])
    labelled(
        s,
        ("Your trial runs two weeks.", "pass"),
        ("You get 14 days to test everything.", "pass"),
        ("The trial lasts 30 days.", "fail"),
    )
    cmd_suggest(str(s), write=False)
    out = capsys.readouterr().out
    assert out.count("--- a/cases/trial-length.json") == 1
    assert out.count("# trial-length: expect.facts[0]: add the phrasing") == 2
    # The printed diff is a patch of the suite as it is: git applies it.
    patch = out[out.index("--- a/") : out.index("2 change(s) offered")]
    (tmp_path / "edits.patch").write_text(patch, encoding="utf-8")
    proc = subprocess.run(
        ["git", "apply", "--directory=suite", str(tmp_path / "edits.patch")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    assert len(data["expect"]["facts"][0]) == 3
    assert all(g.kind == "agree" for g in calibrate_checks(Suite(s)).graded)


def test_a_wrong_answer_gets_a_short_forbidden_claim_no_correct_answer_makes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_project(tmp_path, [trial_case()])
    labelled(
        s,
        ("The trial lasts 14 days, and after it the account stays as it is.", "pass"),
        (
            "The trial lasts 14 days, and after it the account switches to Starter by itself.",
            "fail",
        ),
    )
    assert [g.kind for g in calibrate_checks(Suite(s)).graded] == ["agree", "agree", "miss"]
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    data = json.loads((s / "cases" / "trial-length.json").read_text("utf-8"))
    [claim] = data["expect"]["must_not_contain"]
    # The words that say what is wrong, not the whole clause (whose "trial lasts 14 days" and
    # "after it the account" the correct answer says too).
    assert "Starter" in claim and len(claim.split()) <= 4, claim
    assert "trial" not in claim and "account" not in claim
    assert f"expect.must_not_contain: add {claim!r}" in out
    assert all(g.kind == "agree" for g in calibrate_checks(Suite(s)).graded)


def test_edits_that_together_break_an_answer_are_not_all_written(suite: Path) -> None:
    start = begin(Suite(suite))
    target = "labelled/people.jsonl:1"  # "Your trial runs two weeks. ..." (correct)
    phrasing = Edit(
        "phrasing", "trial-length", lambda d: add_phrasing(d, "facts", 0, "trial runs two weeks")
    )
    # Drawn on another footing, it would forbid the very words the phrasing accepts.
    claim = Edit("claim", "trial-length", lambda d: add_to(d, "must_not_contain", "runs two weeks"))
    graded = start.grade()[target]
    chosen = [
        (phrasing, Proposal("phrasing", Path(), [target]), graded),
        (claim, Proposal("claim", Path()), graded),
    ]
    kept, dropped = compose(start, chosen)
    assert [e.what for e, _, _ in kept] == ["phrasing"]
    assert dropped == [graded]
    assert compose(start, chosen[:1]) == (chosen[:1], [])


# -- --apply: every file or none, never through a link ---------------------------------------


def two_case_suite(tmp_path: Path) -> Path:
    """Two cases whose correct answers each miss their fact: two case files to change, the
    second much longer than the first."""
    long = {**trial_case(), "id": "trial-zz-long", "question": "How long is the trial? " * 60}
    s = make_project(tmp_path, [trial_case(), long])
    (s / "labelled").mkdir()
    answer = "Your trial runs two weeks. After that you pick a plan."
    lines = [
        json.dumps({"case": cid, "answer": answer, "label": "pass", "why": "read by a person"})
        for cid in ("trial-length", "trial-zz-long")
    ]
    (s / "labelled" / "people.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return s


def test_apply_on_a_full_disk_writes_no_file_and_exits_3_naming_the_one_that_failed(
    tmp_path: Path,
) -> None:
    from limitkit import invoke_with_file_limit

    s = two_case_suite(tmp_path)
    before = snapshot(s)
    dry = invoke(tmp_path, "calibrate", "--checks", "--suggest")
    assert "2 change(s) offered" in dry.stdout, dry.stdout
    # Room for the short case file, not for the long one.
    limit = (s / "cases" / "trial-length.json").stat().st_size + 200
    proc = invoke_with_file_limit(
        tmp_path, "calibrate", "--checks", "--suggest", "--apply", limit=limit
    )
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"could not write {s / 'cases' / 'trial-zz-long.json'}" in proc.stderr
    assert "nothing written" in proc.stderr and "written:" not in proc.stdout
    assert snapshot(s) == before  # no case file changed, cut or left beside


KILLER = """
import os, signal, sys
from pathlib import Path
from evals.calibrate.suggest import apply, suggest
from evals.suite.folder import open_suite

cases = str(Path(sys.argv[1]) / "cases")
opened = []

def hook(event, args):
    # Killed as the second case file is opened for writing (in place, or beside it).
    writing = os.O_WRONLY | os.O_RDWR
    if event == "open" and str(args[0]).startswith(cases) and (args[2] or 0) & writing:
        opened.append(args[0])
        if len(opened) == 2:
            os.kill(os.getpid(), signal.SIGKILL)


found = suggest(open_suite(sys.argv[1]))
sys.addaudithook(hook)
apply(found)
"""


def test_apply_killed_mid_write_leaves_every_case_file_as_it_was(tmp_path: Path) -> None:
    s = two_case_suite(tmp_path)
    cases_before = {p.name: p.read_bytes() for p in (s / "cases").glob("*.json")}
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(s)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -9, proc.stderr
    assert {p.name: p.read_bytes() for p in (s / "cases").glob("*.json")} == cases_before
    assert invoke(tmp_path, "validate").returncode == 0


def test_apply_refuses_a_linked_synonyms_file_and_writes_nothing(tmp_path: Path) -> None:
    fact = [FACT, "a trial of 14 days", "14 days of trial"]
    s = make_project(tmp_path, [trial_case(facts=[fact])])
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('groups = [\n  ["plan", "tier"],\n]\n', encoding="utf-8")
    (s / "synonyms.toml").symlink_to(elsewhere)
    labelled(s, ("The trial endures 14 days.", "pass"))
    proc = invoke(tmp_path, "calibrate", "--checks", "--suggest", "--apply")
    assert proc.returncode == 2, proc.stderr
    assert f"{s / 'synonyms.toml'}: /: a symbolic link: refused" in proc.stderr
    assert elsewhere.read_text("utf-8") == 'groups = [\n  ["plan", "tier"],\n]\n'


def test_a_stop_word_or_a_word_of_another_facts_meaning_is_never_offered_as_a_synonym(
    tmp_path: Path,
) -> None:
    from evals.calibrate.edits import for_correct
    from evals.calibrate.suggest import where

    retention = {
        "id": "retention",
        "category": "privacy",
        "question": "When is my data deleted after I cancel?",
        "expect": {
            "facts": [
                [
                    "data is deleted after 30 days",
                    "deleted 30 days after cancelling",
                    "30 days until deletion",
                ]
            ]
        },
        "reference": "Your data is deleted after 30 days.",
    }
    # Another case's fact means "gone": that word is no synonym of "deleted" either.
    export = {**trial_case(facts=["the export is gone"]), "id": "export-gone"}
    s = make_project(tmp_path, [retention, export])
    (s / "labelled").mkdir()
    rec = {"case": "retention", "answer": "Your data is gone within 30 days.", "label": "pass"}
    (s / "labelled" / "p.jsonl").write_text(json.dumps({**rec, "why": "read"}) + "\n", "utf-8")
    state = begin(Suite(s))
    (g,) = [g for g in state.grade().values() if where(g.item) == "labelled/p.jsonl:1"]
    offered = [e.what for e in for_correct(g, state.source()).edits]
    assert not [w for w in offered if w.startswith("synonyms.toml")], offered


def test_a_synonym_that_would_pass_a_wrong_answer_of_another_case_is_not_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fact = [FACT, "a trial of 14 days", "14 days of trial"]
    other = {**trial_case(facts=["the notice period lasts 30 days"]), "id": "notice-period"}
    s = make_project(tmp_path, [trial_case(facts=[fact]), other])
    (s / "labelled").mkdir()
    rows = [
        ("trial-length", "The trial endures 14 days.", "pass"),
        # Wrong by the person's reading, and failed today only for want of "lasts".
        ("notice-period", "The notice period endures 30 days.", "fail"),
    ]
    lines = [
        json.dumps({"case": c, "answer": a, "label": lab, "why": "read by a person"})
        for c, a, lab in rows
    ]
    (s / "labelled" / "people.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    cmd_suggest(str(s), write=True)
    out = capsys.readouterr().out
    assert "'endures' means 'lasts'" not in out
    assert not (s / "synonyms.toml").exists()
