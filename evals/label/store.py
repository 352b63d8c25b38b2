"""Writing labels: each one appended as a whole line and flushed at once; undo removes it.

Several review pages (in several processes) may write one file: every append and undo holds
an exclusive lock on the file itself, across processes, so that an undo's rewrite never
drops a line another page appended meanwhile. A write that fails part-way (a full disk) is
cut back to the last whole line; a fragment left by a killed writer is cut before the next
line is appended, and readers skip it (evals/calibrate/labelled.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evals.calibrate.labelled import LINK_REFUSED
from evals.suite.case import parse_json_value
from evals.suite.filelock import lock_current


class LinkRefused(OSError):
    """The labelled file or its folder is a symbolic link: nothing is written through it."""


def record_bytes(record: dict[str, Any]) -> bytes:
    """The record as one UTF-8 line; a lone surrogate (a reply's bad bytes) is escaped."""
    line = json.dumps(record, ensure_ascii=False)
    try:
        return (line + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def _is_fragment(tail: bytes) -> bool:
    """Whether the file's last line, without its newline, is a cut write (not JSON)."""
    try:
        parse_json_value(tail.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return True
    return False


class LabelFile:
    """One labelled/*.jsonl file; its writers are serialised within and across processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def _refuse_links(self) -> None:
        for p in (self.path.parent, self.path):
            if p.is_symlink():
                raise LinkRefused(f"{p}: {LINK_REFUSED}")

    @contextlib.contextmanager
    def _locked(self, create: bool) -> Iterator[int | None]:
        """The file open for reading and writing, locked against every other writer; None
        when it does not exist and `create` is false. O_NOFOLLOW: a link made after the check
        above is refused too, never followed out of the suite."""
        with self._lock:
            self._refuse_links()
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._refuse_links()
            flags = os.O_RDWR | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
            try:
                fd = lock_current(self.path, flags)
            except FileNotFoundError:
                if create:
                    raise
                yield None
                return
            except OSError as exc:
                if self.path.is_symlink():
                    raise LinkRefused(f"{self.path}: {LINK_REFUSED}") from exc
                raise
            try:
                yield fd
            finally:
                os.close(fd)

    def append(
        self, record: dict[str, Any], duplicate: Callable[[Any], bool] | None = None
    ) -> tuple[str, int] | None:
        """Append the record as one line, flushed to disk; returns the line and its number,
        or None (nothing written) when a line already in the file is its `duplicate`.

        A line is written whole or not at all: when the write fails part-way, the file is cut
        back to where it ended and the OSError raised."""
        data = record_bytes(record)  # before the file is touched: a bad record writes nothing
        with self._locked(create=True) as fd:
            assert fd is not None
            old = _read_all(fd)
            good = len(old)
            if old and not old.endswith(b"\n"):
                start = old.rfind(b"\n") + 1
                if _is_fragment(old[start:]):
                    good = start  # a killed writer's half line: never glued to this one
            body = old[:good]
            if duplicate is not None and any(
                duplicate(rec) for rec in _records(body.decode("utf-8", "replace"))
            ):
                return None
            prefix = b"\n" if body and not body.endswith(b"\n") else b""  # a hand edit's end
            n = body.count(b"\n") + len(prefix)
            try:
                if good < len(old):
                    os.ftruncate(fd, good)
                os.lseek(fd, good, os.SEEK_SET)
                view = memoryview(prefix + data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):  # cutting back frees space: it can succeed
                    os.ftruncate(fd, good)
                    os.fsync(fd)
                raise
        return data.decode("utf-8"), n + 1

    def remove(self, line: str) -> bool:
        """Remove the last occurrence of exactly this line; False (file untouched) if absent.

        The file is rewritten beside itself and renamed over it, so a crash leaves either
        the old or the new file whole; other lines, added meanwhile by hand or by another
        page, are kept (the lock holds them off while the file is rewritten)."""
        want = line.encode("utf-8")
        with self._locked(create=False) as fd:
            if fd is None:
                return False
            data = _read_all(fd)
            at = data.rfind(want)
            while at > 0 and data[at - 1 : at] != b"\n":
                at = data.rfind(want, 0, at)
            if at < 0:
                return False
            kept = data[:at] + data[at + len(want) :]
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            try:
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
                try:
                    view = memoryview(kept)
                    while view:
                        view = view[os.write(out, view) :]
                    os.fsync(out)
                finally:
                    os.close(out)
                os.replace(tmp, self.path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        return True


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _records(text: str) -> Iterator[Any]:
    for line in text.split("\n"):
        if line.strip():
            try:
                yield parse_json_value(line)
            except ValueError:
                continue
