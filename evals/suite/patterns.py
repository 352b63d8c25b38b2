"""User-written regular expressions: compiled with a timeout, screened for catastrophic backtracking."""

from __future__ import annotations

import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from functools import lru_cache
from typing import Any

import regex

# A match on an answer of a few thousand characters takes microseconds; a second
# means the pattern is backtracking and the check must report an error instead.
MATCH_TIMEOUT_S = 1.0
PROBE_TIMEOUT_S = 0.05
_UNBOUNDED = sre_c.MAXREPEAT
_REPEATS = (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT)


class PatternError(ValueError):
    """A pattern that does not compile or that can backtrack catastrophically."""


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile with the `regex` engine (which supports match timeouts)."""
    try:
        return regex.compile(pattern, regex.V0)
    except regex.error as exc:
        raise PatternError(f"does not compile: {exc}") from None


def search(pattern: str, text: str, timeout: float = MATCH_TIMEOUT_S) -> regex.Match[str] | None:
    """`regex.search` with a timeout; raises TimeoutError on runaway backtracking."""
    return compile_pattern(pattern).search(text, timeout=timeout)


def _can_repeat(node: list[tuple[Any, Any]]) -> bool:
    """Whether a parsed subpattern contains a quantifier that can match more than once."""
    for op, av in node:
        if op in _REPEATS:
            lo, hi, sub = av
            if hi == _UNBOUNDED or hi > 1 or _can_repeat(sub):
                return True
        elif op == sre_c.SUBPATTERN:
            if _can_repeat(av[-1]):
                return True
        elif op == sre_c.BRANCH and any(_can_repeat(alt) for alt in av[1]):
            return True
    return False


def _first_chars(alt: list[tuple[Any, Any]]) -> str | None:
    if not alt:
        return ""
    op, av = alt[0]
    if op == sre_c.LITERAL:
        return chr(av)
    return None  # unknown: classes, groups; treat as possibly overlapping


def _nested_problem(node: list[tuple[Any, Any]]) -> str | None:
    """Find an unbounded quantifier over something that can itself repeat or overlap."""
    for op, av in node:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            if hi == _UNBOUNDED or hi > 10:
                if _can_repeat(sub):
                    return "nested quantifier (a repeated group that itself repeats)"
                for sop, sav in sub:
                    if sop == sre_c.SUBPATTERN:
                        inner = sav[-1]
                        if len(inner) == 1 and inner[0][0] == sre_c.BRANCH:
                            firsts = [_first_chars(a) for a in inner[0][1][1]]
                            if None in firsts or len(set(firsts)) < len(firsts):
                                return "repeated alternation whose branches can match the same text"
            found = _nested_problem(sub)
            if found:
                return found
        elif op == sre_c.SUBPATTERN:
            found = _nested_problem(av[-1])
            if found:
                return found
        elif op == sre_c.BRANCH:
            for alt in av[1]:
                found = _nested_problem(alt)
                if found:
                    return found
    return None


def _literal_chars(node: list[tuple[Any, Any]], out: set[str]) -> None:
    for op, av in node:
        if op == sre_c.LITERAL:
            out.add(chr(av))
        elif op in _REPEATS:
            _literal_chars(av[2], out)
        elif op == sre_c.SUBPATTERN:
            _literal_chars(av[-1], out)
        elif op == sre_c.BRANCH:
            for alt in av[1]:
                _literal_chars(alt, out)


def screen_pattern(pattern: str) -> None:
    """Raise PatternError when the pattern fails to compile or may backtrack catastrophically."""
    problem = pattern_problem(pattern)
    if problem:
        raise PatternError(problem)


@lru_cache(maxsize=8192)
def pattern_problem(pattern: str) -> str | None:
    """Why the pattern is refused (does not compile, can backtrack), or None; cached, it is pure."""
    try:
        _screen(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def _screen(pattern: str) -> None:
    compiled = compile_pattern(pattern)
    chars = {"a", "1", " ", "x"}
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # syntax only `regex` knows: rely on the probe below
        parsed = None
    if parsed is not None:
        problem = _nested_problem(list(parsed))
        if problem:
            raise PatternError(f"can backtrack catastrophically: {problem}")
        _literal_chars(list(parsed), chars)
    # A probe with a timeout catches what the structural screen cannot see.
    for c in sorted(chars):
        for probe in (c * 64 + "\u0000!", (c + " ") * 32 + "\u0000"):
            if not _finishes(compiled, probe):
                raise PatternError("can backtrack catastrophically (probe timed out)")


def _finishes(compiled: regex.Pattern[str], probe: str) -> bool:
    """Whether a search ends in time; a timeout is retried once with ten times the time, so
    a busy machine pausing this process is not mistaken for backtracking."""
    for timeout in (PROBE_TIMEOUT_S, PROBE_TIMEOUT_S * 10):
        try:
            compiled.search(probe, timeout=timeout)
            return True
        except TimeoutError:
            continue
    return False
