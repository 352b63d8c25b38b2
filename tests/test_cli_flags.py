"""Bad flags, through the real `invoke` executable: one line on stderr, exit 2, no traceback;
`-h`/`--help` prints the task's help in every task."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).parent / "invoke")


def invoke(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [INVOKE, *argv], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def invoke_here(*argv: str) -> subprocess.CompletedProcess[str]:
    """The installed `invoke` program on this project's tasks, run in this process: the same
    parsing, help and exit codes as the executable, without starting an interpreter per call."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from evals.entry import EvalsProgram

    program = EvalsProgram(
        name="Invoke", binary="inv[oke]", binary_names=["invoke", "inv"], version="test"
    )
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            program.run(["invoke", "-r", str(ROOT), *argv])
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess(argv, int(code or 0), out.getvalue(), err.getvalue())


def all_tasks() -> list[str]:
    out = invoke("--list").stdout
    return re.findall(r"^  ([a-z][a-z-]*)\s", out, re.M)


TASKS = [
    "baseline", "calibrate", "compare", "diff", "export", "fmt", "history", "import", "init", "install-hooks", "label", "matrix",
    "merge", "mutate", "new", "report", "review", "run", "seal", "show", "unseal", "validate",
]  # fmt: skip


def test_the_task_list_here_is_every_task() -> None:
    assert sorted(all_tasks()) == sorted(TASKS)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("help_flag", ["-h", "--help"])
def test_help_prints_the_tasks_own_help(task: str, help_flag: str) -> None:
    res = invoke_here(task, help_flag)
    assert res.returncode == 0, res.stderr
    assert f"[--core-opts] {task} " in res.stdout.splitlines()[0]
    assert res.stderr == ""


def test_an_unknown_flag_is_named_with_exit_2() -> None:
    res = invoke("run", "--modle", "x")
    assert res.returncode == 2
    assert res.stderr.strip() == "run: unknown flag --modle; `invoke run --help` lists its flags"


@pytest.mark.parametrize("task", TASKS)
def test_every_task_refuses_an_unknown_flag_with_one_line(task: str) -> None:
    res = invoke_here(task, "--no-such-flag")
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        f"{task}: unknown flag --no-such-flag; `invoke {task} --help` lists its flags"
    ]
    assert res.stdout == ""


@pytest.mark.parametrize(
    "argv,line",
    [
        (["run", "--epochs", "x"], "run: --epochs 'x': expected a whole number"),
        (["run", "--epochs=1.5"], "run: --epochs '1.5': expected a whole number"),
        (["run", "--limit", "x"], "run: --limit 'x': expected a whole number"),
        (["run", "--concurrency", "many"], "run: --concurrency 'many': expected a whole number"),
        (["run", "--max-cost", "1$"], "run: --max-cost '1$': expected a number"),
        (["run", "--max-cost", "nan"], "run: --max-cost 'nan': expected a number"),
        (["run", "--timeout", "soon"], "run: --timeout 'soon': expected a number"),
        (["run", "--retries", "2.0"], "run: --retries '2.0': expected a whole number"),
        (["diff", "--alpha", "x"], "diff: --alpha 'x': expected a number"),
        (["seal", "--budget", "ten"], "seal: --budget 'ten': expected a whole number"),
        (["seal", "--fraction", "0.2", "--seed", "x"], "seal: --seed 'x': expected a whole number"),
        (["seal", "--fraction", "a fifth"], "seal: --fraction 'a fifth': expected a number"),
        (["label", "--port", "http"], "label: --port 'http': expected a whole number"),
        (["label", "--sample", "all"], "label: --sample 'all': expected a whole number"),
    ],
)
def test_a_value_of_the_wrong_type_is_one_line_and_exit_2(argv: list[str], line: str) -> None:
    res = invoke_here(*argv)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [line]
    assert "Traceback" not in res.stdout + res.stderr


