"""`invoke diff`: pairing two run files case by case, the report, and the exit codes CI relies on."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from casekit import invoke
from diffkit import project, row, write_run

from evals.compare.gate import LEFT_OUT, WORST
from evals.compare.pairing import compare_runs
from evals.compare.render import render_json, render_markdown, render_text
from evals.errors import InputError
from evals.run.files import read_run
from evals.suite.schemas import schema_problems

BROKEN = {"c00", "c01", "c02"}
FIXED = {"c10", "c11"}


def scenario_rows() -> tuple[list[dict], list[dict]]:
    """20 cases with a known set of changed outcomes between run A and run B."""
    a, b = [], []
    for i in range(20):
        cid = f"c{i:02d}"
        if i < 10:
            a.append(row("A", cid, "pass", cluster=f"doc{i % 4}"))
        elif cid == "c13":
            a.append(
                row("A", cid, "fail", failed=("facts_present", "sources_cited"), cluster="doc1")
            )
        else:
            a.append(row("A", cid, "fail", cluster=f"doc{i % 4}"))
    for r in a:
        cid, cl = r["case"], r["cluster"]
        if cid == "c00":
            b.append(row("B", cid, "fail", failed=("sources_cited",), cluster=cl))
        elif cid == "c01":
            b.append(row("B", cid, "fail", failed=("facts_present", "no_forbidden"), cluster=cl))
        elif cid == "c02":
            b.append(row("B", cid, "fail", cluster=cl))
        elif cid == "c03":  # expectations edited between the runs: listed, never compared
            b.append(row("B", cid, "fail", case_text="v2", cluster=cl))
        elif cid == "c04":
            b.append(row("B", cid, "error", error="ProviderError: 503 from endpoint", cluster=cl))
        elif cid in FIXED:
            b.append(row("B", cid, "pass", cluster=cl))
        elif cid == "c12":  # still failing, lower score
            b.append(row("B", cid, "fail", failed=("facts_present", "sources_cited"), cluster=cl))
        elif cid == "c13":  # still failing, higher score
            b.append(row("B", cid, "fail", cluster=cl))
        elif cid == "c19":
            continue  # only in A
        else:
            b.append({**r, "run_id": "B"})
    b.append(row("B", "c20", "pass"))  # only in B
    return a, b


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    project(tmp_path)
    a, b = scenario_rows()
    pa = write_run(tmp_path / "runs" / "2026-11-01T10-00-00-000000Z_aaaaaaa.jsonl", "A", a)
    pb = write_run(
        tmp_path / "runs" / "2026-11-02T10-00-00-000000Z_bbbbbbb.jsonl",
        "B",
        b,
        created="2026-11-02T10:00:00Z",
        model="openai/gpt-4o-mini@2024-07-18",
        settings={"concurrency": 4, "epochs": 1},
    )
    return pa, pb


def test_test_run_files_follow_the_run_schema(runs: tuple[Path, Path]) -> None:
    for path in runs:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            assert schema_problems(json.loads(line), "run.schema.json", f"{path}:{n}") == []


def test_pairs_by_case_id_and_lists_exactly_the_fixed_and_broken_cases(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    by_change = {}
    for c in cmp.cases:
        by_change.setdefault(c.change, set()).add(c.id)
    assert by_change["broken"] == BROKEN
    assert by_change["fixed"] == FIXED
    assert by_change["DOWN"] == {"c12"}
    assert by_change["up"] == {"c13"}
    assert cmp.stats.n_paired == 17
    rate = cmp.decision.readings[LEFT_OUT].figures[0]
    assert rate.name == "pass rate" and rate.interval.estimate == pytest.approx((2 - 3) / 17)
    # The rows carry cluster keys doc0..doc3 of 5, 4, 4 and 4 cases: CR2 with
    # Bell-McCaffrey df (a little under G - 1 = 3, as the clusters are unequal).
    assert rate.interval.method == "cluster-robust t (CR2), 4 clusters (2.86 df)"
    # c04 errored in B (left out, counted by the error-rate test) and c19 is missing from
    # B (undecided: the gate reads it at its worst too).
    assert cmp.decision.readings[WORST].n_paired == 18
    assert cmp.decision.n_missing == 1 and cmp.decision.n_unknown == 1
    assert cmp.decision.n_errored == 1 and [u.id for u in cmp.errored] == ["c04"]


def test_an_edited_case_is_listed_as_changed_and_not_paired(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    assert [u.id for u in cmp.changed] == ["c03"]
    assert "c03" not in {c.id for c in cmp.cases}
    md = render_markdown(cmp)
    changed_section = md.split("### Not paired")[1]
    assert "`c03`" in changed_section
    assert "| `c03`" not in md  # not a row of the case table


def test_one_sided_and_errored_cases_are_listed_and_counted_not_scored(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    assert [u.id for u in cmp.only_a] == ["c19"]
    assert [u.id for u in cmp.only_b] == ["c20"]
    assert [u.id for u in cmp.errored] == ["c04"]
    assert "503" in cmp.errored[0].reason
    assert (cmp.a.n_error_rows, cmp.b.n_error_rows) == (0, 1)
    md = render_markdown(cmp)
    assert "Rows not scored: A 0 errored, 0 in review, of 20; B 1 errored, 0 in review, of 20" in md
    assert "**4 worse, 3 better, 10 same (1 errored, 1 missing from B, 1 only in B" in md


def test_markdown_table_shows_changed_rows_names_failing_checks_and_folds_the_rest(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    md = render_markdown(cmp)
    table = [ln for ln in md.splitlines() if ln.startswith("| `c")]
    assert {ln.split("`")[1] for ln in table} == BROKEN | FIXED | {"c12", "c13"}
    # Check names are run-file text: escaped in the table (`_` renders as itself).
    c00 = next(ln for ln in table if ln.startswith("| `c00`"))
    assert "broken: sources\\_cited" in c00
    c01 = next(ln for ln in table if ln.startswith("| `c01`"))
    assert "facts\\_present" in c01 and "no\\_forbidden" in c01
    assert "10 unchanged case(s) not shown" in md
    full = render_markdown(cmp, show_all=True)
    assert len([ln for ln in full.splitlines() if ln.startswith("| `c")]) == 17


def test_header_says_what_differs_between_the_runs(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    differs = {h.name for h in cmp.header if h.differs}
    assert {"created", "model", "settings.concurrency"} <= differs
    assert "prompt sha" not in differs and "git commit" not in differs
    md = render_markdown(cmp)
    model_line = next(ln for ln in md.splitlines() if ln.startswith("| model |"))
    assert "**differs**" in model_line


def test_figures_carry_n_an_interval_at_the_alpha_level_and_a_one_sided_p(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    diffs = sorted(c.rate_diff for c in cmp.cases)
    assert diffs == [-1.0] * 3 + [0.0] * 12 + [1.0] * 2
    rate, score = cmp.decision.readings[LEFT_OUT].figures
    assert (
        rate.interval.level == 0.95
        and rate.interval.low < rate.interval.estimate < rate.interval.high
    )
    assert score.interval.estimate == pytest.approx(cmp.stats.score_b - cmp.stats.score_a)
    md = render_markdown(cmp)
    assert "| pass rate, undecided left out | 47.1% (8/17) | 41.2% (7/17) | -5.9 pts |" in md
    assert "With 17 paired cases (undecided left out) the cluster-robust t test" in md
    data = json.loads(render_json(cmp))
    fig = data["readings"][LEFT_OUT]["figures"][0]
    assert fig["interval"]["estimate"] == pytest.approx(-1 / 17)
    assert fig["p_value"] == rate.p_value and fig["level"] == 0.025
    assert data["stats"]["clusters"] == {
        "n_cases": 17,
        "n_keyed": 17,
        "n_clusters": 4,
        "n_sharing": 0,
        "used": True,
    }
    narrow = compare_runs(read_run(runs[0]), read_run(runs[1]), alpha=0.2)
    wide = compare_runs(read_run(runs[0]), read_run(runs[1]), alpha=0.01)
    widths = [c.decision.main.figures[0].interval.width for c in (narrow, wide)]
    assert widths[0] < widths[1]


def test_no_discordant_pairs_is_said_instead_of_a_p_value(runs) -> None:
    run = read_run(runs[0])
    cmp = compare_runs(run, run)
    rate = cmp.decision.main.figures[0]
    assert rate.interval.mcnemar.n_discordant == 0 and rate.p_value == 1.0
    assert rate.interval.width > 0  # all ties, still an honest interval
    md = render_markdown(cmp)
    assert "no case flipped between pass and fail" in md
    assert cmp.decision.verdict == "PASS"


def test_epochs_make_each_case_pass_rate_the_paired_unit(tmp_path: Path) -> None:
    a_rows, b_rows = [], []
    for i in range(10):
        for e in range(3):
            a_rows.append(row("A", f"c{i}", "pass", epoch=e))
            # case c0 passes 1 of 3 epochs in B: broken; c1 has one error epoch in B.
            if i == 0 and e > 0:
                b_rows.append(row("B", f"c{i}", "fail", epoch=e))
            elif i == 1 and e == 2:
                b_rows.append(row("B", f"c{i}", "error", epoch=e, error="timeout"))
            else:
                b_rows.append(row("B", f"c{i}", "pass", epoch=e))
    pa = write_run(tmp_path / "a.jsonl", "A", a_rows, settings={"epochs": 3})
    pb = write_run(tmp_path / "b.jsonl", "B", b_rows, settings={"epochs": 3})
    cmp = compare_runs(read_run(pa), read_run(pb))
    assert cmp.stats.n_paired == 10  # cases, not 30 attempts
    assert cmp.decision.readings[LEFT_OUT].figures[0].interval.n == 10
    c0 = next(c for c in cmp.cases if c.id == "c0")
    assert (c0.b.n_pass, c0.b.n_scored, c0.change) == (1, 3, "broken")
    assert c0.flaky  # it passed once and failed twice in B
    c1 = next(c for c in cmp.cases if c.id == "c1")
    assert (c1.b.n_scored, c1.b.n_epochs, c1.change) == (2, 3, "same")
    assert cmp.b.n_error_rows == 1
    assert cmp.stats.rate_b == pytest.approx((1 / 3 + 9) / 10)
    md = render_markdown(cmp)
    assert "1/3 pass" in md and "### Flaky cases (1)" in md
    # Rates over epochs, not majority votes: the pass-rate change is -2/3 for c0 / 10 cases.
    rate = cmp.decision.readings[LEFT_OUT].figures[0]
    assert rate.interval.estimate == pytest.approx(-(2 / 3) / 10)
    # c1's errored epoch in B is left out (nothing else is undecided: one reading), and the
    # error-rate test counts c1 as a case that errored in B.
    assert WORST not in cmp.decision.readings and cmp.decision.n_errored == 1


def test_sealed_runs_pair_only_with_the_same_sealed_pile(tmp_path: Path) -> None:
    rows = [row("A", "c0", "pass")]
    plain = write_run(tmp_path / "plain.jsonl", "A", rows)
    s1 = write_run(tmp_path / "s1.jsonl", "A", rows, sealed={"digest": "1" * 64, "n": 1})
    s1b = write_run(tmp_path / "s1b.jsonl", "A", rows, sealed={"digest": "1" * 64, "n": 1})
    s2 = write_run(tmp_path / "s2.jsonl", "A", rows, sealed={"digest": "2" * 64, "n": 1})
    with pytest.raises(InputError, match="sealed run with an unsealed"):
        compare_runs(read_run(s1), read_run(plain))
    with pytest.raises(InputError, match="different sealed piles"):
        compare_runs(read_run(s1), read_run(s2))
    assert compare_runs(read_run(s1), read_run(s1b)).stats.n_paired == 1


def test_text_and_json_formats_carry_the_same_figures(runs) -> None:
    cmp = compare_runs(read_run(runs[0]), read_run(runs[1]))
    text = render_text(cmp)
    md = render_markdown(cmp)
    data = json.loads(render_json(cmp))
    assert data["counts"] == {"broken": 3, "DOWN": 1, "fixed": 2, "up": 1, "same": 10}
    assert data["verdict"]["verdict"] == cmp.decision.verdict and "c01" in text
    assert len(data["cases"]) == 17
    # Every sentence and every figure cell of the Markdown is in the text and the JSON too.
    for line in data["lines"] + data["how_to_read"]:
        assert line in text
    for reading in data["readings"].values():
        for f in reading["figures"]:
            cell = f"{f['p_value']:.4f}"
            assert cell in text and cell in md


# --- the real command, through the venv's invoke -----------------------------------------


def test_fail_on_regression_still_works_as_strict_with_a_note(runs, tmp_path: Path) -> None:
    res = invoke(
        tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--fail-on", "regression"
    )
    assert res.returncode == 1, res.stderr
    assert "| `c00`" in res.stdout
    assert "note: --fail-on regression is the old name of --fail-on strict" in res.stderr
    # c19, missing from B, went down too in the worst case (its score can only fall); c04
    # errored in B and is left out (the error-rate test counts it).
    assert "5 case(s) went down (c00, c01, c02, c12, c19)" in res.stderr


def test_default_mode_is_significant_and_passes_a_small_noisy_change(runs, tmp_path: Path) -> None:
    res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]))
    assert res.returncode == 0, res.stderr
    assert res.stderr.startswith("PASS (--fail-on significant")


def test_fail_on_never_exits_0(runs, tmp_path: Path) -> None:
    res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--fail-on", "never")
    assert res.returncode == 0, res.stderr


def _diff(tmp_path: Path, pa: Path, pb: Path, *flags: str):
    return invoke(tmp_path, "diff", "--a", str(pa), "--b", str(pb), *flags)


def test_fail_on_significant_exits_1_only_when_b_is_significantly_worse(tmp_path: Path) -> None:
    project(tmp_path)
    a = [row("A", f"c{i:02d}", "pass") for i in range(12)]
    b = [row("B", f"c{i:02d}", "fail" if i < 10 else "pass") for i in range(12)]
    pa = write_run(tmp_path / "a.jsonl", "A", a)
    pb = write_run(tmp_path / "b.jsonl", "B", b)
    res = _diff(tmp_path, pa, pb, "--fail-on", "significant")
    assert res.returncode == 1, res.stdout + res.stderr
    data = json.loads(_diff(tmp_path, pa, pb, "--format", "json", "--fail-on", "never").stdout)
    rate = data["readings"][LEFT_OUT]["figures"][0]
    # One-sided exact: all 10 discordant pairs broke, p = 1/2^10 (the two-sided test doubled it).
    assert math.isclose(rate["p_value"], 1 / 2**10)
    assert rate["interval"]["mcnemar"] == {"fixed": 0, "broken": 10, "n_discordant": 10}
    # The score only moves with the verdict here, so it is not a second test: alpha stays whole.
    assert rate["level"] == 0.05 and data["readings"][LEFT_OUT]["figures"][1]["gated"] is False
    assert _diff(tmp_path, pa, pb, "--alpha", "0.001").returncode == 1  # 1/1024 <= 0.001
    # Below 1/1024 no result with 10 discordant pairs can be significant: inconclusive, exit 3.
    tiny = _diff(tmp_path, pa, pb, "--alpha", "0.0005")
    assert tiny.returncode == 3, tiny.stderr
    assert "no result at this n could be significant" in tiny.stderr
    # The reverse direction (B better) is never a significant regression.
    assert _diff(tmp_path, pb, pa, "--fail-on", "significant").returncode == 0


def test_significant_mode_ignores_a_small_regression(runs, tmp_path: Path) -> None:
    res = invoke(
        tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--fail-on", "significant"
    )
    assert res.returncode == 0, res.stderr


def test_unreadable_or_incompatible_files_exit_2_with_the_reason(runs, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n{}\n", encoding="utf-8")
    res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(bad))
    assert res.returncode == 2
    assert "bad.jsonl" in res.stderr and "not a run file" in res.stderr
    assert "Traceback" not in res.stderr
    missing = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "nope.jsonl" in missing.stderr
    other = write_run(tmp_path / "other.jsonl", "X", [row("X", "zz", "pass")])
    res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(other))
    assert res.returncode == 2 and "no case in common" in res.stderr
    sealed = write_run(
        tmp_path / "sealed.jsonl", "S", [row("S", "c00", "pass")], sealed={"digest": "1" * 64}
    )
    res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(sealed))
    assert res.returncode == 2 and "sealed" in res.stderr
    flag = invoke(
        tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--fail-on", "sometimes"
    )
    assert flag.returncode == 2 and "--fail-on" in flag.stderr
    for name, value, says in (
        ("--alpha", "abc", "--alpha 'abc': expected a number"),
        ("--alpha", "0.7", "--alpha must be above 0 and below 0.5"),
        ("--margin", "-0.1", "--margin must be at least 0 and below 1"),
        ("--margin", "5", "in pass-rate units: 0.05 is 5 points"),
        ("--margin", "x", "--margin 'x': expected a number"),
    ):
        res = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), name, value)
        assert res.returncode == 2 and says in res.stderr, (name, value, res.stderr)
        assert "Traceback" not in res.stderr


def test_out_writes_the_report_and_formats_are_selectable(runs, tmp_path: Path) -> None:
    out = tmp_path / "diff.md"
    res = invoke(
        tmp_path,
        "diff",
        "--a",
        str(runs[0]),
        "--b",
        str(runs[1]),
        "--all",
        "--out",
        str(out),
        "--fail-on",
        "never",
    )
    assert res.returncode == 0, res.stderr
    assert out.read_text("utf-8").startswith("## Eval diff")
    assert "| `c05`" in out.read_text("utf-8")  # --all lists unchanged cases
    text = invoke(tmp_path, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--format", "text")
    assert text.returncode == 0 and text.stdout.startswith("diff A -> B")


def test_a_run_whose_every_case_errored_is_never_a_silent_pass(tmp_path: Path) -> None:
    project(tmp_path)
    pa = write_run(tmp_path / "a.jsonl", "A", [row("A", f"c{i}", "pass") for i in range(3)])
    rows_b = [row("B", f"c{i}", "error", error="AuthenticationError: no API key") for i in range(3)]
    pb = write_run(tmp_path / "b.jsonl", "B", rows_b)
    res = invoke(tmp_path, "diff", "--a", str(pa), "--b", str(pb))
    # Nothing was scored in both runs, and counting the errors against B cannot tell with
    # 3 cases either: inconclusive, exit 3, never a pass.
    assert res.returncode == 3, res.stderr
    assert res.stderr.startswith("INCONCLUSIVE")
    assert "Errored in A or B" in res.stdout and "AuthenticationError" in res.stdout
    both = write_run(
        tmp_path / "c.jsonl", "C", [row("C", f"c{i}", "error", error="timeout") for i in range(3)]
    )
    nothing = invoke(tmp_path, "diff", "--a", str(both), "--b", str(pb))
    assert nothing.returncode == 2 and "nothing to compare" in nothing.stderr


def test_markdown_cells_escape_markup_so_a_question_cannot_break_the_pr_table(
    tmp_path: Path,
) -> None:
    nasty = "@jan #12 j@x.de a | b\r\nc <!-- d --> <img src=x> `e|f` *g* _h_ [i](j) &amp; ~k \\"
    a = [row("A", "c00", "pass"), row("A", "c01", "fail")]
    b = [row("B", "c00", "fail"), row("B", "c01", "pass")]
    for r in (*a, *b):
        r["question"] = nasty if r["case"] == "c00" else "x" * 200
    pa = write_run(tmp_path / "a.jsonl", "A", a)
    pb = write_run(tmp_path / "b.jsonl", "B", b)
    md = render_markdown(compare_runs(read_run(pa), read_run(pb)))
    table = [ln for ln in md.splitlines() if ln.startswith("| `c")]
    assert len(table) == 2
    # Unescaped pipes split cells: each row must have exactly the five columns of the header.
    for line in table:
        unescaped = len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))
        assert unescaped == 6, line
    c00 = table[0]
    assert "| `@jan` `#12` j@x.de a \\| b c \\<!-- d --\\> \\<img src=x\\>" in c00
    assert "\\`e\\|f\\` \\*g\\* \\_h\\_ \\[i\\](j) \\&amp; \\~k \\\\ |" in c00
    question = c00.split("|", 2)[2].rsplit("|", 4)[0].replace("`@jan` `#12`", "")
    assert not re.search(r"(?<!\\)[<>`*_]", question)
    assert "x" * 79 + "…" in table[1] and "x" * 80 not in table[1]


def test_rows_with_a_score_out_of_range_or_odd_keys_are_refused_naming_the_line(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    a = [row("A", "c0", "pass"), row("A", "c1", "fail", score=1.5)]
    pa = write_run(tmp_path / "a.jsonl", "A", a)
    pb = write_run(tmp_path / "b.jsonl", "B", [row("B", "c0", "pass"), row("B", "c1", "fail")])
    res = invoke(tmp_path, "diff", "--a", str(pa), "--b", str(pb))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    # The run-file schema refuses it on read, naming the line and the field.
    assert f"{pa}: line 3/score: 1.5 is more than 1" in res.stderr
    odd_a = [row("A", "c0", "pass"), row("A", "c1", "fail")]
    odd_b = [row("B", "c0", "pass"), row("B", "c1", "fail")]
    odd_a[0]["cluster"], odd_b[0]["category"] = {"doc": 1}, ["billing"]
    pa = write_run(tmp_path / "odd-a.jsonl", "A", odd_a)
    pb = write_run(tmp_path / "odd-b.jsonl", "B", odd_b)
    res = invoke(tmp_path, "diff", "--a", str(pa), "--b", str(pb), "--format", "json")
    # A cluster or category of the wrong type is a damaged run file: one line, exit 2.
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "line 2/cluster: expected string or null, found object" in res.stderr
