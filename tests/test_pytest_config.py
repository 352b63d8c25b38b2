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
