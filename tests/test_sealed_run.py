"""`invoke run --sealed`: no case text anywhere, aggregates only, the ledger and the budget."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from casekit import invoke, read_jsonl, write_case  # noqa: E402
from sealkit import (  # noqa: E402
    EXPECTED,
    TAMPER,
    all_bytes,
    new_key,
    project,
    run_sealed,
    seal,
    secrets_of,
    tamper,
)

from evals.seal.manifest import pile_problems  # noqa: E402
from evals.seal.rates import newcombe_gap, wilson  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402

CHOSEN = ["team-00", "team-01", "team-02", "team-04", "team-05", "team-08"]


def run_files(proj: Path) -> list[Path]:
    return sorted((proj / "runs").glob("*.jsonl")) if (proj / "runs").is_dir() else []


def ledger(proj: Path) -> list[dict]:
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    return read_jsonl(path) if path.is_file() else []


def finished(proj: Path) -> list[dict]:
    """The ledger's outcome lines, one per run that ended (each follows its reservation)."""
    return [e for e in ledger(proj) if e.get("phase") == "finished"]


def sealed_project(tmp: Path, budget: int = 10) -> tuple[Path, str, list[dict]]:
    proj, cases = project(tmp)
    key = new_key()
    r = seal(proj, key, "--ids", ",".join(CHOSEN), "--budget", str(budget))
    assert r.returncode == 0, r.stderr
    return proj, key, [c for c in cases if c["id"] in CHOSEN]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, str, list[dict]]:
    """One sealed project per module; tests work on copies of it."""
    return sealed_project(tmp_path_factory.mktemp("template"))


@pytest.fixture
def sealed(template, tmp_path: Path) -> tuple[Path, str, list[dict]]:
    proj, key, chosen = template
    copy = tmp_path / "proj"
    shutil.copytree(proj, copy)
    return copy, key, chosen


def test_wilson_and_newcombe_match_known_values() -> None:
    lo, hi = wilson(7, 10)
    assert round(lo, 4) == 0.3968 and round(hi, 4) == 0.8922
    assert wilson(0, 0) is None
    d, lo, hi = newcombe_gap(8, 10, 4, 10)
    assert round(d, 3) == 0.4 and lo < d < hi and round(lo, 2) == -0.02


def test_no_case_text_in_any_file_or_output_of_a_sealed_run(sealed) -> None:
    proj, key, chosen = sealed
    visible = invoke(proj, "run")
    assert visible.returncode in (0, 1), visible.stderr
    r = run_sealed(proj, key)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert "pass rate" in out and "95% CI" in out and "gap: visible" in out
    assert "budget: 1 of 10" in out
    # Aggregates only: no per-case lines, no case ids.
    assert "PASS " not in out and "FAIL " not in out
    for c in chosen:
        assert c["id"] not in out
    files = all_bytes(proj)
    sealed_run = [p for p, raw in files if b'"sealed":{"pile_id"' in raw]
    assert len(sealed_run) == 1
    for c in chosen:
        for text in secrets_of(c) + [c["id"]]:
            assert text not in out
            for path, raw in files:
                if path.parent.name == "runs" and path not in sealed_run:
                    continue  # the visible run, of other cases
                assert text.encode() not in raw, f"{text!r} found in {path}"
    # Nor the key.
    assert key not in out and all(key.encode() not in raw for _, raw in files)
    rows = [r for r in read_jsonl(sealed_run[0]) if r["kind"] == "case"]
    assert len(rows) == len(CHOSEN)
    # The gap: the visible run's pass rate minus the pile's.
    vis = [x for x in read_jsonl(run_files(proj)[0]) if x["kind"] == "case"]
    vk = sum(x["status"] == "pass" for x in vis)
    k = sum(x["status"] == "pass" for x in rows)
    gap = newcombe_gap(vk, len(vis), k, len(rows))
    assert gap is not None and f"= {gap[0] * 100:+.1f} pp" in out
    for row in rows:
        assert row["question"] is None and row["draft"] is None and row["retrieved"] is None
        assert all(c["detail"] == "withheld: sealed run" for c in row["checks"].values())


