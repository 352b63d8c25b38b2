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
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import overload

from evals.compare.epochs import CaseOutcome
from evals.compare.intervals import TIE_TOLERANCE

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


class Values:
    """Doubles, a byte each while every one is 0.0, 1.0 or missing (pass/fail outcomes of
    one attempt), eight from the first that is not; missing reads back as NaN."""

    def __init__(self) -> None:
        self.codes: array[int] | None = array("B")  # 0, 1, or 2 for missing
        self.doubles: array[float] | None = None

    def append(self, x: float | None) -> None:
        if self.codes is not None:
            if x is None:
                self.codes.append(2)
                return
            if x == 1.0 or (x == 0.0 and math.copysign(1.0, x) > 0):  # not -0.0: kept as is
                self.codes.append(int(x))
                return
            self.doubles, self.codes = array("d", (_DECODE[c] for c in self.codes)), None
        self.doubles.append(_NONE if x is None else x)  # type: ignore[union-attr]

    def __len__(self) -> int:
        return len(self.codes if self.codes is not None else self.doubles)  # type: ignore[arg-type]

    def __getitem__(self, i: int) -> float:
        return _DECODE[self.codes[i]] if self.codes is not None else self.doubles[i]  # type: ignore[index]

    def doubles_all(self) -> array[float]:
        """Every value as a double (NaN: missing): the array itself, or a copy of the bytes."""
        if self.codes is None:
            return self.doubles  # type: ignore[return-value]
        return array("d", (_DECODE[c] for c in self.codes))


_DECODE = (0.0, 1.0, _NONE)


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


class Ids:
    """Case ids kept in one byte buffer, each named by its number: about 14 bytes an id
    instead of a string object's 60."""

    def __init__(self) -> None:
        self._text = bytearray()
        self._ends = array("I")

    def add(self, value: str) -> int:
        self._text += value.encode("utf-8")
        self._ends.append(len(self._text))
        return len(self._ends) - 1

    def __getitem__(self, i: int) -> str:
        start = self._ends[i - 1] if i else 0
        return self._text[start : self._ends[i]].decode("utf-8")


