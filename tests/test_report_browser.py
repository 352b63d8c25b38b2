"""The HTML reports in headless Chromium, opened from disk: click, filter, sort, and no script runs."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke
from reportkit import XSS, Project, build

from evals.compare.explain import fmt_p
from evals.compare.pairing import compare_runs
from evals.numfmt import pct
from evals.run.files import read_run

CHROMIUM = os.environ.get("EVALS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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
            profile, executable_path=CHROMIUM, args=ARGS, viewport={"width": 1400, "height": 1000}
        )
    except Exception as exc:  # no browser on this machine: say so instead of failing
        pw.stop()
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"cannot launch Chromium at {CHROMIUM} (apt-get install -y chromium): {exc}")
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    proj = build(tmp_path_factory.mktemp("browser"))
    for args, name in (
        ((str(proj.run_a),), "a.html"),
        ((str(proj.run_b),), "b.html"),
        (("--a", str(proj.run_a), "--b", str(proj.run_b)), "cmp.html"),
    ):
        out = invoke(proj.root, "report", *args, "--html", str(proj.root / name))
        assert out.returncode == 0, out.stderr
    return proj


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    p = browser.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.errors = errors
    yield p
    p.close()


def open_report(page: Any, path: Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_selector("#cases tbody tr")


def visible_rows(page: Any) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "#cases tbody tr:not([hidden])",
        "rows => rows.map(r => ({id: r.dataset.kId, status: r.dataset.status,"
        " score: r.dataset.kScore, failing: r.dataset.failing}))",
    )


def test_clicking_a_case_opens_its_question_answer_passages_and_checks(
    page: Any, project: Project
) -> None:
    open_report(page, project.root / "a.html")
    assert page.locator("#detail-empty").is_visible()
    page.click('#cases tr[data-k-id="price-pro"]')
    detail = page.locator("article.detail:not([hidden])")
    assert detail.count() == 1
    assert "What does one more Pro seat cost per month?" in detail.locator(".question").inner_text()
    assert "45 € per seat and month" in detail.locator(".answer").inner_text()
    assert "Pro: 45 € per seat and month." in detail.locator(".passages").inner_text()
    assert "facts_present" in detail.locator("table.checks").inner_text()
    assert not page.locator("#detail-empty").is_visible()
    # The citation is a link to its passage: following it targets that passage.
    cite = detail.locator("a.cite").first
    assert cite.inner_text() == "[doc:pricing#plans]"
    cite.click()
    target = page.evaluate("document.querySelector(':target').innerText")
    assert "pricing#plans" in target and "Pro: 45 €" in target
    assert page.errors == []


def test_filtering_to_failures_shows_only_failed_and_errored_cases(
    page: Any, project: Project
) -> None:
    open_report(page, project.root / "a.html")
    assert page.inner_text("#shown-count") == "5 of 5"
    page.select_option("#f-status", "not-pass")
    rows = visible_rows(page)
    statuses = {r["id"]: r["status"] for r in rows}
    assert statuses == {"ghost": "error", "night-shift": "fail", "xss-note": "fail"}
    assert page.inner_text("#shown-count") == "3 of 5"
    page.select_option("#f-status", "all")
    page.select_option("#f-check", "facts_present")
    assert {r["id"] for r in visible_rows(page)} == {"night-shift", "xss-note"}
    page.select_option("#f-check", "")
    page.select_option("#f-category", "billing")
    assert {r["id"] for r in visible_rows(page)} == {"ghost", "refund-law"}


def test_sorting_by_score_orders_rows_both_ways(page: Any, project: Project) -> None:
    open_report(page, project.root / "b.html")
    page.click('#cases th[data-key="score"] button')
    scores = [float(r["score"]) for r in visible_rows(page) if r["score"] != ""]
    assert scores == sorted(scores)
    page.click('#cases th[data-key="score"] button')
    scores = [float(r["score"]) for r in visible_rows(page) if r["score"] != ""]
    assert scores == sorted(scores, reverse=True)
    assert page.get_attribute('#cases th[data-key="score"]', "aria-sort") == "descending"
    page.click('#cases th[data-key="id"] button')
    ids = [r["id"] for r in visible_rows(page)]
    assert ids == sorted(ids)


def test_markup_in_a_question_or_answer_renders_as_text_and_never_runs(
    page: Any, project: Project
) -> None:
    for name in ("a.html", "cmp.html"):
        page.goto((project.root / name).as_uri())
        if name == "a.html":
            page.click('#cases tr[data-k-id="xss-note"]')
            detail = page.locator("article.detail:not([hidden])")
            assert XSS in detail.locator(".question").inner_text()
            assert XSS in detail.locator(".answer").inner_text()
            assert detail.locator("img").count() == 0
        else:
            card = page.locator('article.case-cmp[data-case="xss-note"]')
            assert XSS in card.locator(".question").inner_text()
        assert page.locator("img").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.errors == []


def test_comparison_shows_broken_first_with_both_answers_and_diffs_numbers(
    page: Any, project: Project
) -> None:
    page.goto((project.root / "cmp.html").as_uri())
    cards = page.eval_on_selector_all(
        "#flips article.case-cmp", "a => a.map(x => [x.dataset.case, x.dataset.change])"
    )
    assert cards[0] == ["price-pro", "broken"]
    assert {c for c, _ in cards[1:]} == {"night-shift", "xss-note"}
    first = page.locator("#flips article.case-cmp").first
    sides = first.locator(".side .answer")
    assert sides.count() == 2
    assert first.locator("del").first.inner_text().strip() and first.locator("ins").count() > 0
    cmp = compare_runs(read_run(project.run_a), read_run(project.run_b))
    rate_change = cmp.decision.main.figures[0]
    assert page.inner_text("#st-n .value") == str(cmp.stats.n_paired)
    assert f"one-sided p = {fmt_p(rate_change.p_value)}" in page.inner_text("#st-pass-rate")
    rate = page.inner_text("#st-rate .value")
    assert rate == f"{pct(cmp.stats.rate_a)} → {pct(cmp.stats.rate_b)}"


def test_screenshots_of_both_reports(page: Any, project: Project, tmp_path: Path) -> None:
    """PNG screenshots; kept in $EVALS_SCREENS when set, for a person to look at."""
    out_dir = Path(os.environ.get("EVALS_SCREENS", tmp_path))
    out_dir.mkdir(parents=True, exist_ok=True)
    open_report(page, project.root / "b.html")
    page.select_option("#f-status", "not-pass")
    page.click("#cases tbody tr:not([hidden])")
    page.screenshot(path=str(out_dir / "report-run.png"), full_page=True)
    page.goto((project.root / "cmp.html").as_uri())
    page.screenshot(path=str(out_dir / "report-compare.png"), full_page=True)
    for name in ("report-run.png", "report-compare.png"):
        assert (out_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_a_report_of_100000_cases_opens_filters_and_pages_in_chromium(
    page: Any, tmp_path: Path
) -> None:
    from reportkit import large_run

    from evals.report.brief import briefs_for
    from evals.report.data import build_report
    from evals.report.html import render_run_html

    run = tmp_path / "large.jsonl"
    large_run(run, 100_000, failing=1000)
    briefs = briefs_for(run)
    html = render_run_html(build_report(read_run(run, keep=briefs.keep), briefs))
    out = tmp_path / "large.html"
    out.write_text(html, "utf-8")
    assert out.stat().st_size <= 50_000_000
    open_report(page, out)
    assert page.inner_text("#shown-count") == "100000 of 100000"
    assert len(visible_rows(page)) == 500 and page.is_visible("#pager")
    page.select_option("#f-status", "fail")
    assert page.inner_text("#shown-count") == "1000 of 100000"
    rows = visible_rows(page)
    assert len(rows) == 500 and {r["status"] for r in rows} == {"fail"}
    page.click("#page-next")
    assert "rows 501-1000, page 2 of 2" in page.inner_text("#page-info")
    page.select_option("#f-status", "pass")
    page.fill("#f-text", "case-09999")
    assert page.inner_text("#shown-count") == "10 of 100000"  # 099990 to 099999, all passes
    page.click("#cases tbody tr:not([hidden])")
    assert "invoke show case-09999" in page.inner_text("#brief-cmd")
    assert not page.errors
