"""Per-case outcomes for the gate kept as columns: a few bytes a case instead of an object.

`invoke diff` of 100,000 cases held two CaseOutcome objects a case (about 130 bytes each,
and an id string); `OutcomeColumns` keeps the same values in arrays (the ids in one byte
buffer, cluster and category keys as small integers into one shared table) and hands out
a CaseOutcome only while it is read. It is a `Sequence[CaseOutcome]`, so the gate's pure
functions read it like the list they were written for; `scored_cases` and `pair_values`
let them take the compact path when they are given columns.
"""

from __future__ import annotations

import dataclasses
import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import overload

from evals.compare.epochs import CaseOutcome

_NONE = math.nan  # no value (every epoch undecided); scores and rates are never NaN


class Keys:
    """Strings kept once, each named by a small integer (-1: None): clusters, categories."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self.values: list[str] = []

    def code(self, value: str | None) -> int:
        if value is None:
            return -1
        found = self._index.get(value)
        if found is None:
            found = self._index[value] = len(self.values)
            self.values.append(value)
        return found

    def value(self, code: int) -> str | None:
        return None if code < 0 else self.values[code]


class KeyColumn(Sequence[str | None]):
    """A column of keys (cluster keys of the paired cases, say), 4 bytes a case."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self.codes = array("i")

    def append(self, value: str | None) -> None:
        self.codes.append(self.keys.code(value))

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, i: int) -> str | None: ...
    @overload
    def __getitem__(self, i: slice) -> list[str | None]: ...
    def __getitem__(self, i: int | slice) -> str | None | list[str | None]:
        if isinstance(i, slice):
            return [self.keys.value(c) for c in self.codes[i]]
        return self.keys.value(self.codes[i])

    def __iter__(self) -> Iterator[str | None]:
        value = self.keys.value
        return (value(c) for c in self.codes)


class OutcomeColumns(Sequence[CaseOutcome]):
    """CaseOutcomes in arrays, read back as equal CaseOutcome objects, in the order added."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self._ids = bytearray()
        self._ends = array("Q")
        self.a = array("d")
        self.b = array("d")
        self._cluster = array("i")
        self._category = array("i")
        self._flags = bytearray()  # bit 0: flaky, bit 1: missing
        #: The rare cases with undecided epochs: (a_worst, b_worst, a_best, b_best) by index.
        self._bounds: dict[int, tuple[float | None, ...]] = {}

    def append(self, c: CaseOutcome) -> None:
        self._ids += c.id.encode("utf-8")
        self._ends.append(len(self._ids))
        self.a.append(_NONE if c.a is None else c.a)
        self.b.append(_NONE if c.b is None else c.b)
        self._cluster.append(self.keys.code(c.cluster))
        self._category.append(self.keys.code(c.category))
        self._flags.append(int(c.flaky) | (int(c.missing) << 1))
        bounds = (c.a_worst, c.b_worst, c.a_best, c.b_best)
        if any(x is not None for x in bounds):
            self._bounds[len(self.a) - 1] = bounds

    def extend(self, cases: OutcomeColumns) -> None:
        for c in cases:
            self.append(c)

    def __len__(self) -> int:
        return len(self.a)

    def _one(self, i: int) -> CaseOutcome:
        start = self._ends[i - 1] if i else 0
        a, b, flags = self.a[i], self.b[i], self._flags[i]
        worst = self._bounds.get(i, (None, None, None, None))
        return CaseOutcome(
            self._ids[start : self._ends[i]].decode("utf-8"),
            None if a != a else a,  # NaN: no value
            None if b != b else b,
            self.keys.value(self._cluster[i]),
            self.keys.value(self._category[i]),
            bool(flags & 1),
            *worst,
            missing=bool(flags & 2),
        )

    @overload
    def __getitem__(self, i: int) -> CaseOutcome: ...
    @overload
    def __getitem__(self, i: slice) -> list[CaseOutcome]: ...
    def __getitem__(self, i: int | slice) -> CaseOutcome | list[CaseOutcome]:
        if isinstance(i, slice):
            return [self._one(j) for j in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._one(i)

    def __iter__(self) -> Iterator[CaseOutcome]:
        return (self._one(i) for i in range(len(self)))

    def scored(self) -> OutcomeColumns:
        """The cases with a value in both runs, in order (the reading that leaves out the
        undecided ones), as columns again."""
        out = OutcomeColumns(self.keys)
        for i in range(len(self)):
            if self.a[i] == self.a[i] and self.b[i] == self.b[i]:  # neither is NaN
                out.append(self._one(i))
        return out


class Patched(Sequence[CaseOutcome]):
    """`base` with a few outcomes put in place of or before its own, read in order: the
    figures with errored epochs as undecided differ from the plain ones only at the cases
    that errored, so only those are held again."""

    def __init__(self, base: Sequence[CaseOutcome]) -> None:
        self.base = base
        #: (position in base, outcome, whether it takes that position's place or goes before it)
        self.patches: list[tuple[int, CaseOutcome, bool]] = []

    def put(self, at: int, outcome: CaseOutcome, replace: bool) -> None:
        self.patches.append((at, outcome, replace))

    def __len__(self) -> int:
        return len(self.base) + sum(1 for _, _, replace in self.patches if not replace)

    def __iter__(self) -> Iterator[CaseOutcome]:
        patches = iter(self.patches)
        nxt = next(patches, None)
        for i in range(len(self.base) + 1):
            replaced = False
            while nxt is not None and nxt[0] == i:
                yield nxt[1]
                replaced = nxt[2]
                nxt = next(patches, None)
                if replaced:
                    break
            if i < len(self.base) and not replaced:
                yield self.base[i]

    @overload
    def __getitem__(self, i: int) -> CaseOutcome: ...
    @overload
    def __getitem__(self, i: slice) -> list[CaseOutcome]: ...
    def __getitem__(self, i: int | slice) -> CaseOutcome | list[CaseOutcome]:
        return list(self)[i]  # read whole only on the rare path that indexes it


def scored_cases(cases: Sequence[CaseOutcome]) -> Sequence[CaseOutcome]:
    """The cases with a value in both runs, in order (columns stay columns)."""
    if isinstance(cases, OutcomeColumns):
        return cases.scored()
    return [c for c in cases if c.a is not None and c.b is not None]


def pair_values(cases: Sequence[CaseOutcome]) -> tuple[Sequence[float], Sequence[float]]:
    """A's and B's values of fully scored cases, as floats (columns: their arrays)."""
    if isinstance(cases, OutcomeColumns):
        return cases.a, cases.b
    return [float(c.a) for c in cases], [float(c.b) for c in cases]  # type: ignore[arg-type]


def reading_cases(
    endpoints: Mapping[str, Sequence[CaseOutcome]], worst: bool, floor: float, ceiling: float
) -> dict[str, Sequence[CaseOutcome]]:
    """Each figure's cases under one reading of the undecided outcomes (worst: the plain
    extremes; a case undecided in both runs takes part like any other, as a pass in A and a
    fail in B: leaving it out would not be the least favourable reading)."""
    out: dict[str, Sequence[CaseOutcome]] = {}
    for key, cases in endpoints.items():
        if not worst:
            out[key] = scored_cases(cases)
            continue
        out[key] = [
            c
            if not c.has_error
            else dataclasses.replace(
                c,
                a=c.a_worst if c.a_worst is not None else ceiling if c.a is None else c.a,
                b=c.b_worst if c.b_worst is not None else floor if c.b is None else c.b,
                a_worst=None,
                b_worst=None,
                a_best=None,
                b_best=None,
            )
            for c in cases
        ]
    return out
