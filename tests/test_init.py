"""`invoke init DIR`: an empty suite in one command, never written over anything."""

from __future__ import annotations

import json
import re
from pathlib import Path

from casekit import invoke, make_project

from evals.judge.prompt import read_judge_prompt
from evals.suite.folder import SuiteSettings, load_suite_settings, open_suite
from evals.suite.scaffold import SUITE_TOML


def test_init_creates_a_suite_that_validates_and_takes_a_first_case(tmp_path: Path) -> None:
    make_project(tmp_path, [])
    r = invoke(tmp_path, "init", "support")
    assert r.returncode == 0, r.stderr
    suite = tmp_path / "support"
    assert sorted(p.name for p in suite.iterdir()) == [
        "cases",
        "judge_prompt.txt",
        "prompt.txt",
        "suite.toml",
    ]
    assert "invoke new my-first-case --suite support" in r.stdout
    # Everything commented out: the defaults, and the prompt the checks read.
    prompt = (suite / "prompt.txt").read_text("utf-8")
    assert load_suite_settings(suite) == SuiteSettings(prompt=prompt)
    assert read_judge_prompt(open_suite(suite)).text.startswith("You grade one reply")
    assert invoke(tmp_path, "validate", "--suite", "support").returncode == 0
    r = invoke(tmp_path, "new", "first", "--suite", "support")
    assert r.returncode == 0
    # The hint names the suite the case went into.
    assert "then run `invoke validate --suite support`" in r.stdout
    r = invoke(tmp_path, "validate", "--suite", "support")
    assert r.returncode == 0
    # A skeleton not filled in still validates, but is named until it is filled in.
    first = suite / "cases" / "first.json"
    assert "cases/first.json: /source: warning: still the placeholder of `invoke new`" in r.stderr
    assert "; 1 case(s) not filled in" in r.stdout
    data = json.loads(first.read_text("utf-8"))
    data.update(
        source="ticket 4411, 2026-11-30",
        question="Can I pause my plan for a month?",
        retrieved=[{"ref": "plans#pause", "text": "A plan can be paused for up to 30 days."}],
        expect={"facts": ["paused for up to 30 days"], "sources": ["plans#pause"]},
        reference="Yes: a plan can be paused for up to 30 days [doc:plans#pause].",
        known_wrong=[{"draft": "A plan cannot be paused.", "why": "It can."}],
    )
    first.write_text(json.dumps(data), encoding="utf-8")
    r = invoke(tmp_path, "validate", "--suite", "support")
    assert r.returncode == 0 and "placeholder" not in r.stderr and "not filled" not in r.stdout


def test_init_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path: Path) -> None:
    make_project(tmp_path, [])
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine\n", encoding="utf-8")
    r = invoke(tmp_path, "init", "taken")
    assert r.returncode == 2
    assert r.stderr.strip().endswith("already exists; a new suite is not written over it")
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]
    (tmp_path / "empty").mkdir()
    assert invoke(tmp_path, "init", "empty").returncode == 0
    assert invoke(tmp_path, "init", "empty").returncode == 2  # the second time it is taken


def test_the_commented_settings_show_the_defaults(tmp_path: Path) -> None:
    # Uncommenting every setting as written changes nothing: the comments cannot drift from
    # the code, the built-in refusal phrases and the calibration floors included.
    settings = re.compile(r"# ([a-z_]+ = .*|\[calibration\]|  +\".*\",|\])$")
    head = SUITE_TOML.split("# Settings for the suite's own")[0]
    lines = [m.group(1) for x in head.splitlines() if (m := settings.match(x))]
    (tmp_path / "suite.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert sum(" = " in x for x in lines) == 11, lines  # own_action, dropped_condition too
    assert "[calibration]" in lines
    assert load_suite_settings(tmp_path) == SuiteSettings()
    assert len(SuiteSettings().refusal_phrases) > 5  # the whole list is written out


def test_the_refusal_phrase_list_shows_every_built_in_phrase() -> None:
    for phrase in SuiteSettings().refusal_phrases:
        assert f'#   "{phrase}",' in SUITE_TOML, phrase


def test_init_with_suite_says_it_takes_the_folder_bare(tmp_path: Path) -> None:
    make_project(tmp_path, [])
    r = invoke(tmp_path, "init", "--suite", "support")
    assert r.returncode == 2
    assert "invoke init DIR" in r.stderr and not (tmp_path / "support").exists()
