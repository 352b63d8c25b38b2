"""Run-file output for long runs: every record flushed at once, fsync batched in time."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from evals.run.files import RunWriter


class BatchedRunWriter(RunWriter):
    """Like RunWriter, but fsyncs at most every `fsync_s` seconds and at close.

    Each record is still written (unbuffered) as it finishes, so a killed process leaves
    every finished row on disk; only a power cut can lose the last `fsync_s` seconds.
    An fsync per row costs about 0.3 ms, a third of a second per thousand cases.
    """

    def __init__(self, path: Path, *, resume: bool = False, fsync_s: float = 0.5) -> None:
        super().__init__(path, resume=resume)
        self._fsync_s = fsync_s
        self._last_sync = time.monotonic()

    def write(self, record: dict[str, Any]) -> None:
        self._append(record)
        now = time.monotonic()
        if now - self._last_sync >= self._fsync_s:
            self.sync()
            self._last_sync = now
