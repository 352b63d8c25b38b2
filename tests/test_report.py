"""`invoke report`: the terminal report, --review, and the HTML pages' numbers and escaping."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke, read_jsonl, write_case
from openai_server import OpenAIServer
from reportkit import JUDGE, MODEL_A, XSS, Project, build, run_replay, write_answers
from reportkit import write_jsonl as write_records
from reviewkit import REASON, REVIEW_ANSWER, review_suite, run_review
from reviewkit import run_file as review_run_file

from evals.compare.explain import fmt_p, how_to_read, stats_lines, verdict_line
from evals.compare.pairing import compare_runs
from evals.numfmt import pct
from evals.report.compare_html import (
    in_review_rows,
    render_compare_html,
    side_html,
    word_diff,
)
from evals.report.data import build_report, citation_spans, percentile
from evals.report.html import render_run_html
from evals.run.files import read_run


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return build(tmp_path_factory.mktemp("report"))


def html_of(run: Path) -> str:
    return render_run_html(build_report(read_run(run)))


class Bars(HTMLParser):
    """Collects each chart bar's data attributes and the text drawn beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.bars: dict[str, dict[str, dict[str, str]]] = {}
        self._chart = ""
        self._bar: dict[str, str] | None = None
        self._in_pct = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "svg":
            self._chart = a.get("id", "")
            self.bars.setdefault(self._chart, {})
        elif tag == "g" and "bar" in a.get("class", "").split():
            self._bar = a
            self.bars[self._chart][a["data-name"]] = a
        elif tag == "tspan" and a.get("class") == "pct":
            self._in_pct = True

    def handle_data(self, data: str) -> None:
        if self._bar is not None and self._in_pct:
            self._bar["pct_text"] = data
        if self._bar is not None and data.startswith(" n="):
            self._bar["n_text"] = data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "tspan":
            self._in_pct = False
        if tag == "g":
            self._bar = None


# --- pure functions -------------------------------------------------------------------------


def test_percentile_interpolates_between_order_statistics() -> None:
    assert percentile([], 0.5) is None
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.95) == pytest.approx(3.85)
    assert percentile(list(map(float, range(1, 101))), 0.95) == pytest.approx(95.05)
    with pytest.raises(ValueError):
        percentile([1.0], 1.5)


def test_citations_are_found_with_the_runs_pattern() -> None:
    spans = citation_spans("Pro is 45 € [doc:pricing#plans], see [doc:x].", r"\[doc:([^\]\s]+)\]")
    assert [ref for _, ref in spans if ref] == ["pricing#plans", "x"]
    assert "".join(t for t, _ in spans) == "Pro is 45 € [doc:pricing#plans], see [doc:x]."
    assert citation_spans("text", "(") == [("text", None)]  # a broken pattern highlights nothing


def test_word_diff_marks_only_the_changed_words_and_escapes() -> None:
    a, b = word_diff("costs 45 € <b>now</b>", "costs 39 € <b>now</b>")
    assert a == "costs <del>45</del> € &lt;b&gt;now&lt;/b&gt;"
    assert b == "costs <ins>39</ins> € &lt;b&gt;now&lt;/b&gt;"


# --- terminal ---------------------------------------------------------------------------------


def test_terminal_report_shows_rates_with_n_errors_cost_and_latency(project: Project) -> None:
    out = invoke(project.root, "report", str(project.run_a))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    summary = read_run(project.run_a).summary
    assert summary is not None
    for name, r in summary["checks"].items():
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(name + " "))
        assert pct(r["rate"]) in line
        assert f"{r['pass']}/{r['n_scored']} of {r['n_total']}" in line
    assert "errors: 1 case(s)" in text
    assert "no saved answer for case 'ghost'" in text and "(ghost)" in text
    # Four replayed answers with latencies 100, 150, 200, 250 ms.
    assert "latency: p50 175 ms, p95 242 ms (n=4/5)" in text
    assert "total_tokens 492" in text  # 120 + 122 + 124 + 126


def test_terminal_report_lists_weakest_check_first(project: Project) -> None:
    text = invoke(project.root, "report", str(project.run_a)).stdout
    lines = [ln.split()[0] for ln in text.splitlines() if "%" in ln and " of " in ln]
    rates = read_run(project.run_a).summary["checks"]  # type: ignore[index]
    names = [n for n in lines if n in rates]
    assert [rates[n]["rate"] for n in names] == sorted(rates[n]["rate"] for n in names)


