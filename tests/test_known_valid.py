"""Case files found valid are remembered by their bytes and the rules they passed: a re-run
trusts exactly those bytes under exactly those rules, and validates anything else again."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from casekit import good_case, invoke, make_project, write_case

from evals.checks import known_valid
from evals.checks.known_valid import KNOWN_VALID, KnownValid, file_key, rules_digest
from evals.checks.loading import load_cases
from evals.errors import InputError
from evals.suite.folder import open_suite


def _store(tmp_path: Path) -> KnownValid:
    return KnownValid(tmp_path / ".evals-cache" / KNOWN_VALID)


def _stored(tmp_path: Path) -> dict[str, str]:
    db = sqlite3.connect(tmp_path / ".evals-cache" / KNOWN_VALID)
    try:
        return dict(db.execute("SELECT key, sha FROM valid_cases").fetchall())
    finally:
        db.close()


def _suite(tmp_path: Path, n: int = 3) -> Path:
    return make_project(tmp_path, [good_case(f"case-{i}") for i in range(n)])


def test_a_reload_gives_the_same_cases_as_a_full_validation(tmp_path: Path) -> None:
    suite = open_suite(_suite(tmp_path))
    full, _ = load_cases(suite)
    first, _ = load_cases(suite, known=_store(tmp_path))
    again, _ = load_cases(suite, known=_store(tmp_path))
    assert len(_stored(tmp_path)) == 3
    as_loaded = [(c.id, c.sha, c.data, c.path) for c in full]
    assert [(c.id, c.sha, c.data, c.path) for c in first] == as_loaded
    assert [(c.id, c.sha, c.data, c.path) for c in again] == as_loaded


def test_remembered_bytes_are_not_validated_again(tmp_path: Path) -> None:
    """The store is what decides: bytes it holds are taken as they are (so an entry must only
    ever be written for a file that passed every check)."""
    root = _suite(tmp_path, 1)
    suite = open_suite(root)
    bad = write_case(root, {**good_case("case-1"), "checks": ["no-such-check"]})
    with pytest.raises(InputError, match="unknown check"):
        load_cases(suite, known=_store(tmp_path))
    assert len(_stored(tmp_path)) == 1  # the bad file was not remembered
    store = _store(tmp_path)
    store.remember(file_key(rules_digest(suite, _checks()), bad.name, bad.read_bytes()), "f" * 64)
    store.write()
    cases, problems = load_cases(suite, known=_store(tmp_path))
    assert not problems and {c.id: c.sha for c in cases}["case-1"] == "f" * 64


def _checks() -> set[str]:
    from evals.checks import REGISTRY
    from evals.checks.grading import EXTERNAL_CHECKS

    return set(REGISTRY) | EXTERNAL_CHECKS


def test_an_edited_file_is_validated_again_and_its_problems_reported(tmp_path: Path) -> None:
    root = _suite(tmp_path)
    suite = open_suite(root)
    load_cases(suite, known=_store(tmp_path))
    path = root / "cases" / "case-2.json"
    data = json.loads(path.read_text("utf-8"))
    data["question"] = 42
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_cases(suite, known=_store(tmp_path))
    assert [(p.pointer, Path(p.path).name) for p in exc.value.problems] == [
        ("/question", "case-2.json")
    ]


def test_a_renamed_file_is_checked_against_its_new_name(tmp_path: Path) -> None:
    root = _suite(tmp_path)
    suite = open_suite(root)
    load_cases(suite, known=_store(tmp_path))
    shutil.move(root / "cases" / "case-1.json", root / "cases" / "case-9.json")
    with pytest.raises(InputError, match="must equal the file stem"):
        load_cases(suite, known=_store(tmp_path))


def test_every_rule_a_case_is_checked_against_is_part_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = open_suite(_suite(tmp_path))
    before = rules_digest(suite, _checks())
    assert rules_digest(suite, _checks()) == before
    assert rules_digest(suite, _checks() | {"suite_own_check"}) != before
    (suite.path / "suite.toml").write_text("# settings\n", encoding="utf-8")
    with_settings = rules_digest(suite, _checks())
    assert with_settings != before
    (suite.path / "checks.py").write_text("# no checks yet\n", encoding="utf-8")
    assert rules_digest(suite, _checks()) != with_settings
    # A changed case schema: every file is validated again.
    schemas = tmp_path / "schemas"
    shutil.copytree(known_valid.SCHEMA_DIR, schemas)
    text = (schemas / "case.schema.json").read_text("utf-8")
    (schemas / "case.schema.json").write_text(text.replace('"maxLength": 120', '"maxLength": 60'))
    current = rules_digest(suite, _checks())
    monkeypatch.setattr(known_valid, "SCHEMA_DIR", schemas)
    assert rules_digest(suite, _checks()) != current


def test_a_damaged_store_only_means_validating_again(tmp_path: Path) -> None:
    suite = open_suite(_suite(tmp_path))
    (tmp_path / ".evals-cache").mkdir()
    (tmp_path / ".evals-cache" / KNOWN_VALID).write_bytes(b"not a database" * 50)
    cases, problems = load_cases(suite, known=_store(tmp_path))
    assert len(cases) == 3 and not problems


def test_a_run_remembers_its_valid_cases_and_still_refuses_a_broken_one(tmp_path: Path) -> None:
    root = make_project(tmp_path, [good_case("case-0"), good_case("case-1")])
    assert invoke(tmp_path, "run").returncode in (0, 1)
    assert len(_stored(tmp_path)) == 2
    assert (tmp_path / ".evals-cache" / ".gitignore").read_text() == "*\n"
    write_case(root, {**good_case("case-1"), "difficulty": "impossible"})
    proc = invoke(tmp_path, "run")
    assert proc.returncode == 2
    assert "case-1.json" in proc.stdout + proc.stderr and "/difficulty" in proc.stdout + proc.stderr
    (root / "cases" / "empty.json").write_bytes(b"")
    (root / "cases" / "folder.json").mkdir()
    proc = invoke(tmp_path, "run")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "empty.json: /: empty file" in proc.stderr and "folder.json: /" in proc.stderr