class OutcomeColumns(Sequence[CaseOutcome]):
    """CaseOutcomes in arrays, read back as equal CaseOutcome objects, in the order added;
    about 30 bytes a case (figures of one comparison share their `keys` and `ids`)."""

    def __init__(self, keys: Keys, ids: Ids | None = None) -> None:
        self.keys = keys
        self.ids = ids if ids is not None else Ids()
        self._id = array("I")
        self.a = Values()
        self.b = Values()
        self._cluster = array("i")
        self._category = array("i")
        self._flags = bytearray()  # bit 0: flaky, bit 1: missing
        self.n_unscored = 0  # cases without a value in A or in B
        #: The rare cases with undecided epochs: (a_worst, b_worst, a_best, b_best) by index.
        self._bounds: dict[int, tuple[float | None, ...]] = {}

    def append(self, c: CaseOutcome, id_number: int | None = None) -> None:
        """Add one case; `id_number`: its id's number in `ids`, if it is there already."""
        self._id.append(self.ids.add(c.id) if id_number is None else id_number)
        self.a.append(c.a)
        self.b.append(c.b)
        self.n_unscored += c.a is None or c.b is None
        self._cluster.append(self.keys.code(c.cluster))
        self._category.append(self.keys.code(c.category))
        self._flags.append(int(c.flaky) | (int(c.missing) << 1))
        bounds = (c.a_worst, c.b_worst, c.a_best, c.b_best)
        if any(x is not None for x in bounds):
            self._bounds[len(self.a) - 1] = bounds

    def id_number(self, i: int) -> int:
        return self._id[i]

    def extend(self, cases: OutcomeColumns) -> None:
        for i, c in enumerate(cases):
            self.append(c, cases.id_number(i) if cases.ids is self.ids else None)

    def __len__(self) -> int:
        return len(self.a)

    def _one(self, i: int) -> CaseOutcome:
        a, b, flags = self.a[i], self.b[i], self._flags[i]
        worst = self._bounds.get(i, (None, None, None, None))
        return CaseOutcome(
            self.ids[self._id[i]],
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

    def indices(self, kind: str) -> Iterator[int]:
        """The cases that are `kind` (see `ids_where`), read from the arrays."""
        a, b, flags, n = self.a, self.b, self._flags, len(self)
        if kind in ("flaky", "missing"):
            bit = 1 if kind == "flaky" else 2
            return (i for i in range(n) if flags[i] & bit)
        if kind == "undecided":
            bounds = self._bounds
            return (
                i
                for i in range(n)
                if a[i] != a[i]
                or b[i] != b[i]
                or (i in bounds and (bounds[i][0] is not None or bounds[i][1] is not None))
            )
        return (i for i in range(n) if b[i] < a[i] - TIE_TOLERANCE)  # "down"

    def clusters(self) -> list[str | None]:
        return [self.keys.value(code) for code in self._cluster]

    def scored(self) -> OutcomeColumns:
        """The cases with a value in both runs, in order (the reading that leaves out the
        undecided ones): itself when every case has both (it is never changed once read)."""
        if not self.n_unscored:
            return self
        out = OutcomeColumns(self.keys, self.ids)
        for i in range(len(self)):
            a, b = self.a[i], self.b[i]
            if a == a and b == b:  # neither is NaN
                out.append(self._one(i), self._id[i])
        return out


class ExactSum:
    """A running sum kept exact (Shewchuk's partials, as `math.fsum` keeps them), so
    `value()` after adding x1..xn is `math.fsum([x1, ..., xn])` without holding the xs."""

    def __init__(self) -> None:
        self.partials: list[float] = []
        self.n = 0

    def add(self, x: float) -> None:
        self.n += 1
        i = 0
        for y in self.partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                self.partials[i] = lo
                i += 1
            x = hi
        self.partials[i:] = [x]

    def value(self) -> float:
        return math.fsum(self.partials)

    def mean(self) -> float:
        """`intervals.mean` of the values added (fsum over their count)."""
        return self.value() / self.n


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


_TESTS: dict[str, Callable[[CaseOutcome], bool]] = {
    "flaky": lambda c: c.flaky,
    "missing": lambda c: c.missing,
    "undecided": lambda c: c.has_error,
    "down": lambda c: c.b < c.a - TIE_TOLERANCE,  # type: ignore[operator]
}


def ids_where(endpoints: Mapping[str, Sequence[CaseOutcome]], kind: str) -> set[str]:
    """The ids of the cases of any figure that are flaky, missing from B, undecided in a
    run (`CaseOutcome.has_error`) or down in B (by more than the tie tolerance)."""
    out: set[str] = set()
    for cases in endpoints.values():
        if isinstance(cases, OutcomeColumns):
            out.update(cases.ids[cases.id_number(i)] for i in cases.indices(kind))
        else:
            test = _TESTS[kind]
            out.update(c.id for c in cases if test(c))
    return out


def cluster_keys(cases: Sequence[CaseOutcome]) -> list[str | None]:
    """Each case's cluster key, in order."""
    if isinstance(cases, OutcomeColumns):
        return cases.clusters()
    return [c.cluster for c in cases]


def scored_cases(cases: Sequence[CaseOutcome]) -> Sequence[CaseOutcome]:
    """The cases with a value in both runs, in order (columns stay columns)."""
    if isinstance(cases, OutcomeColumns):
        return cases.scored()
    return [c for c in cases if c.a is not None and c.b is not None]


def pair_values(cases: Sequence[CaseOutcome]) -> tuple[Sequence[float], Sequence[float]]:
    """A's and B's values of fully scored cases, as floats (columns: their arrays)."""
    if isinstance(cases, OutcomeColumns):
        return cases.a.doubles_all(), cases.b.doubles_all()
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
