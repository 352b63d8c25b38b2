"""The project's pytest settings: a skipped test says why, even under the quiet default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_skip_reason_is_printed_under_q(tmp_path: Path) -> None:
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import pytest\n\n\ndef test_needs_a_browser():\n"
        "    pytest.skip('cannot launch Chromium at /usr/bin/chromium')\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "-q", str(probe)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cannot launch Chromium at /usr/bin/chromium" in proc.stdout


def readme_test_command() -> str:
    """The command under "Set up and run the tests" in the README."""
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("Set up and run the tests", 1)[1].split("```sh\n", 1)[1]
    return block.split("\n", 1)[0]


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    command = readme_test_command()
    assert command.endswith(".venv/bin/pytest"), command
    assert command in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()


def test_the_suite_runs_one_worker_per_core_and_marks_its_slow_tests() -> None:
    import tomllib

    import conftest

    options = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]
    assert "-n auto" in options["ini_options"]["addopts"]
    assert any(m.startswith("slow:") for m in options["ini_options"]["markers"])
    assert 'pytest -m "not slow"' in (ROOT / "README.md").read_text("utf-8")
    # Every name in the slow lists is a test file or a test that exists: a renamed test is
    # not silently left in the fast subset's way.
    files = {p.stem: p.read_text("utf-8") for p in (ROOT / "tests").glob("test_*.py")}
    assert sorted(conftest.SLOW_FILES - set(files)) == []
    missing = [n for n in conftest.SLOW_TESTS if not any(f"def {n}(" in t for t in files.values())]
    assert missing == []
