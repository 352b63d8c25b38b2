"""`invoke seal` / `invoke unseal`: keys, selection, tamper evidence, revealed cases."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from casekit import invoke, read_jsonl  # noqa: E402
from sealkit import (  # noqa: E402
    EXPECTED,
    TAMPER,
    all_bytes,
    manifest,
    new_key,
    project,
    seal,
    sealed_files,
    secrets_of,
    tamper,
    unseal,
)

from evals.seal.manifest import parse_key, pile_problems  # noqa: E402
from evals.seal.sealing import stratified_sample  # noqa: E402
from evals.suite.case import content_sha  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """One project with team-01, team-02, team-04 sealed; tests work on copies of it."""
    proj, cases = project(tmp_path_factory.mktemp("template"))
    key = new_key()
    r = seal(proj, key, "--ids", "team-01,team-02,team-04", "--budget", "3")
    assert r.returncode == 0, r.stderr
    return proj, key, cases


@pytest.fixture
def sealed(template, tmp_path: Path):
    """A fresh copy of the template project: (project dir, key, original cases)."""
    proj, key, cases = template
    copy = tmp_path / "proj"
    shutil.copytree(proj, copy)
    return copy, key, cases


def test_new_key_prints_a_usable_key_and_writes_nothing(tmp_path: Path) -> None:
    proj, _ = project(tmp_path)
    before = all_bytes(proj)
    r = invoke(proj, "seal", "--new-key")
    assert r.returncode == 0
    assert len(parse_key(r.stdout.strip(), "stdout")) == 32
    assert all_bytes(proj) == before


def test_sealing_moves_the_cases_out_of_plain_text(sealed) -> None:
    proj, _, cases = sealed
    suite = proj / "suite"
    assert sorted(p.stem for p in (suite / "cases").glob("*.json")) == sorted(
        c["id"] for c in cases if c["id"] not in ("team-01", "team-02", "team-04")
    )
    m = manifest(proj)
    assert m["n"] == 3 and m["budget"] == 3
    assert m["categories"] == {"account": 1, "billing": 2}
    assert m["selection"] == {"mode": "ids", "fraction": None, "seed": None}
    by_id = {c["id"]: c for c in cases}
    assert sorted(e["content_sha"] for e in m["files"]) == sorted(
        content_sha(by_id[i]) for i in ("team-01", "team-02", "team-04")
    )
    # No file names, no bytes anywhere in the project say what the sealed cases are.
    sealed_texts = [t for i in ("team-01", "team-02", "team-04") for t in secrets_of(by_id[i])]
    for path, raw in all_bytes(proj):
        assert "team-01" not in path.name and "team-02" not in path.name
        for text in sealed_texts:
            assert text.encode() not in raw, f"{text!r} readable in {path}"
    # Every envelope carries the canary in clear text, so leaked copies can be grepped.
    for f in sealed_files(proj):
        assert m["canary"] in f.read_text("utf-8")


def test_refuses_without_a_key(tmp_path: Path) -> None:
    proj, _ = project(tmp_path)
    r = seal(proj, None, "--ids", "team-01")
    assert r.returncode == 2
    assert "no seal key" in r.stderr
    assert (proj / "suite" / "cases" / "team-01.json").exists()


def test_refuses_a_key_file_inside_the_repository(tmp_path: Path, tmp_path_factory) -> None:
    proj, _ = project(tmp_path)
    inside = proj / "seal.key"
    inside.write_text(new_key())
    r = invoke(proj, "seal", "--ids", "team-01", "--key-file", str(inside))
    assert r.returncode == 2
    assert "inside the repository" in r.stderr
    assert inside.read_text() not in r.stderr + r.stdout
    outside = tmp_path_factory.mktemp("keys") / "seal.key"
    outside.write_text(inside.read_text())
    r = invoke(proj, "seal", "--ids", "team-01", "--key-file", str(outside))
    assert r.returncode == 0, r.stderr


def test_fraction_is_stratified_and_reproducible_from_the_seed(tmp_path: Path) -> None:
    proj, cases = project(tmp_path)
    r = seal(proj, new_key(), "--fraction", "0.5", "--seed", "11")
    assert r.returncode == 0, r.stderr
    m = manifest(proj)
    assert m["categories"] == {"account": 2, "billing": 2, "pricing": 2}
    assert m["selection"] == {"mode": "fraction", "fraction": 0.5, "seed": 11}
    from evals.suite.case import Case

    objs = [Case(c) for c in cases]
    again = stratified_sample(objs, 0.5, 11)
    assert sorted(content_sha(c.data) for c in again) == sorted(
        e["content_sha"] for e in m["files"]
    )
    left = {p.stem for p in (proj / "suite" / "cases").glob("*.json")}
    assert left.isdisjoint(c.id for c in again)


def test_refuses_a_second_pile_and_unknown_ids(sealed) -> None:
    proj, key, _ = sealed
    r = seal(proj, key, "--ids", "team-03")
    assert r.returncode == 2 and "already holds a sealed pile" in r.stderr


def test_refuses_to_seal_text_already_readable_elsewhere(tmp_path: Path) -> None:
    proj, cases = project(tmp_path)
    (proj / "notes.txt").write_text("copied: " + cases[1]["question"], encoding="utf-8")
    r = seal(proj, new_key(), "--ids", "team-01")
    assert r.returncode == 2
    assert "notes.txt" in r.stderr and "--allow-exposed" in r.stderr
    assert cases[1]["question"] not in r.stderr
    r = seal(proj, new_key(), "--ids", "team-01", "--allow-exposed")
    assert r.returncode == 0, r.stderr
    assert manifest(proj)["exposed"] == 1
    # The warning names the files to delete, never the text they hold.
    warning = next(ln for ln in r.stderr.splitlines() if "readable in other files" in ln)
    assert warning.endswith(str(proj / "notes.txt")) and cases[1]["question"] not in r.stderr


@pytest.mark.parametrize("kind", TAMPER)
def test_tampering_and_a_wrong_key_stop_unseal_with_exit_2(sealed, kind: str) -> None:
    proj, key, _ = sealed
    tamper(proj, kind)
    before = sorted(p.name for p in (proj / "suite" / "cases").iterdir())
    r = unseal(proj, new_key() if kind == "wrong_key" else key)
    assert r.returncode == 2, r.stdout + r.stderr
    assert EXPECTED[kind] in r.stderr
    assert "Traceback" not in r.stderr
    assert sorted(p.name for p in (proj / "suite" / "cases").iterdir()) == before


def test_validate_checks_integrity_without_the_key_and_cases_with_it(sealed) -> None:
    proj, key, _ = sealed
    suite = open_suite(proj / "suite")
    assert pile_problems(suite, None, use_env=False) == []
    assert pile_problems(suite, parse_key(key, "k")) == []
    wrong = pile_problems(suite, parse_key(new_key(), "k"))
    assert [p.message for p in wrong] == ["wrong key: this seal key does not open this pile"]
    tamper(proj, "removed")
    found = pile_problems(suite, None, use_env=False)
    assert len(found) == 1 and "removed" in found[0].message


def test_unseal_reveals_and_revealed_cases_are_never_sealed_again(sealed) -> None:
    proj, key, cases = sealed
    suite = proj / "suite"
    r = unseal(proj, key)
    assert r.returncode == 0, r.stderr
    by_id = {c["id"]: c for c in cases}
    for cid in ("team-01", "team-02", "team-04"):
        data = json.loads((suite / "cases" / f"{cid}.json").read_text("utf-8"))
        revealed = data.pop("revealed")
        assert len(revealed) == 10 and revealed[4] == "-"
        assert data == by_id[cid]
    pile_id = manifest_id = None
    retired = suite / "sealed" / "retired"
    (record,) = retired.glob("*.json")
    pile_id = json.loads(record.read_text())["pile_id"]
    manifest_id = json.loads(record.read_text())["manifest"]["pile_id"]
    assert pile_id == manifest_id
    assert sorted(p.name for p in (suite / "sealed").iterdir()) == ["retired"]
    assert invoke(proj, "validate").returncode == 0
    # A revealed case is refused by id, even with its `revealed` field removed by hand.
    r = seal(proj, key, "--ids", "team-02")
    assert r.returncode == 2 and "never sealed again" in r.stderr
    path = suite / "cases" / "team-02.json"
    data = json.loads(path.read_text("utf-8"))
    del data["revealed"]
    from evals.suite.case import canonical_json

    path.write_text(canonical_json(data), encoding="utf-8")
    assert seal(proj, key, "--ids", "team-02").returncode == 2
    # A fresh pile draws only from cases that were never revealed.
    r = seal(proj, new_key(), "--fraction", "1", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert manifest(proj)["n"] == len(cases) - 3
    assert {p.stem for p in (suite / "cases").glob("*.json")} == {"team-01", "team-02", "team-04"}


def test_unseal_keeps_the_ledger_history(sealed) -> None:
    proj, key, _ = sealed
    ledger = proj / "suite" / "sealed" / "LEDGER.jsonl"
    ledger.write_text('{"run_id": "x"}\n')
    pile = manifest(proj)["pile_id"]
    assert unseal(proj, key).returncode == 0
    kept = proj / "suite" / "sealed" / "retired" / f"{pile}.LEDGER.jsonl"
    assert read_jsonl(kept) == [{"run_id": "x"}]


def test_warns_when_sealed_cases_were_committed_before(tmp_path: Path) -> None:
    proj, _ = project(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(proj)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "suite/cases/team-01.json"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one case"], check=True)
    r = seal(proj, new_key(), "--ids", "team-01,team-02")
    assert r.returncode == 0, r.stderr
    assert "warning: 1 sealed case(s) were committed before" in r.stderr


def test_a_pile_sealed_when_the_content_sha_covered_the_whole_case_still_opens(sealed) -> None:
    from evals.errors import InputError
    from evals.seal.manifest import PileKeys, finish_manifest, open_envelope, open_pile
    from evals.suite.case import whole_case_sha

    proj, key, _ = sealed
    suite = open_suite(proj / "suite")
    raw_key = parse_key(key, "key")
    keys = PileKeys.derive(raw_key)
    path = proj / "suite" / "sealed" / "MANIFEST.json"

    def rewrite(sha_of) -> None:
        m = manifest(proj)
        for entry in m["files"]:
            env = (proj / "suite" / "sealed" / entry["file"]).read_bytes()
            entry["content_sha"] = sha_of(open_envelope(env, keys, m["pile_id"], entry["file"]))
        path.write_text(json.dumps(finish_manifest(m, keys), indent=2) + "\n", "utf-8")

    rewrite(whole_case_sha)  # as sealed by an earlier version
    assert [c.id for c in open_pile(suite, raw_key).cases] == ["team-01", "team-02", "team-04"]
    rewrite(lambda data: content_sha({**data, "question": "edited"}))
    with pytest.raises(InputError, match="content differs from the manifest's hash"):
        open_pile(suite, raw_key)