def test_report_resolves_latest_and_refuses_a_missing_run(project: Project) -> None:
    for args in (("latest",), ()):  # RUN may be left out: the newest run
        out = invoke(project.root, "report", *args)
        assert out.returncode == 0 and f"run {project.run_b.stem}" in out.stdout
    bad = invoke(project.root, "report", "no-such-run")
    assert bad.returncode == 2
    assert "no run file 'no-such-run'" in bad.stderr and "Traceback" not in bad.stderr


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of pass, fail and review rows: the review row's check could not decide."""
    root = tmp_path_factory.mktemp("reviewed")
    review_suite(root)
    assert run_review(root).returncode == 1
    return review_run_file(root)


def test_terminal_report_counts_cases_in_review_and_groups_them_by_why(reviewed: Path) -> None:
    out = invoke(reviewed.parent.parent, "report", str(reviewed), "--review")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "cases: 1 pass, 1 fail, 1 in review, 0 error, 3 total" in text
    assert "in review: 1 case(s) the checks could not decide (never scored)" in text
    assert f"  1x scope_bound: {REASON}  (price-review)" in text
    assert "read one: invoke show price-review" in text
    # scope_bound: 1 pass of 1 scored, then fail 0, review 2 (price-fail's too), error 0, skip 0.
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("scope_bound "))
    assert [c.strip() for c in re.split("[┃│]", row)][-4:] == ["0", "2", "0", "0"]
    # --review lists the undecided rows with the question, the answer and why.
    listed = text.split("in review, checks undecided: 1 row(s)")[1]
    assert "price-review  [review]" in listed and REVIEW_ANSWER in listed
    assert f"scope_bound: review: {REASON}" in listed


def test_html_report_marks_cases_in_review_apart_with_why(reviewed: Path) -> None:
    page = html_of(reviewed)
    assert re.search(r'id="card-in-review".*?>1<', page)
    section = re.search(r'<section class="errors reviews" id="reviews">(.*?)</section>', page)
    assert section and "In review: 1 case(s)" in section.group(1)
    assert html.escape(f"scope_bound: {REASON}") in section.group(1)
    assert "price-review" in section.group(1)
    row = re.search(r'<tr class="case-row review"[^>]*data-status="review".*?</tr>', page)
    assert row and '<span class="pill review">review</span>' in row.group(0)
    assert (
        f'<span class="chk review" title="{html.escape(REASON)}">scope_bound (review)'
        in row.group(0)
    )
    # Errors first, then review, then failures: review sits beside errors.
    order = re.findall(r'<tr class="case-row (\w+)"', page)
    assert order == ["review", "fail", "pass"]
    assert '<option value="review">review</option>' in page
    assert f"in review: scope_bound: {html.escape(REASON)}" in page  # the case's detail
    assert "<th>review</th>" in page  # beside error in the per-check table
    assert " · 2 review</tspan>" in page  # beside the scope_bound bar


def test_html_report_without_reviews_has_no_review_card_or_column(project: Project) -> None:
    page = html_of(project.run_a)
    assert "card-in-review" not in page and "<th>review</th>" not in page


def test_comparison_counts_each_sides_rows_in_review(reviewed: Path, project: Project) -> None:
    with_review, without = read_run(reviewed), read_run(project.run_a)
    n = len(without.rows)
    assert in_review_rows(with_review, without) == [
        ("in review", f"A 1 of 3, B 0 of {n} (never scored)")
    ]
    assert in_review_rows(without, without) == []


def test_comparison_side_names_the_checks_in_review_with_why() -> None:
    row = {
        "status": "review",
        "score": None,
        "checks": {"scope_bound": {"status": "review", "score": None, "detail": "<why>"}},
    }
    side = side_html("B", row, "text", [])
    assert '<span class="pill review">review</span>' in side
    assert '<span class="chk review" title="&lt;why&gt;">scope_bound (review)</span>' in side
    assert "all checks pass" not in side


def test_comparison_needs_html(project: Project) -> None:
    out = invoke(project.root, "report", str(project.run_a), "-b", str(project.run_b))
    assert out.returncode == 2 and "needs --html FILE" in out.stderr


