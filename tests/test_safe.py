"""Strings from run files shown safely: ids checked against their rule, text escaped."""

from __future__ import annotations

import re

from evals.compare import safe

HOSTILE = "x` | <img src=x onerror=alert(1)> ![t](http://evil.example/t.png)"


def test_valid_ids_are_shown_as_they_are() -> None:
    assert safe.shown_case_id("pricing-pro.v2_de") == "pricing-pro.v2_de"
    assert safe.shown_run_id("2026-11-01T10-00-00-000000Z_0744be0") == (
        "2026-11-01T10-00-00-000000Z_0744be0"
    )


def test_ids_breaking_the_rule_get_a_stable_distinct_placeholder() -> None:
    for bad in (HOSTILE, "Upper", "-lead", "", "a" * 121, 42, None, "ok\n"):
        shown = safe.shown_case_id(bad)
        assert shown.startswith("invalid-id-") and safe.CASE_ID.fullmatch(shown), bad
    assert safe.shown_case_id(HOSTILE) == safe.shown_case_id(HOSTILE)
    assert safe.shown_case_id("x`1") != safe.shown_case_id("x`2")
    assert safe.shown_run_id(HOSTILE).startswith("invalid-run-id-")
    assert safe.md_id(safe.shown_case_id(HOSTILE)).startswith("`invalid-id-")


def test_markdown_text_escapes_every_markup_character() -> None:
    out = safe.md_text(HOSTILE)
    assert out == "x\\` \\| \\<img src=x onerror=alert(1)\\> !\\[t\\](http\\://evil.example/t.png)"
    unescaped = re.sub(r"\\.", "", out)
    assert not re.search(r"[`|<>\[\]]", unescaped)
    assert safe.md_text("see www.evil.example") == "see www\\.evil.example"
    assert safe.md_text("ping @jan about #12") == "ping `@jan` about `#12`"


def test_one_line_removes_control_and_direction_characters() -> None:
    assert safe.one_line("a\r\nb\tc") == "a b c"
    assert safe.one_line("red \x1b[31mtext") == "red ?[31mtext"
    assert safe.one_line("abc\u202edef") == "abc?def"
    assert safe.one_line("x" * 10, 5) == "xxxx…"
    assert safe.one_line("Gebühr für 5 € — ok") == "Gebühr für 5 € — ok"