def test_sealed_aggregates_equal_those_of_the_same_cases_run_unsealed(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proj, cases = project(plain)
    for p in (proj / "suite" / "cases").glob("*.json"):
        if p.stem not in CHOSEN:
            p.unlink()
    sealed_dir = tmp_path / "sealed"
    shutil.copytree(proj, sealed_dir)
    r = invoke(proj, "run")
    assert r.returncode in (0, 1), r.stderr
    (unsealed_file,) = run_files(proj)
    key = new_key()
    assert seal(sealed_dir, key, "--fraction", "1", "--seed", "1").returncode == 0
    r = run_sealed(sealed_dir, key)
    assert r.returncode in (0, 1), r.stderr
    (sealed_file,) = run_files(sealed_dir)
    a, b = read_jsonl(unsealed_file)[-1], read_jsonl(sealed_file)[-1]
    assert a["kind"] == b["kind"] == "summary"
    for field in ("counts", "score_mean", "n_scored", "n_total", "categories", "checks"):
        assert a[field] == b[field], field
    k, n = a["counts"]["pass"], a["counts"]["pass"] + a["counts"]["fail"]
    assert 0 < k < n  # the pile mixes passes and failures, so equality means something
    assert f"{k}/{n} scored of {n}" in r.stdout
    assert f"{k / n * 100:.1f}%" in r.stdout


def test_sealed_cases_in_review_are_counted_beside_errors_with_their_reasons_withheld(
    tmp_path: Path,
) -> None:
    proj, cases = project(tmp_path, 4)
    for c in cases[1:3]:  # team-01 and team-02: a check that cannot decide them
        write_case(proj / "suite", {**c, "checks": ["mentions_expected", "scope_bound"]})
    (proj / "suite" / "checks.py").write_text(
        "from evals.checks import check, undecided\n\n"
        "@check()\ndef scope_bound(inp):\n"
        "    return undecided('the price names a crew no passage binds it to: ' + inp.answer)\n",
        "utf-8",
    )
    key = new_key()
    assert seal(proj, key, "--fraction", "1", "--seed", "1").returncode == 0
    r = run_sealed(proj, key)
    assert r.returncode == 1, r.stdout + r.stderr  # team-00 failed; a failure decides
    assert "1/2 scored of 4 (0 error, 2 in review)" in r.stdout
    assert "(0/0 of 2; 0 error, 2 in review)" in r.stdout  # the scope_bound line
    assert "Crew 01" not in r.stdout + r.stderr  # the reason quoted the answer: withheld
    [line] = finished(proj)
    assert line["review"] == 2 and line["errors"] == 0 and line["n_scored"] == 2
    (path,) = run_files(proj)
    review = [x for x in read_jsonl(path) if x.get("status") == "review"]
    assert len(review) == 2 and all(x["review_checks"] == ["scope_bound"] for x in review)
    assert all(x["checks"]["scope_bound"]["detail"] == "withheld: sealed run" for x in review)
    assert "Crew 01" not in path.read_text("utf-8")


def test_the_ledger_counts_every_run_and_the_budget_needs_force(tmp_path: Path) -> None:
    proj, key, _ = sealed_project(tmp_path, budget=2)
    for i in (1, 2):
        r = run_sealed(proj, key)
        assert r.returncode in (0, 1), r.stderr
        assert f"budget: {i} of 2" in r.stdout
    r = run_sealed(proj, key)
    assert r.returncode == 2 and "budget spent (2 of 2" in r.stderr
    assert len(finished(proj)) == 2 and len(run_files(proj)) == 2
    assert [e["phase"] for e in ledger(proj)] == ["reserved", "finished"] * 2
    r = run_sealed(proj, key, force=True)
    assert r.returncode in (0, 1), r.stderr
    lines = finished(proj)
    assert [e["forced"] for e in lines] == [False, False, True]
    assert [e["run_id"] for e in lines] == [p.stem for p in run_files(proj)]
    assert all(e["n_total"] == len(CHOSEN) and e["pass_rate"] is not None for e in lines)
    # Editing an earlier line breaks the hash chain, which `invoke validate` reports.
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    text = path.read_text()
    suite = open_suite(proj / "suite")
    assert pile_problems(suite, None, use_env=False) == []
    first = json.loads(text.splitlines()[0])
    first["pass_rate"] = 1.0
    edited = [json.dumps(first, separators=(",", ":"))] + text.splitlines()[1:]
    path.write_text("\n".join(edited) + "\n")
    assert [p.message for p in pile_problems(suite, None, use_env=False)] == [
        "ledger altered: an earlier line was edited or removed"
    ]
    path.write_text(text)
    # Dropping ledger lines does not refund the budget: the run files still count.
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    path.write_text(path.read_text().splitlines()[0] + "\n")
    assert run_sealed(proj, key).returncode == 2


def test_two_sealed_runs_pair_by_opaque_ids(sealed) -> None:
    proj, key, _ = sealed
    assert run_sealed(proj, key).returncode in (0, 1)
    r = run_sealed(proj, key)
    first, second = run_files(proj)
    ids = [{x["case"] for x in read_jsonl(p) if x["kind"] == "case"} for p in (first, second)]
    assert ids[0] == ids[1] and len(ids[0]) == len(CHOSEN)
    assert ids[0].isdisjoint(CHOSEN)
    assert f"paired with {first.stem}" in r.stdout
    assert f"{len(CHOSEN)} pairs, 0 fixed, 0 broke" in r.stdout
    header = json.loads(second.read_text().splitlines()[0])
    assert (
        header["sealed"]["n"] == len(CHOSEN)
        and header["suite_digest"] == header["sealed"]["digest"]
    )


@pytest.mark.parametrize("kind", TAMPER)
def test_a_tampered_pile_or_wrong_key_runs_nothing(sealed, kind: str) -> None:
    proj, key, _ = sealed
    tamper(proj, kind)
    r = run_sealed(proj, new_key() if kind == "wrong_key" else key)
    assert r.returncode == 2, r.stdout + r.stderr
    assert EXPECTED[kind] in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""
    assert run_files(proj) == [] and ledger(proj) == []


APP = """
import os


def answer(case):
    mode = os.environ["APP_MODE"]
    if mode == "boom":
        raise ValueError("cannot answer " + case["question"])
    if mode == "good":
        return {"answer": "A Pro seat costs 45 € per seat and month [doc:pricing#plans].",
                "retrieved": ["pricing#plans"], "cited": ["pricing#plans"], "abstained": False}
    return {"answer": "I don't know.", "retrieved": [], "cited": [], "abstained": True}
"""


def test_pairing_counts_cases_that_broke_and_error_text_stays_withheld(sealed) -> None:
    proj, key, chosen = sealed
    (proj / "sealapp.py").write_text(APP, encoding="utf-8")
    good = run_sealed(proj, key, target="sealapp:answer", env_extra={"APP_MODE": "good"})
    assert good.returncode in (0, 1), good.stderr
    bad = run_sealed(proj, key, target="sealapp:answer", env_extra={"APP_MODE": "bad"})
    assert bad.returncode == 1, bad.stderr
    assert "pass rate: 100.0%" in good.stdout
    assert f"100.0% -> 0.0%; {len(CHOSEN)} pairs, 0 fixed, {len(CHOSEN)} broke" in bad.stdout
    boom = run_sealed(proj, key, target="sealapp:answer", env_extra={"APP_MODE": "boom"})
    assert boom.returncode == 3, boom.stderr
    assert f"({len(CHOSEN)} error)" in boom.stdout
    out = good.stdout + good.stderr + bad.stdout + bad.stderr + boom.stdout + boom.stderr
    files = all_bytes(proj / "runs") + all_bytes(proj / "suite" / "sealed")
    for c in chosen:
        assert c["question"] not in out
        assert all(c["question"].encode() not in raw for _, raw in files)
    assert [e["errors"] for e in finished(proj)] == [0, 0, len(CHOSEN)]


def _sealed_on_server(proj: Path, key: str, server, monkeypatch) -> int:
    """`invoke run --sealed --model M` in-process against the loopback server."""
    from evals.cli import guarded
    from evals.commands.run import RunOptions, cmd_run

    monkeypatch.chdir(proj)
    monkeypatch.setenv("EVAL_SEAL_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sealed-0123456789")
    opts = RunOptions(models=["acme/chat-small@2024-07-18"], sealed=True)
    return guarded(lambda: cmd_run(opts))


@pytest.mark.parametrize("status", [401, 500])
def test_a_provider_message_quoting_a_sealed_case_is_never_stored_or_printed(
    sealed, openai_server, monkeypatch, capsys, status: int
) -> None:
    from openai_server import Fault

    from evals.cli import guarded
    from evals.report.command import cmd_report

    proj, key, chosen = sealed
    question = chosen[0]["question"]
    # The endpoint quotes the prompt it refused, as some gateways do.
    openai_server.responder = lambda body: (_ for _ in ()).throw(AssertionError("not refused"))
    # Enough for every try: a 500 is sent again (--resend), a 401 is not.
    openai_server.enqueue(*[Fault.http(status, f"denied for prompt: {question}")] * 120)
    code = _sealed_on_server(proj, key, openai_server, monkeypatch)
    assert code == 3
    # The run stopped early, so `latest` passes over it: it is read by name.
    (stopped,) = run_files(proj)
    page = str(proj / "sealed-report.html")
    assert guarded(lambda: cmd_report(str(stopped), html=page)) == 0
    out = capsys.readouterr()
    printed = out.out + out.err
    for c in chosen:
        for text in [*secrets_of(c), "denied for prompt"]:
            assert text not in printed, text
            for path, raw in all_bytes(proj):
                if path.parent.name != "cases":
                    assert text.encode() not in raw, f"{text!r} found in {path}"
    (run_file,) = run_files(proj)
    recs = read_jsonl(run_file)
    errors = {r["error"] for r in recs if r["kind"] == "case"}
    assert errors == {f"HTTP {status}: provider message withheld (sealed run)"}
    if status == 401:
        stopped = recs[-1]["stopped_reason"]
        assert stopped.startswith("the endpoint refused every request: HTTP 401: provider")


def test_a_model_name_quoting_a_sealed_case_is_withheld_from_rows_and_warnings(
    sealed, openai_server, monkeypatch, capsys
) -> None:
    from openai_server import Scripted

    proj, key, chosen = sealed
    leak = chosen[1]["question"]
    openai_server.responder = lambda body: Scripted(
        "One more Pro seat costs 45 € [doc:pricing#plans].", model=f"chat-small-{leak}"
    )
    code = _sealed_on_server(proj, key, openai_server, monkeypatch)
    assert code in (0, 1)
    out = capsys.readouterr()
    assert leak not in out.out + out.err
    assert "reports a model other than the pinned" in out.err
    (run_file,) = run_files(proj)
    assert leak.encode() not in run_file.read_bytes()
    models = {r["resolved_model"] for r in read_jsonl(run_file) if r["kind"] == "case"}
    assert models == {"withheld: not the pinned model (sealed run)"}


def test_an_altered_ledger_refuses_the_run_and_writes_nothing(sealed) -> None:
    proj, key, _ = sealed
    assert run_sealed(proj, key).returncode in (0, 1)
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    first = path.read_text()
    for altered, reason in (
        (first.replace('"forced":false', '"forced":true') + first, "ledger altered"),
        ('{"date":"2026-01-01T00:00:00Z"}\n', "'pile_id' is a required property"),
    ):
        path.write_text(altered)
        r = run_sealed(proj, key)
        assert r.returncode == 2, r.stdout + r.stderr
        assert reason in r.stderr and "restore the ledger from git" in r.stderr
        assert r.stdout == "" and "Traceback" not in r.stderr
        assert len(run_files(proj)) == 1 and path.read_text() == altered


def test_ledger_lines_cut_from_the_end_are_warned_about_and_still_counted(sealed) -> None:
    proj, key, _ = sealed
    for _ in range(2):
        assert run_sealed(proj, key).returncode in (0, 1)
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    path.write_text(path.read_text().splitlines()[0] + "\n")
    r = run_sealed(proj, key)
    assert r.returncode in (0, 1), r.stderr
    assert "warning: 1 sealed run(s) of this pile are in runs/ but not in the ledger" in r.stderr
    assert "budget: 3 of 10" in r.stdout and len(ledger(proj)) == 1 + 2


SLOW_APP = """
import time

def answer(case):
    time.sleep(0.2)  # long enough for runs started together to overlap
    return {"answer": "45 € [doc:pricing#plans]", "retrieved": ["pricing#plans"],
            "cited": ["pricing#plans"], "abstained": False}
"""


def test_runs_started_at_once_cannot_spend_the_last_budget_slot_twice(tmp_path: Path) -> None:
    import os
    import subprocess

    from casekit import INVOKE, ROOT

    for trial in range(2):
        (tmp_path / f"trial{trial}").mkdir()
        proj, key, _ = sealed_project(tmp_path / f"trial{trial}", budget=1)
        (proj / "slowapp.py").write_text(SLOW_APP, encoding="utf-8")
        env = {**os.environ, "EVAL_SEAL_KEY": key}
        cmd = [INVOKE, "-r", str(ROOT), "run", "--sealed", "--target", "slowapp:answer"]
        procs = [
            subprocess.Popen(cmd, cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(3)
        ]
        results = [(p.wait(timeout=120), *(x.decode() for x in p.communicate())) for p in procs]
        ran = [out for code, out, _ in results if code in (0, 1)]
        refused = [err for code, _, err in results if code == 2]
        assert len(ran) == 1 and len(refused) == 2, results
        assert "budget: 1 of 1 sealed run(s) used" in ran[0]
        assert all("budget spent (1 of 1" in err for err in refused)
        assert [e["phase"] for e in ledger(proj)] == ["reserved", "finished"]
        assert len(run_files(proj)) == 1
        assert not (proj / "suite" / "sealed" / ".ledger.lock").exists()
        assert pile_problems(open_suite(proj / "suite"), None, use_env=False) == []


def _git(proj: Path, *args: str) -> None:
    import os
    import subprocess

    from casekit import GIT_ENV

    subprocess.run(
        ["git", *args], cwd=proj, check=True, capture_output=True, env={**os.environ, **GIT_ENV}
    )


def test_a_ledger_emptied_after_it_was_committed_fails_validate_and_refuses_the_run(
    sealed,
) -> None:
    proj, key, _ = sealed
    assert invoke(proj, "validate").returncode == 0
    _git(proj, "init", "-q")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "pile")
    r = invoke(proj, "validate")
    assert r.returncode == 0 and "no entry of this pile was ever committed" in r.stderr
    for _ in range(2):
        assert run_sealed(proj, key).returncode in (0, 1)
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "two sealed runs")
    assert run_sealed(proj, key).returncode in (0, 1)  # a third, not committed yet: fine
    r = invoke(proj, "validate")
    assert r.returncode == 0 and "note:" not in r.stderr, r.stderr
    # The reset: an empty ledger and no sealed run files give the budget back...
    path = proj / "suite" / "sealed" / "LEDGER.jsonl"
    path.write_text("", encoding="utf-8")
    for f in run_files(proj):
        f.unlink()
    r = invoke(proj, "validate")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "ledger rewritten: 4 committed entries are missing since commit" in r.stderr
    r = run_sealed(proj, key)
    assert r.returncode == 2 and "ledger rewritten" in r.stderr and not run_files(proj)
    # ...but git remembers: restoring the committed ledger makes the pile usable again.
    _git(proj, "checkout", "--", "suite/sealed/LEDGER.jsonl")
    assert invoke(proj, "validate").returncode == 0


