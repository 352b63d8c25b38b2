"""User-written regular expressions: compiled with a timeout, screened for catastrophic backtracking."""

from __future__ import annotations

import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
import string
import warnings
from functools import lru_cache
from typing import Any

import regex

# A match on an answer of a few thousand characters takes microseconds; a second
# means the pattern is backtracking and the check must report an error instead.
MATCH_TIMEOUT_S = 1.0
PROBE_TIMEOUT_S = 0.05
_UNBOUNDED = sre_c.MAXREPEAT
_REPEATS = (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT)
# Characters an alternative may start with, to test two alternatives for overlap: ASCII,
# and a few letters, digits and spaces beyond it.
_ALPHABET = string.printable + "\u00e9\u00df\u00c4\u4e2d\u0663\u00a0\u2028\u00bd\u20ac"
# A quantifier that can repeat a group more than ten times: `*`, `+`, `{n,}`, `{n,m}`.
_QUANTIFIER = regex.compile(r"[*+]|\{(\d*),(\d*)\}")


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


def _groups(pattern: str) -> list[tuple[str, int, str]]:
    """(content, end, scoped flags) of every group in the pattern text, innermost first;
    lookarounds, comments and conditionals are left out. Classes and escapes are skipped."""
    out: list[tuple[str, int, str]] = []
    stack: list[tuple[int, bool, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _class_end(pattern, i)
            continue
        if ch == "(":
            start, plain, scoped = i + 1, True, ""
            if pattern.startswith("?", start):
                head = regex.match(
                    r"\?(?::|P?<(?![=!])[^>]*>|'[^']*'|[aiLmsuxV01-]+:|>)", pattern[start:]
                )
                plain = head is not None
                if head and regex.fullmatch(r"\?[aiLmsuxV01-]+:", head.group(0)):
                    on = head.group(0)[1:-1].split("-")[0]
                    scoped = f"(?{on})" if on else ""
                start += len(head.group(0)) if head else 0
            stack.append((start, plain, scoped))
        elif ch == ")" and stack:
            start, plain, scoped = stack.pop()
            if plain:
                out.append((pattern[start:i], i + 1, scoped))
        i += 1
    return out


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class that opens at `i` (nested `[...]` allowed)."""
    depth, j, n = 0, i, len(pattern)
    while j < n:
        ch = pattern[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            depth += 1
            if pattern.startswith("^", j + 1):
                j += 1
            if pattern.startswith("]", j + 1):  # a leading `]` is a literal
                j += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def _split_alternatives(body: str) -> list[str]:
    """The top-level alternatives of a group's body."""
    alts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _class_end(body, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            alts.append(body[start:i])
            start = i + 1
        i += 1
    return [*alts, body[start:]]


def _starts(alt: str, flags: str) -> set[str] | None:
    """The sample characters a match of `alt` can begin with (`""` when it can be empty);
    None when the alternative cannot be compiled on its own (a backreference)."""
    try:
        compiled = regex.compile(flags + alt, regex.V0)
    except regex.error:
        return None
    out = {c for c in _ALPHABET if compiled.fullmatch(c, partial=True, timeout=PROBE_TIMEOUT_S)}
    if compiled.fullmatch("", timeout=PROBE_TIMEOUT_S):
        out.add("")
    return out


def _overlapping_alternation(pattern: str) -> str | None:
    """A group repeated without bound whose alternatives can begin with the same character.

    `(?:[A-Z]|[A-Z0-9])+$` gives every upper-case letter two ways through the loop, so a
    failing match retries 2^n splits of a run of n letters. Python's own parser merges such
    branches into one class, which hides them from the structural screen; this reads the
    pattern text instead, and asks the engine (with partial matching) where each
    alternative can begin.
    """
    flags = regex.match(r"(?:\(\?[aiLmsuxV01]+\))*", pattern).group(0)  # global inline flags
    for body, end, scoped in _groups(pattern):
        m = _QUANTIFIER.match(pattern, end)
        if not m or (m.group(0).startswith("{") and m.group(2) and int(m.group(2)) <= 10):
            continue
        alts = _split_alternatives(body)
        if len(alts) < 2:
            continue
        seen: set[str] = set()
        for alt in alts:
            firsts = _starts(alt, flags + scoped)
            if firsts is None:
                continue
            if "" in firsts:
                return "a repeated alternation with a branch that can match nothing"
            if firsts & seen:
                return "repeated alternation whose branches can match the same text"
            seen |= firsts
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
    chars = {"a", "1", " ", "x", "A"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set": syntax `regex` reads
            parsed = sre_parse.parse(pattern)
    except Exception:  # syntax only `regex` knows: rely on the probe below
        parsed = None
    problem = _nested_problem(list(parsed)) if parsed is not None else None
    problem = problem or _overlapping_alternation(pattern)
    if problem:
        raise PatternError(f"can backtrack catastrophically: {problem}")
    if parsed is not None:
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
