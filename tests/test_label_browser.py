"""The review page in headless Chromium, used by keyboard alone, with hostile run-file text."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from casekit import make_project, read_jsonl, write_case
from reportkit import XSS, XSS_ANSWER, cases, run_replay, write_answers
from test_label import Served

MODEL = "acme/support-bot@2026-10-01"
CHROMIUM = os.environ.get("EVALS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright; skipped only when it cannot be launched."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        pytest.skip(f"playwright is not installed: {exc}")
    profile = tempfile.mkdtemp(prefix="evals-chromium-")
    pw = sync_playwright().start()
    try:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS)
    except Exception as exc:  # no browser on this machine: say so instead of failing
        pw.stop()
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"cannot launch Chromium at {CHROMIUM} (apt-get install -y chromium): {exc}")
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    suite = make_project(tmp_path, [])
    for c in cases():
        if c["id"] in ("night-shift", "price-pro", "xss-note"):
            write_case(suite, c)
    answers = {
        "night-shift": "The night surcharge applies from 21:45 on [doc:rules#night].",
        "price-pro": "A Pro seat costs 39 € per month [doc:pricing#plans].",
        "xss-note": XSS_ANSWER,
    }
    run_replay(tmp_path, MODEL, write_answers(tmp_path / "answers.jsonl", answers), "first")
    s = Served(tmp_path, "--by", "ana")
    yield s, suite / "labelled"
    s.stop()


def lines(folder: Path) -> list[dict[str, Any]]:
    files = list(folder.glob("*.jsonl"))
    return read_jsonl(files[0]) if files else []


def test_a_person_labels_skips_and_undoes_with_the_keyboard_alone(
    browser: Any, served: tuple[Served, Path]
) -> None:
    from playwright.sync_api import expect

    server, folder = served

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    msg = page.locator("#msg")
    first = page.locator("#item-0")
    expect(first).to_be_visible()
    expect(first.locator(".case-id")).to_have_text("night-shift")
    # The figure is marked as the checks read it; the citation links to its passage.
    expect(first.locator("mark.fig")).to_have_text("21:45")
    expect(first.locator("mark.fig")).to_have_attribute("title", "time 21:45")
    href = first.locator("a.cite").get_attribute("href")
    expect(page.locator(str(href))).to_contain_text("22:00 or later")

    page.keyboard.press("w")
    expect(msg).to_contain_text("labelled wrong: ")
    expect(page.locator("#item-1")).to_be_visible()
    assert [(r["case"], r["label"], r["why"]) for r in lines(folder)] == [
        ("night-shift", "fail", "no reason given")
    ]

    # The reason box takes letters that are keys elsewhere; Esc gives the keys back.
    page.keyboard.press("e")
    page.keyboard.type("r: wrong price, w/o doubt")
    page.keyboard.press("Escape")
    page.keyboard.press("w")
    expect(msg).to_contain_text(".jsonl:2")
    assert lines(folder)[1]["why"] == "r: wrong price, w/o doubt"

    third = page.locator("#item-2")
    expect(third).to_be_visible()
    expect(third.locator(".answer")).to_contain_text(XSS)  # shown as text, never run
    assert page.evaluate("window.__pwned") is None
    page.keyboard.press("s")
    expect(page.locator("#done")).to_be_visible()

    page.keyboard.press("u")  # undo the skip: nothing was written, nothing is removed
    expect(third).to_be_visible()
    assert len(lines(folder)) == 2
    page.keyboard.press("u")  # undo the second label: its line leaves the file
    expect(page.locator("#item-1")).to_be_visible()
    expect(msg).to_contain_text("label removed")
    assert [r["case"] for r in lines(folder)] == ["night-shift"]
    expect(page.locator("#why")).to_have_value("r: wrong price, w/o doubt")
    page.keyboard.press("r")
    expect(msg).to_contain_text("labelled right")
    got = lines(folder)
    assert [(r["case"], r["label"]) for r in got] == [
        ("night-shift", "fail"),
        ("price-pro", "pass"),
    ]
    assert got[1]["by"] == "ana" and got[1]["why"] == "r: wrong price, w/o doubt"
    assert errors == []
    page.close()