def test_without_git_validate_says_in_one_line_that_the_ledger_history_is_unchecked(
    sealed,
) -> None:
    proj, key, _ = sealed
    assert run_sealed(proj, key).returncode in (0, 1)
    r = invoke(proj, "validate")
    assert r.returncode == 0, r.stderr
    [note] = [x for x in r.stderr.splitlines() if "LEDGER.jsonl" in x]
    assert note.startswith("note: ") and "no git repository" in note


def test_unseal_counts_each_run_once_though_it_has_two_ledger_lines(sealed) -> None:
    from sealkit import unseal

    proj, key, _ = sealed
    for _ in range(2):
        assert run_sealed(proj, key).returncode in (0, 1)
    assert len(ledger(proj)) == 4
    r = unseal(proj, key)
    assert r.returncode == 0 and "(2 sealed run(s))" in r.stdout, r.stdout + r.stderr


def test_gap_ignores_visible_runs_of_another_suite(sealed) -> None:
    proj, key, _ = sealed
    other = proj / "other-suite"
    shutil.copytree(proj / "suite", other, ignore=shutil.ignore_patterns("sealed"))
    visible = invoke(proj, "run", "--suite", str(other))
    assert visible.returncode in (0, 1), visible.stderr
    r = run_sealed(proj, key)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "gap: no visible-suite run of this model" in r.stdout


