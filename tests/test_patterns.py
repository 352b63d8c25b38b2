"""Regex screening: catastrophic patterns are refused before they can hang a run."""

from __future__ import annotations

import pytest

from evals.suite.patterns import PatternError, pattern_problem, screen_pattern, search


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+$",
        r"(a|aa)+$",
        r"(\w+\s?)*$",
        r"(x+x+)+y",
        r"(\d+)*x",
        r"(\s*,?\s*)*$",
        r"(?:a*)*b",
        r"(a|a?)+$",
        r"([a-z]+)*$",
    ],
)
def test_catastrophic_patterns_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError, match="catastrophic"):
        screen_pattern(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"\b45\s?€",
        r"pro rata",
        r"(?i)\bsupport@",
        r"\d+(\.\d+)?",
        r"(ab|cd)*e",
        r"\b(14|fourteen) days\b",
    ],
)
def test_ordinary_patterns_are_accepted(pattern: str) -> None:
    screen_pattern(pattern)
    assert pattern_problem(pattern) is None


def test_pattern_that_does_not_compile_is_refused() -> None:
    with pytest.raises(PatternError, match="does not compile"):
        screen_pattern("45 [€")


def test_search_times_out_instead_of_hanging() -> None:
    with pytest.raises(TimeoutError):
        search(r"(a|aa)+$", "a" * 40 + "!", timeout=0.05)


def test_screening_is_cached_per_pattern_and_still_raises_every_time() -> None:
    pattern_problem.cache_clear()
    for _ in range(3):
        with pytest.raises(PatternError, match="catastrophic"):
            screen_pattern(r"(a+)+$")
        screen_pattern(r"\b45\s?€")
    info = pattern_problem.cache_info()
    assert (info.misses, info.hits) == (2, 4)
