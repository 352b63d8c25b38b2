"""Rows of many run files in case order without holding them: sorted runs of rows spilled to
temporary files, then merged (an external sort).

`invoke merge` of 100,000 rows held every row's line (270 MB); this holds one chunk of
lines at a time while sorting and one line per chunk file while merging.
"""

from __future__ import annotations

import heapq
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Bytes of row lines sorted in memory before they are written out as one sorted chunk.
CHUNK_BYTES = 4 << 20


@dataclass(frozen=True)
class Spilled:
    """One row as the merge reads it back: its key, where it came from and its line."""

    case: str
    epoch: int
    #: The index of its file among those given, and its place among that file's rows.
    source: int
    seq: int
    case_sha: str
    line: str


@dataclass
class Spill:
    """Rows added in any order, read back by (case, epoch), equal keys in the order added."""

    folder: Path
    #: None: CHUNK_BYTES.
    chunk_bytes: int | None = None
    _chunks: list[Path] = field(default_factory=list)
    _held: list[tuple[str, int, int, int, str, str]] = field(default_factory=list)
    _size: int = 0

    def add(self, case: str, epoch: int, source: int, seq: int, case_sha: str, line: str) -> None:
        self._held.append((case, epoch, source, seq, case_sha, line))
        self._size += len(line)
        if self._size >= (self.chunk_bytes or CHUNK_BYTES):
            self._flush()

    def _flush(self) -> None:
        if not self._held:
            return
        self._held.sort(key=lambda t: (t[0], t[1]))  # stable: equal keys stay as added
        path = self.folder / f"chunk-{len(self._chunks):06d}.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for item in self._held:
                fh.write(json.dumps(item) + "\n")  # ASCII: any string round-trips
        self._chunks.append(path)
        self._held, self._size = [], 0

    def rows(self) -> Iterator[Spilled]:
        """Every row added, by (case, epoch); may be read again."""
        if not self._chunks:
            # All of it fits in one chunk: sorted where it is, nothing written (a small diff
            # or merge touches no disk, and a full disk fails only the output it writes).
            self._held.sort(key=lambda t: (t[0], t[1]))
            yield from (Spilled(*item) for item in self._held)
            return
        self._flush()
        # heapq.merge keeps equal keys in the order of the chunks, and chunks were written
        # in the order their rows were added.
        yield from heapq.merge(*(_read(p) for p in self._chunks), key=lambda s: (s.case, s.epoch))


def _read(path: Path) -> Iterator[Spilled]:
    with open(path, encoding="utf-8", newline="\n") as fh:
        for line in fh:
            yield Spilled(*json.loads(line))


def spill_folder() -> tempfile.TemporaryDirectory[str]:
    """A private temporary folder for the chunks (removed when closed)."""
    return tempfile.TemporaryDirectory(prefix="evals-merge-")