@pytest.mark.parametrize(
    "argv,line",
    [
        (["run", "--model"], "run: --model needs a value"),
        (["run", "--model", "x", "--model"], "run: --model needs a value"),
        (["run", "--model", "--limit", "2"], "run: --model needs a value"),
        (["run", "--limit"], "run: --limit needs a value"),
        (["diff", "--a"], "diff: --a needs a value"),
        (["new"], "new: ID is required; `invoke new --help` shows how to call it"),
        (["rnu"], "unknown task 'rnu'; `invoke --list` shows the tasks"),
        (["run", "extra"], "run: unexpected argument 'extra'; `invoke run --help` lists its flags"),
    ],
)
def test_a_missing_value_or_stray_word_is_one_line_and_exit_2(argv: list[str], line: str) -> None:
    res = invoke_here(*argv)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [line]


def test_model_without_a_value_runs_nothing(tmp_path: Path) -> None:
    before = sorted((ROOT / "runs").iterdir())
    res = invoke("run", "--model")
    assert res.returncode == 2
    assert "running" not in res.stdout
    assert sorted((ROOT / "runs").iterdir()) == before


def test_typed_values_reach_the_task_converted() -> None:
    # `--epochs 0` parses as a whole number and is then refused by the run's own range check.
    res = invoke_here("run", "--epochs", "0")
    assert res.returncode == 2
    assert res.stderr.strip() == "--epochs 0: must be 1 or more"


def test_help_says_what_each_flag_takes() -> None:
    out = invoke_here("run", "--help").stdout
    for shown in ("--epochs=INT", "--max-cost=NUMBER", "--model=STRING", "-n, --no-cache"):
        assert shown in out, shown
    assert "(repeatable)" in out


POSITIONAL = {"import": {"file"}, "init": {"dir"}, "new": {"id"}, "show": {"case"},
              "report": {"run"}, "label": {"run"}, "merge": {"files"}, "baseline": {"run"},
              "compare": {"runs"}}  # fmt: skip


def test_docs_tasks_names_every_task_and_every_flag() -> None:
    docs = (ROOT / "docs" / "tasks.md").read_text("utf-8")
    for task in TASKS:
        assert f"### `invoke {task}" in docs, task
        section = docs.split(f"### `invoke {task}", 1)[1].split("\n### ", 1)[0]
        help_text = invoke_here(task, "--help").stdout.split("Options:", 1)[1]
        flags = set(re.findall(r"--([a-z][a-z-]*)", help_text)) - POSITIONAL.get(task, set())
        missing = sorted(f for f in flags if f"--{f}" not in section)
        assert not missing, f"docs/tasks.md: invoke {task} lacks {missing}"


def test_outside_the_project_invoke_says_where_to_run_from_and_exits_2(tmp_path: Path) -> None:
    res = invoke("validate", cwd=tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.splitlines() == [
        f"invoke: no tasks.py in {tmp_path} or any folder above it: run it from the project "
        f"folder ({ROOT}), or name it: invoke -r {ROOT} TASK"
    ]


def test_ctrl_c_while_the_tasks_load_exits_130(tmp_path: Path) -> None:
    import signal
    import time

    marker = tmp_path / "loading"
    (tmp_path / "tasks.py").write_text(
        "import pathlib, time\n"
        f"pathlib.Path({str(marker)!r}).write_text('x')\n"
        "time.sleep(60)  # a slow import: the tasks are still loading\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [INVOKE, "--list"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err


def test_a_short_flag_means_one_flag_in_every_task_and_only_common_flags_have_one() -> None:
    from evals.taskflags import SHORT_FLAGS

    meaning: dict[str, set[str]] = {}
    for task in TASKS:
        help_text = invoke_here(task, "--help").stdout.split("Options:", 1)[1]
        for short, long in re.findall(
            r"^\s+-([a-zA-Z])(?: \w+)?, --([a-z][a-z-]*)", help_text, re.M
        ):
            meaning.setdefault(short, set()).add(long)
    # `-a`/`-b` are the whole names of diff's and report's runs A and B.
    expected = {v: {k.replace("_", "-")} for k, v in SHORT_FLAGS.items()} | {"a": {"a"}, "b": {"b"}}
    assert meaning == {k: v for k, v in expected.items() if k in meaning}, meaning
    assert set(meaning) >= {"s", "r", "f", "o"}


def test_a_short_flag_is_parsed_as_its_long_flag() -> None:
    # `-f json` is mutate's --format (it was once --from-run: "no run file 'json'").
    res = invoke_here("mutate", "-f", "yaml")
    assert res.returncode == 2
    assert res.stderr.strip() == "--format must be md or json, not 'yaml'"
