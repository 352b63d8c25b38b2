"""Groups of phrasings (a suite's synonyms, a language's equivalences) as a key that hashes
once: the matching memos take them as an argument on every call, hundreds of times per
answer, and a tuple of tuples of strings is hashed again, element by element, each time."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Groups(tuple[tuple[str, ...], ...]):
    """A tuple of phrasing groups, equal to and hashing as the plain tuple, hashed once."""

    def __new__(cls, groups: Iterable[Iterable[str]] = ()) -> Groups:
        return super().__new__(cls, (tuple(g) for g in groups))

    def __hash__(self) -> int:
        try:
            return self._hash  # type: ignore[has-type]
        except AttributeError:
            self._hash: int = tuple.__hash__(self)
            return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # The hash of strings differs between processes: a copy hashes afresh.
        return (Groups, (tuple(self),))