def test_a_run_without_summary_is_recomputed_and_says_so(project: Project, tmp_path: Path) -> None:
    records = [r for r in read_jsonl(project.run_a) if r["kind"] != "summary"]
    cut = write_records(tmp_path / "cut.jsonl", records)
    rep = build_report(read_run(cut))
    assert rep.recomputed and any("no summary record" in w for w in rep.warnings)
    assert rep.summary["checks"] == read_run(project.run_a).summary["checks"]  # type: ignore[index]


# --- review -------------------------------------------------------------------------------------


def verdict(score: int, reasoning: str) -> str:
    return json.dumps(
        {"score": score, "grounded": True, "rubric_met": False, "reasoning": reasoning}
    )


def test_review_lists_flagged_rows_from_a_real_judged_run(project: Project, tmp_path: Path) -> None:
    from casekit import make_project
    from reportkit import ANSWERS_A, cases

    suite = make_project(tmp_path, [])
    for c in cases():
        if c["id"] == "night-shift":
            c["expect"]["rubric"] = "Names the 22:00 start."
        write_case(suite, c)
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")

    def responder(body: dict[str, Any]) -> str:
        text = json.dumps(body["messages"])
        if "22:00 start" in text:
            return "I think it is fine."  # prose, not a verdict: retried, then a judge error
        return verdict(2, "Cites <b>the page</b> but misses the month.")

    with OpenAIServer() as srv:
        srv.responder = responder
        env = {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-test-not-a-secret"}
        run = run_replay(
            tmp_path, MODEL_A, write_answers(tmp_path / "a.jsonl", ANSWERS_A), "judged",
            "--judge", JUDGE, env=env,
        )  # fmt: skip
    rows = {r["case"]: r for r in read_jsonl(run) if r["kind"] == "case"}
    assert rows["price-pro"]["needs_review"] and rows["night-shift"]["needs_review"]
    out = invoke(tmp_path, "report", str(run), "--review")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "judge: scored 1/2 cases that asked for it (1 error); 2 row(s) flagged" in text
    review = text.split("flagged for review: 2 row(s)")[1]
    assert "price-pro" in review and "What does one more Pro seat cost per month?" in review
    assert "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]." in review
    assert "score 2, grounded True, rubric_met False" in review
    assert "Cites <b>the page</b> but misses the month." in review
    assert "night-shift" in review and "judge error:" in review
    assert "xss-note" not in review  # not flagged
    # The HTML shows the same coverage, the flag and the verdict, escaped.
    page = html_of(run)
    assert re.search(r'id="card-judge".*?>1/2<', page)
    assert re.search(r'id="card-review".*?>2<', page)
    assert "Cites &lt;b&gt;the page&lt;/b&gt; but misses the month." in page


# --- HTML: numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["run_a", "run_b"])
def test_every_bar_equals_the_run_files_summary(project: Project, which: str) -> None:
    run = getattr(project, which)
    summary = read_run(run).summary
    assert summary is not None
    parser = Bars()
    parser.feed(html_of(run))
    for chart, key in (("chart-checks", "checks"), ("chart-categories", "categories")):
        assert set(parser.bars[chart]) == set(summary[key])
        for name, r in summary[key].items():
            bar = parser.bars[chart][name]
            assert bar["data-rate"] == ("" if r["rate"] is None else str(r["rate"]))
            assert (int(bar["data-n-scored"]), int(bar["data-n-total"])) == (
                r["n_scored"],
                r["n_total"],
            )
            assert bar["pct_text"] == pct(r["rate"])
            assert bar["n_text"] == f"n={r['n_scored']}/{r['n_total']}"


def test_headline_cards_equal_the_summary(project: Project) -> None:
    page = html_of(project.run_a)
    s = read_run(project.run_a).summary
    assert s is not None
    c = s["counts"]
    assert re.search(rf'id="card-fail".*?>{c["fail"]}<', page)
    assert re.search(rf'id="card-error".*?>{c["error"]}<', page)
    scored = c["pass"] + c["fail"]
    assert f"{c['pass']}/{scored} scored of {c['total']}" in page
    assert f"{s['score_mean']:.3f}" in page and f"n={s['n_scored']}/{s['n_total']}" in page
    assert "175 ms / 242 ms" in page
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert data and json.loads(data.group(1))["summary"] == s


def test_comparison_numbers_equal_invoke_diff(project: Project) -> None:
    a, b = read_run(project.run_a), read_run(project.run_b)
    cmp = compare_runs(a, b)
    page = render_compare_html(a, b)
    assert cmp.counts()["broken"] == 1 and cmp.counts()["fixed"] == 2
    rate = cmp.decision.main.figures[0]
    assert f"one-sided p = {fmt_p(rate.p_value)}" in page
    assert f">{cmp.stats.n_paired}<" in page
    # Every sentence of `invoke diff`'s statistics, its verdict and its guide appear word for word.
    for line in [*stats_lines(cmp), verdict_line(cmp), *how_to_read(cmp)]:
        assert html.escape(line) in page
    for c in cmp.checks:
        rate_a = pct(c.a_pass / c.a_n if c.a_n else None)
        assert f"{rate_a} ({c.a_pass}/{c.a_n})" in page
    # The embedded figures equal what `invoke diff --format json` prints for the same two files.
    out = invoke(
        project.root,
        "diff",
        "--a",
        str(project.run_a),
        "--b",
        str(project.run_b),
        "--format",
        "json",
    )
    assert out.returncode == cmp.decision.exit_code, out.stderr
    diff = json.loads(out.stdout)
    data = re.search(r'id="compare-data">(.*?)</script>', page, re.S)
    assert data
    embedded = json.loads(data.group(1))
    for key in ("counts", "stats", "checks", "categories", "verdict", "readings", "lines"):
        assert embedded[key] == diff[key], key
    # Broken before fixed, both before the unchanged ones; ghost errored in A and is not paired.
    flips = page.split('id="flips"')[1].split("</section>")[0]
    assert flips.index('data-case="price-pro"') < flips.index('data-case="night-shift"')
    assert 'data-case="refund-law"' not in flips
    assert "<del>45</del>" in page and "<ins>39</ins>" in page


def test_comparison_task_writes_the_page(project: Project) -> None:
    for flags in (("--a", str(project.run_a), "--b"), (str(project.run_a), "-b")):
        out_file = project.root / "out" / "cmp.html"
        out_file.unlink(missing_ok=True)
        out = invoke(project.root, "report", *flags, str(project.run_b), "--html", str(out_file))
        assert out.returncode == 0, out.stderr
        assert "Broken and fixed cases" in out_file.read_text("utf-8")


# --- HTML: escaping, passages, sealed ---------------------------------------------------------


def test_case_text_is_escaped_everywhere(project: Project) -> None:
    for page in (
        html_of(project.run_a),
        render_compare_html(read_run(project.run_a), read_run(project.run_b)),
    ):
        assert "<script>window.__pwned" not in page
        assert "<img src=x" not in page
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page


def test_embedded_json_cannot_close_its_script_element(tmp_path: Path, project: Project) -> None:
    records = read_jsonl(project.run_a)
    records[0]["label"] = "</script><script>window.__pwned=1</script>"
    for r in records:
        if r["kind"] == "summary":
            r["checks"]["</script><b>x"] = r["checks"]["facts_present"]
    page = html_of(write_records(tmp_path / "evil.jsonl", records))
    blob = page.split('id="report-data">')[1].split("</script>")[0]
    assert "<" not in blob and "\\u003c/script\\u003e" in blob
    assert json.loads(blob)["summary"]["checks"]["</script><b>x"]


def test_answer_citations_link_to_passages_read_from_the_suite(project: Project) -> None:
    page = html_of(project.run_a)
    m = re.search(r'<a class="cite" href="#(p-\d+-\d+)" data-ref="pricing#plans">', page)
    assert m, "the citation is linked"
    passage = re.search(rf'<li class="passage" id="{m.group(1)}">(.*?)</li>', page, re.S)
    assert passage and "Pro: 45 € per seat and month." in passage.group(1)
    assert "Plans" in passage.group(1)  # the passage's title


def test_without_the_suite_passages_are_refs_only(project: Project, tmp_path: Path) -> None:
    records = read_jsonl(project.run_a)
    records[0]["suite"] = str(tmp_path / "gone")
    page = html_of(write_records(tmp_path / "moved.jsonl", records))
    assert "suite not found: passage texts unavailable" in page
    assert "Pro: 45 € per seat and month." not in page and "pricing#plans" in page


def test_a_sealed_run_shows_aggregates_only(project: Project, tmp_path: Path) -> None:
    records = read_jsonl(project.run_b)
    records[0]["sealed"] = {"digest": "d" * 64, "n_cases": 5}
    sealed = write_records(tmp_path / "sealed.jsonl", records)
    page = html_of(sealed)
    rows = [r for r in records if r["kind"] == "case"]
    for r in rows:
        assert r["case"] not in page
        assert r["question"] not in page and r["draft"] not in page
    assert "Sealed run: aggregates only" in page and 'id="chart-checks"' in page
    summary = records[-1]
    assert f"n={summary['checks']['facts_present']['n_scored']}/" in page
    # Two sealed runs of the same pile: the comparison is aggregate-only too.
    records_a = read_jsonl(project.run_a)
    records_a[0]["sealed"] = records[0]["sealed"]
    sealed_a = write_records(tmp_path / "sa.jsonl", records_a)
    cmp_page = render_compare_html(read_run(sealed_a), read_run(sealed))
    for r in rows:
        assert r["case"] not in cmp_page and r["draft"] not in cmp_page
    assert 'id="figure-table"' in cmp_page and "one-sided p" in cmp_page
    # The terminal report of a sealed run (A has an error whose reason names its case).
    term = invoke(project.root, "report", str(sealed_a))
    assert term.returncode == 0 and "sealed run: aggregates only" in term.stdout
    assert "1x (reason withheld: sealed run)" in term.stdout
    assert not any(r["case"] in term.stdout for r in rows)
    assert invoke(project.root, "report", str(sealed_a), "--review").returncode == 2


def test_xss_fixture_is_really_in_the_run(project: Project) -> None:
    rows = [r for r in read_jsonl(project.run_a) if r.get("case") == "xss-note"]
    assert XSS in rows[0]["question"] and XSS in rows[0]["draft"]


def test_comparison_sides_show_each_score_rounded_like_the_card_heading(project: Project) -> None:
    a, b = read_run(project.run_a), read_run(project.run_b)
    page = render_compare_html(a, b)
    heads = re.findall(r'<div class="side-head">(.*?)</div>', page, re.S)
    assert heads
    scores = [re.search(r"</span> score (\S+) ·", h).group(1) for h in heads]
    assert all(re.fullmatch(r"\d\.\d{3}|n/a", s) for s in scores), scores
    shown = {f"{r['score']:.3f}" for r in a.rows + b.rows if r.get("score") is not None}
    assert set(scores) - {"n/a"} <= shown


def test_comparison_says_up_front_what_differs_between_the_runs(project: Project) -> None:
    a, b = read_run(project.run_a), read_run(project.run_b)
    cmp = compare_runs(a, b)
    names = [h.name for h in cmp.header if h.differs]
    assert names
    top = render_compare_html(a, b).split('<header class="top">')[1].split("</header>")[0]
    assert f'<th scope="row">differs</th><td><code>{html.escape(", ".join(names))}</code>' in top


def test_escape_sequences_and_lone_surrogates_in_a_run_file_reach_no_output_raw(
    project: Project, tmp_path: Path
) -> None:
    evil = "evil\x1b[2J\x1b]0;owned\x07"
    recs = read_jsonl(project.run_a)
    for rec in recs:
        rec["run_id"] = evil
        if rec["kind"] == "case":
            rec["category"] = "cat\x1b[31m"
            rec["draft"] = "half a pair \ud800 here"
        if rec["kind"] == "summary":
            rec["categories"] = {"cat\x1b[31m": next(iter(rec["categories"].values()))}
    path = write_records(tmp_path / "evil.jsonl", recs)
    page = tmp_path / "evil.html"
    out = invoke(project.root, "report", str(path), "--html", str(page))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stdout
    assert "run evil?[2J?]0;owned?" in out.stdout
    assert "cat?[31m" in out.stdout
    text = page.read_text("utf-8")
    assert "half a pair \ufffd here" in text and not list(tmp_path.glob("*.tmp"))


def test_the_html_stamps_are_a_table_of_one_stamp_a_row_not_a_json_dump(
    project: Project,
) -> None:
    page = html_of(project.run_a)
    stamps = page.split('<table class="kv" id="stamps">', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'<th scope="row">(.*?)</th><td><code>(.*?)</code></td>', stamps))
    header = read_run(project.run_a).header
    assert rows["settings › concurrency"] == str(header["settings"]["concurrency"])
    assert rows["versions › python"] == header["versions"]["python"]
    assert rows["git commit"].startswith(str(header["git"]["commit"] or "none")[:7])
    phrases = header["settings"]["refusal_phrases"]
    assert html.unescape(rows["settings › refusal_phrases"]) == ", ".join(phrases)
    # No value of a stamp is a JSON object any more.
    assert not [v for v in rows.values() if html.unescape(v).startswith("{")]
