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


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?:[A-Z]|[A-Z0-9])+$",
        r"(?:\d|\w)+x",
        r"(?:ab|a)*c",
        r"(?i:[a-z]|Q)+$",
        r"(?P<w>[[:alpha:]]|é)+$",
        r"(?:[^,]|x)+$",
        r"(?:\s|,?)+$",
    ],
)
def test_repeated_alternatives_that_can_start_alike_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError, match="catastrophic"):
        screen_pattern(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?:[A-Z]|[0-9])+$",
        r"(?:EUR|€)\s?\d+",
        r"(?:\(|\[)doc:[^\])]+[\])]",
        r"\[doc:([^\]\s]+)\]",
        r"(?:x|y){2}z",
    ],
)
def test_repeated_alternatives_that_cannot_start_alike_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


def test_a_backtracking_mention_or_citation_pattern_fails_validate(tmp_path, monkeypatch) -> None:
    import json

    from casekit import good_case, make_project

    from evals.cli import guarded
    from evals.commands.suite import cmd_validate

    bad = r"(?:[A-Z]|[A-Z0-9])+$"
    suite = make_project(tmp_path, [good_case(expect={"mentions": [bad]})])
    monkeypatch.chdir(tmp_path)
    assert guarded(lambda: cmd_validate(None)) == 2
    (suite / "cases" / "price-pro.json").write_text(json.dumps(good_case()), encoding="utf-8")
    assert guarded(lambda: cmd_validate(None)) == 0
    (suite / "suite.toml").write_text(f"citation_pattern = '{bad}'\n", encoding="utf-8")
    assert guarded(lambda: cmd_validate(None)) == 2
