"""Running a real `invoke` task on a disk that is full, for tests of what a failed write leaves."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from pathlib import Path

from casekit import INVOKE, ROOT


def invoke_with_file_limit(cwd: Path, *args: str, limit: int) -> subprocess.CompletedProcess[str]:
    """`invoke` whose process may write files of at most `limit` bytes: a disk that is full."""

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [INVOKE, "-r", str(ROOT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
