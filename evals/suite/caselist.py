"""Valid cases that are read from their files when asked for, not held.

A run of 100,000 cases held every parsed case (2 KB each). A `CaseList` holds what names
and vouches for each case instead: its id (all ids in one run of bytes), its content sha (32
bytes) and a hash of the bytes that were validated (8 bytes), about 60 bytes a case. A case
is read again, and parsed, each time it is asked for; bytes that changed since they were
validated are refused, never graded.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import overload

from evals.errors import InputError, Problem
from evals.suite.case import Case


def bytes_digest(raw: bytes) -> bytes:
    """What a case list keeps of a file's validated bytes to know them again."""
    return hashlib.blake2b(raw, digest_size=8).digest()


class CaseListBuilder:
    """Valid cases added one at a time (in the order of their file names)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # Bytes, not a StringIO: it keeps every string written until it is read (7 MB).
        self._ids = bytearray()
        self._starts = array("q", [0])
        self._shas = bytearray()
        self._digests = bytearray()

    def add(self, case_id: str, sha: str, raw: bytes) -> None:
        self._ids += f"{case_id}\n".encode()
        self._starts.append(len(self._ids))
        self._shas += bytes.fromhex(sha)
        self._digests += bytes_digest(raw)

    def build(self) -> CaseList:
        """The cases in id order (names sort as ids do unless an id is another's prefix)."""
        cases = CaseList(self.folder, self._ids, self._starts, self._shas, self._digests)
        if all(a < b for a, b in _pairs(cases.ids())):
            return cases
        return cases._keep(sorted(range(len(cases)), key=cases._id))


def _pairs(items: Iterator[str]) -> Iterator[tuple[str, str]]:
    prev = next(items, None)
    for item in items:
        assert prev is not None
        yield prev, item
        prev = item


class CaseList(Sequence[Case]):
    """Cases of one folder in id order, each read from `folder/<id>.json` when asked for."""

    def __init__(
        self,
        folder: Path,
        ids: bytes | bytearray,
        starts: array[int],
        shas: bytes | bytearray,
        digests: bytes | bytearray,
        order: array[int] | None = None,
    ) -> None:
        self.folder = folder
        self._ids, self._starts, self._shas, self._digests = ids, starts, shas, digests
        #: The positions kept by a selection (None: every case).
        self._order = order

    def __len__(self) -> int:
        return len(self._starts) - 1 if self._order is None else len(self._order)

    def _at(self, i: int) -> int:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return i if self._order is None else self._order[i]

    def _id(self, j: int) -> str:
        return self._ids[self._starts[j] : self._starts[j + 1] - 1].decode()

    def _sha(self, j: int) -> str:
        return self._shas[32 * j : 32 * j + 32].hex()

    def _positions(self) -> Iterator[int]:
        return iter(range(len(self._starts) - 1)) if self._order is None else iter(self._order)

    @overload
    def __getitem__(self, i: int) -> Case: ...

    @overload
    def __getitem__(self, i: slice) -> CaseList: ...

    def __getitem__(self, i: int | slice) -> Case | CaseList:
        if isinstance(i, slice):
            return self._keep(list(self._positions())[i])
        return self._read(self._at(i))

    def _read(self, j: int) -> Case:
        cid = self._id(j)
        path = self.folder / f"{cid}.json"
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise InputError(
                [Problem(str(path), "", f"cannot read: {exc.strerror or exc}")]
            ) from None
        if bytes_digest(raw) != self._digests[8 * j : 8 * j + 8]:
            raise InputError(
                [
                    Problem(
                        str(path), "", "changed since it was validated: run again to read it anew"
                    )
                ]
            )
        return Case(json.loads(raw), path, self._sha(j))

    def __iter__(self) -> Iterator[Case]:
        for j in self._positions():
            yield self._read(j)

    def ids(self) -> Iterator[str]:
        """Every case's id, in order, without reading a file."""
        return (self._id(j) for j in self._positions())

    def id_shas(self) -> Iterator[tuple[str, str]]:
        """(id, content sha) of every case, in id order, without reading a file."""
        return ((self._id(j), self._sha(j)) for j in self._positions())

    def _keep(self, positions: Iterable[int]) -> CaseList:
        return CaseList(
            self.folder, self._ids, self._starts, self._shas, self._digests, array("q", positions)
        )

    def where_id(self, keep: Callable[[str], bool]) -> CaseList:
        """The cases whose id `keep` accepts (no file read)."""
        return self._keep(j for j in self._positions() if keep(self._id(j)))

    def where(self, keep: Callable[[Case], bool]) -> CaseList:
        """The cases `keep` accepts, each read once to decide."""
        return self._keep(j for j in self._positions() if keep(self._read(j)))

    def split(self, keep: Callable[[Case], bool]) -> tuple[CaseList, CaseList]:
        """(the cases `keep` accepts, the others), each case read once to decide."""
        yes, no = array("q"), array("q")
        for j in self._positions():
            (yes if keep(self._read(j)) else no).append(j)
        return self._keep(yes), self._keep(no)

    def in_name_order(self) -> CaseList:
        """The cases in the order of their file names (as `load_cases` gives them)."""
        names = (f"{cid}.json" for cid in self.ids())
        if all(a < b for a, b in _pairs(names)):
            return self
        return self._keep(sorted(self._positions(), key=lambda j: f"{self._id(j)}.json"))

    def select(
        self, *, case_glob: str | None = None, category: str | None = None, limit: int | None = None
    ) -> CaseList:
        """`suite.folder.select_cases` on a list already in id order."""
        out = self
        if case_glob:
            out = out.where_id(lambda cid: fnmatch.fnmatchcase(cid, case_glob))
        if category:
            out = out.where(lambda c: c.category == category)
        if limit is not None:
            out = out[: max(limit, 0)]
        return out


def case_names(folder: Path) -> list[str]:
    """Every `*.json` entry of `folder` by name, as `Suite.case_files` lists them, without a
    path object each (100,000 of them took 20 MB)."""
    try:
        return sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:  # none, not a folder, or unreadable: no case files, as before
        return []


def file_stems(folder: Path) -> LazySet:
    """The stems of a folder's case files (valid or not), as `Suite.case_files` names them."""
    return LazySet(lambda: (stem(n) for n in case_names(folder)))


def count_case_files(folder: Path) -> int:
    """`len(Suite.case_files())`, nothing listed."""
    try:
        return sum(1 for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return 0


def stem(name: str) -> str:
    """`Path(name).stem` of a `*.json` name."""
    return name if name == ".json" else name[:-5]


class LazySet(Collection[str]):
    """A set of ids made only when first asked: most suites have no labelled answers to
    look ids up for, and 100,000 ids in a set take 10 MB."""

    def __init__(self, make: Callable[[], Iterable[str]]) -> None:
        self._make = make
        self._stems: set[str] | None = None

    def _all(self) -> set[str]:
        if self._stems is None:
            self._stems = set(self._make())
        return self._stems

    def __contains__(self, cid: object) -> bool:
        return cid in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
