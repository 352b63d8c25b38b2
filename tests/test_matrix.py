"""`invoke matrix` against the loopback OpenAI-compatible server: prompts x models make one
stamped run file each and their comparison; the cache makes a second matrix free; the budget
spans the whole matrix; an interrupted matrix resumes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai_server import OpenAIServer
from runkit import GOOD, MODEL, WRONG, make_project, records, rows, run_files, use

from evals.cli import guarded
from evals.multi.matrix import MatrixOptions, cmd_matrix

OTHER = "acme/chat-large@2024-07-18"
CAREFUL = "Answer from the passages only; cite every figure as [doc:REF].\n"
SLOPPY = "Answer briefly.\n"


def _reply(body: dict[str, Any]) -> str:
    """The careful prompt gets the right answer from both models; the sloppy one a wrong
    figure from the small model on every case."""
    system = str(body["messages"][0]["content"])
    return WRONG if "briefly" in system and "small" in str(body["model"]) else GOOD


def _project(tmp: Path, n: int = 6, **kw: Any) -> tuple[Path, Path, Path]:
    root = make_project(tmp, n, extra=kw.pop("extra", ""), **kw)
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write(f'[tool.evals.prices."{OTHER}"]\ninput = 1.0\noutput = 2.0\n')
    careful, sloppy = root / "careful.txt", root / "sloppy.txt"
    careful.write_text(CAREFUL, encoding="utf-8")
    sloppy.write_text(SLOPPY, encoding="utf-8")
    return root, careful, sloppy


def _matrix(**kw: Any) -> int:
    return guarded(lambda: cmd_matrix(MatrixOptions(**kw)))


@pytest.fixture
def server():
    with OpenAIServer(responder=_reply) as srv:
        yield srv


def test_two_prompts_by_two_models_make_four_stamped_runs_and_a_second_matrix_sends_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, careful, sloppy = _project(tmp_path)
    use(monkeypatch, root, server.base_url)
    prompts, models = [str(careful), str(sloppy)], [MODEL, OTHER]
    code = _matrix(prompts=prompts, models=models, gate=True)
    out = capsys.readouterr().out
    files = run_files(root)
    assert len(files) == 4 and server.served == 24
    headers = [records(p)[0] for p in files]
    assert {(h["model"], h["label"]) for h in headers} == {
        (MODEL, "matrix_careful_chat-small"),
        (OTHER, "matrix_careful_chat-large"),
        (MODEL, "matrix_sloppy_chat-small"),
        (OTHER, "matrix_sloppy_chat-large"),
    }
    shas = {h["label"].split("_")[1]: h["prompt_sha"] for h in headers}
    assert shas["careful"] != shas["sloppy"] and all(h["git"] for h in headers)
    sloppy_small = next(p for p in files if "sloppy_chat-small" in p.name)
    assert {r["status"] for r in rows(sloppy_small)} == {"fail"}
    assert "compare: 4 runs" in out and "Where the runs disagree (6 of 6 cases)" in out
    assert code == 1  # the sloppy prompt on the small model is worse than the first combination
    served = server.served
    assert _matrix(prompts=prompts, models=models) in (0, 1)
    assert server.served == served  # every answer came from the cache
    assert len(run_files(root)) == 8


def test_max_cost_caps_the_whole_matrix_not_each_combination(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, careful, sloppy = _project(tmp_path, n=6, concurrency=1)
    use(monkeypatch, root, server.base_url)
    # One combination costs about 6 cases x ~0.0001 USD; a cap of one combination's cost
    # leaves later combinations nothing (or little) to spend.
    _matrix(prompts=[str(careful)], models=[MODEL], label="probe")
    one = sum(float(r.get("cost_usd") or 0) for r in rows(run_files(root)[0]))
    assert one > 0
    before = server.served
    _matrix(
        prompts=[str(careful), str(sloppy)],
        models=[MODEL, OTHER],
        max_cost=one * 1.5,
        no_cache=True,
    )
    err = capsys.readouterr()
    assert server.served - before < 24
    assert "the matrix spent" in err.out and "is spent" in err.err
    spent = sum(float(r.get("cost_usd") or 0) for p in run_files(root)[1:] for r in rows(p))
    assert spent <= one * 1.5 + one / 6 + 1e-9  # at most one case past the estimate


def test_an_interrupted_matrix_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer
) -> None:
    root, careful, sloppy = _project(tmp_path)
    use(monkeypatch, root, server.base_url)
    prompts, models = [str(careful), str(sloppy)], [MODEL]
    _matrix(prompts=prompts, models=models)
    files = run_files(root)
    # Cut the second combination's file after its header and two rows: an interrupted run.
    cut = next(p for p in files if "sloppy" in p.name)
    lines = cut.read_text("utf-8").splitlines(keepends=True)
    cut.write_text("".join(lines[:3]), encoding="utf-8")
    before = server.served
    _matrix(prompts=prompts, models=models, resume=True, no_cache=True)
    assert len(run_files(root)) == 2  # nothing new: one kept, one continued in place
    assert server.served - before == 4  # the four rows the cut removed
    assert json.loads(cut.read_text("utf-8").splitlines()[-1])["completed"] is True


def test_bad_prompts_and_models_are_named_together_before_any_request(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, careful, _ = _project(tmp_path)
    use(monkeypatch, root, server.base_url)
    assert _matrix(prompts=[str(careful), "missing.txt"], models=[MODEL]) == 2
    assert "missing.txt" in capsys.readouterr().err
    assert _matrix(prompts=[str(careful)], models=[MODEL, "acme/floating"]) == 2
    assert "acme/floating" in capsys.readouterr().err
    assert server.served == 0 and run_files(root) == []


def test_the_suite_toml_matrix_table_names_the_prompts_and_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer
) -> None:
    root, careful, sloppy = _project(tmp_path)
    (root / "suite" / "careful.txt").write_text(CAREFUL, encoding="utf-8")
    (root / "suite" / "suite.toml").write_text(
        f'[matrix]\nprompts = ["careful.txt", "prompt.txt"]\nmodels = ["{MODEL}"]\n',
        encoding="utf-8",
    )
    use(monkeypatch, root, server.base_url)
    _matrix()
    assert sorted(records(p)[0]["label"] for p in run_files(root)) == [
        "matrix_careful_chat-small",
        "matrix_prompt_chat-small",
    ]
    (root / "suite" / "suite.toml").write_text("[matrix]\nprompt = 1\n", encoding="utf-8")
    assert _matrix() == 2


def test_the_invoke_task_takes_repeated_prompts_and_runs_the_offline_model(tmp_path: Path) -> None:
    from casekit import invoke

    root, careful, sloppy = _project(tmp_path, n=3)
    res = invoke(
        root, "matrix", "--prompt", str(careful), "--prompt", str(sloppy), "--format", "md"
    )
    assert res.returncode in (0, 1), res.stderr
    assert len(run_files(root)) == 2
    assert "# Compare: 2 runs against R0 matrix\\_careful\\_extractive" in res.stdout
    assert "== [2/2] prompt" in res.stdout