def test_gap_leaves_out_now_sealed_cases_of_a_visible_run_from_before_the_seal(
    tmp_path: Path,
) -> None:
    proj, _ = project(tmp_path)
    before = invoke(proj, "run")  # all 12 cases, the 6 to be sealed among them
    assert before.returncode in (0, 1), before.stderr
    key = new_key()
    r = seal(proj, key, "--ids", ",".join(CHOSEN), "--allow-exposed")
    assert r.returncode == 0, r.stderr
    r = run_sealed(proj, key)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    (visible,) = [p for p in run_files(proj) if b'"sealed":{' not in p.read_bytes()]
    rest = [x for x in read_jsonl(visible) if x["kind"] == "case" and x["case"] not in CHOSEN]
    vk = sum(x["status"] == "pass" for x in rest)
    assert f"({vk}/{len(rest)}, run {visible.stem}, same prompt; 6 row(s) of now-sealed" in r.stdout
    for cid in CHOSEN:
        assert cid not in r.stdout


def test_gap_says_it_cannot_compare_when_the_visible_run_held_only_sealed_cases(
    tmp_path: Path,
) -> None:
    proj, _ = project(tmp_path)
    for p in (proj / "suite" / "cases").glob("*.json"):
        if p.stem not in CHOSEN:
            p.unlink()
    assert invoke(proj, "run").returncode in (0, 1)
    key = new_key()
    assert seal(proj, key, "--fraction", "1", "--seed", "1", "--allow-exposed").returncode == 0
    r = run_sealed(proj, key)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "gap: cannot compare: every row of visible run" in r.stdout
    assert "gap: visible" not in r.stdout
