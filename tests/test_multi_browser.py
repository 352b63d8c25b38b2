"""The comparison page in headless Chromium, opened from disk: the grid with disagreements
first, sorting, a cell opened by click or keyboard with the answers side by side and a word
diff, and nothing from a run file running as markup."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke
from diffkit import project, row, write_run
from historykit import three_baselines

CHROMIUM = os.environ.get("EVALS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
XSS = "<img src=x onerror=\"document.title='pwned'\">"
BROKEN = {3, 11, 19}


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
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, viewport={"width": 1300, "height": 900}
        )
    except Exception as exc:  # no browser on this machine: say so instead of failing
        pw.stop()
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"cannot launch Chromium at {CHROMIUM} (apt-get install -y chromium): {exc}")
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


def _run(run_id: str, broken: set[int]) -> list[dict[str, Any]]:
    out = []
    for i in range(30):
        r = row(run_id, f"case-{i:03d}", "fail" if i in broken else "pass")
        r["draft"] = (
            f"The Pro plan costs {'39' if i in broken else '45'} EUR per seat [doc:pricing#plans]."
        )
        if i == 11 and broken:
            r["draft"] += " " + XSS
        out.append(r)
    return out


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("compare-page"))
    paths = [
        write_run(root / "runs" / f"{name}.jsonl", name, _run(name, broken), label=name)
        for name, broken in (("base", set()), ("same", set()), ("worse", BROKEN), ("also", set()))
    ]
    out = root / "compare.html"
    res = invoke(root, "compare", *map(str, paths), "--html", str(out))
    assert res.returncode == 0, res.stderr
    return out


def test_the_grid_shows_the_disagreeing_cases_first_and_only_them(
    browser: Any, page_path: Path
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.as_uri())
    visible = page.locator("#grid tbody tr:visible")
    assert visible.count() == len(BROKEN)
    ids = visible.evaluate_all("rows => rows.map(r => r.dataset.id)")
    assert ids == [f"case-{i:03d}" for i in sorted(BROKEN)]
    assert visible.first.locator("button.cell").all_inner_texts() == [
        "pass",
        "pass",
        "fail",
        "pass",
    ]
    page.uncheck("#only-disagree")
    assert page.locator("#grid tbody tr:visible").count() == 30
    shot = page_path.with_suffix(".png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 5000
    assert errors == []
    page.close()


def test_a_click_shows_the_answers_side_by_side_with_a_word_diff(
    browser: Any, page_path: Path
) -> None:
    page = browser.new_page()
    page.goto(page_path.as_uri())
    page.locator('button.cell[data-run="2"]').first.click()
    detail = page.locator("#detail")
    assert detail.is_visible()
    assert detail.locator(".side").count() == 4
    worse = detail.locator(".side").nth(2)
    assert [t.strip() for t in worse.locator("del").all_inner_texts()] == ["45"]
    assert [t.strip() for t in worse.locator("ins").all_inner_texts()] == ["39"]
    assert "facts_present" in worse.locator("table").inner_text()
    assert detail.locator(".side").nth(0).locator("del, ins").count() == 0  # the baseline itself
    page.close()


def test_the_keyboard_opens_a_cell_and_escape_returns_to_it(browser: Any, page_path: Path) -> None:
    page = browser.new_page()
    page.goto(page_path.as_uri())
    cell = page.locator('button.cell[data-run="2"]').first
    cell.focus()
    page.keyboard.press("Enter")
    assert page.locator("#detail").is_visible()
    assert page.evaluate("document.activeElement.id") == "detail-title"
    page.keyboard.press("Escape")
    assert not page.locator("#detail").is_visible()
    assert page.evaluate("document.activeElement.dataset.run") == "2"
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    assert page.locator("#detail").is_visible()  # the next cell, reached by Tab
    page.close()


def test_sorting_by_a_run_puts_its_fails_first_and_says_so(browser: Any, page_path: Path) -> None:
    page = browser.new_page()
    page.goto(page_path.as_uri())
    page.uncheck("#only-disagree")
    page.locator('th[data-key="case"] button').click()
    page.locator('th[data-key="case"] button').click()
    assert page.locator("#grid tbody tr").first.get_attribute("data-id") == "case-029"
    header = page.locator('th[data-key="2"]')
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    first = page.locator("#grid tbody tr").first
    assert first.locator("td").nth(3).get_attribute("data-status") == "fail"
    page.close()


def test_one_check_can_be_shown_across_the_grid(browser: Any, page_path: Path) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.as_uri())
    page.select_option("#grid-check", "sources_cited")
    assert page.locator("#grid tbody tr:visible").count() == 0  # every run cites alike
    assert page.locator("#n-disagree").inner_text() == "0"
    page.select_option("#grid-check", "facts_present")
    visible = page.locator("#grid tbody tr:visible")
    assert visible.count() == len(BROKEN)
    assert visible.first.locator("button.cell").all_inner_texts() == [
        "pass",
        "pass",
        "fail",
        "pass",
    ]
    page.select_option("#grid-check", "")
    assert page.locator("#grid tbody tr:visible").count() == len(BROKEN)
    assert errors == []
    page.close()


def test_an_answer_with_markup_is_shown_as_text(browser: Any, page_path: Path) -> None:
    page = browser.new_page()
    page.goto(page_path.as_uri())
    page.locator('tr[data-id="case-011"] button.cell[data-run="2"]').click()
    assert page.title() != "pwned"
    assert page.locator("#detail img").count() == 0
    assert "onerror" in page.locator("#detail .side").nth(2).inner_text()
    page.close()


def test_the_history_page_draws_the_chart_with_a_point_per_baseline(
    browser: Any, tmp_path: Path
) -> None:
    root = three_baselines(tmp_path)
    out = root / "history.html"
    res = invoke(root, "history", "--html", str(out))
    assert res.returncode == 0, res.stderr
    page = browser.new_page()
    page.goto(out.as_uri())
    chart = page.locator("#history-chart")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    points = chart.locator("circle.release")
    assert points.count() == 3
    ys = [float(points.nth(i).get_attribute("cy") or 0) for i in range(3)]
    assert ys[1] > ys[0] and ys[1] > ys[2]  # the worse second release is drawn lower
    assert points.nth(1).get_attribute("data-verdict") == "FAIL"
    assert "vs before: FAIL" in (points.nth(1).locator("title").text_content() or "")
    assert page.locator("#releases tbody tr").count() == 3
    page.screenshot(path=str(root / "history.png"))
    page.close()
