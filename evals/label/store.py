"""Writing labels: each one appended as a whole line and flushed at once; undo removes it."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any


class LabelFile:
    """One labelled/*.jsonl file, written by one review page (calls are serialised)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> tuple[str, int]:
        """Append the record as one line, flushed to disk; returns the line and its number."""
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a+b") as f:
                size = f.seek(0, os.SEEK_END)
                prefix = b""
                if size:
                    f.seek(size - 1)
                    # A hand-edited file may lack its final newline: never glue two lines.
                    prefix = b"" if f.read(1) == b"\n" else b"\n"
                    f.seek(0)
                    n = f.read().count(b"\n") + len(prefix)
                else:
                    n = 0
                f.seek(0, os.SEEK_END)
                f.write(prefix + line.encode("utf-8"))
                f.flush()
                os.fsync(f.fileno())
        return line, n + 1

    def remove(self, line: str) -> bool:
        """Remove the last occurrence of exactly this line; False (file untouched) if absent.

        The file is rewritten beside itself and renamed over it, so a crash leaves either
        the old or the new file whole; other lines, added by hand meanwhile, are kept."""
        want = line.encode("utf-8")
        with self._lock:
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                return False
            at = data.rfind(want)
            while at > 0 and data[at - 1 : at] != b"\n":
                at = data.rfind(want, 0, at)
            if at < 0:
                return False
            kept = data[:at] + data[at + len(want) :]
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            try:
                with tmp.open("wb") as f:
                    f.write(kept)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        return True
