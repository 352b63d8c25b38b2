"""`invoke mutate` on suites written here: survivors, false alarms, exemptions, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from casekit import invoke, make_project, write_case

from evals.checks import CheckResult, failed, passed
from evals.checks.loading import load_cases
from evals.mutate.engine import GoodAnswer, mutate_case, mutate_suite
from evals.mutate.report import by_check, render_markdown, to_json, totals
from evals.mutate.results import MutationReport
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings, open_suite

# The classic trap: the price is 45 €, the archived price 39 €, and the shift starts at 21:45.
TRAP_PASSAGES = [
    {"ref": "pricing#night", "text": "Night shifts carry a surcharge of 45 € per shift."},
    {"ref": "pricing#archive", "text": "Until 2024 the night surcharge was 39 € per shift."},
]


PATTERN_ONLY = [
    "mentions_expected",
    "sources_cited",
    "retrieval_recall",
    "citation_precision",
    "citations_resolve",
    "no_unsourced_number",
]


def trap_case(mention: str, **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "night-surcharge",
        "question": "My shift starts at 21:45. What surcharge do I get?",
        "retrieved": TRAP_PASSAGES,
        "expect": {"mentions": [mention], "sources": ["pricing#night"]},
        # The pattern alone, without claim support (which would catch the swapped price):
        # this case shows what mutation finds in a weak pattern.
        "checks": PATTERN_ONLY,
        "reference": "For the shift at 21:45 you get a surcharge of 45 € per shift [doc:pricing#night].",
    }
    data.update(over)
    return data


def strong_case(case_id: str = "pro-price", **over: Any) -> dict[str, Any]:
    """A case whose checks kill every mutant and accept every rephrasing."""
    data: dict[str, Any] = {
        "id": case_id,
        "question": "What does the Pro plan cost?",
        "retrieved": [
            {
                "ref": "pricing#plans",
                "text": "The Starter plan costs 39 € per month. The Pro plan costs 45 € per month.",
            },
            {"ref": "pricing#trial", "text": "Every plan starts with a trial of 14 days."},
        ],
        "expect": {
            "facts": ["costs 45 €"],
            "mentions": [r"(?i)\bpro\b"],
            "sources": ["pricing#plans"],
            "must_not_contain": ["39 €"],
        },
        "reference": "The Pro plan costs 45 € per month [doc:pricing#plans].",
        "known_wrong": [
            {"draft": "The Pro plan costs 39 € [doc:pricing#plans].", "why": "Starter price"}
        ],
    }
    data.update(over)
    return data


def report_for(
    tmp_path: Path, *cases: dict[str, Any], checks_py: str | None = None
) -> MutationReport:
    suite_dir = make_project(tmp_path, list(cases))
    if checks_py:
        (suite_dir / "checks.py").write_text(checks_py, encoding="utf-8")
    suite = open_suite(suite_dir)
    loaded, _ = load_cases(suite)
    return mutate_suite(suite, loaded)


def statuses(report: MutationReport, op: str) -> list[str]:
    return [v.status for c in report.cases for v in c.variants if v.operator == op]


def test_trap_weak_pattern_45_survives_the_number_swap(tmp_path: Path) -> None:
    report = report_for(tmp_path, trap_case("45"))
    [swap] = [v for v in report.variants if v.operator == "number_swap"]
    assert swap.status == "survived"
    assert (
        swap.text
        == "For the shift at 21:45 you get a surcharge of 39 € per shift [doc:pricing#night]."
    )
    assert "mentions_expected" in swap.checks_with("pass")
    assert report.cases[0].operator_status("number_swap") == "survived"
    md = render_markdown(report)
    assert "### `night-surcharge` · number_swap (reference)" in md
    assert "+For the shift at 21:45 you get a surcharge of 39 € per shift" in md
    assert report.exit_code == 1


def test_trap_anchored_pattern_kills_the_number_swap(tmp_path: Path) -> None:
    report = report_for(tmp_path, trap_case(r"\b45\s?€"))
    assert statuses(report, "number_swap") == ["killed"]
    [swap] = [v for v in report.variants if v.operator == "number_swap"]
    assert swap.checks_with("fail") == ["mentions_expected"]


def test_a_well_checked_case_has_no_survivor_and_no_false_alarm(tmp_path: Path) -> None:
    report = report_for(tmp_path, strong_case())
    case = report.cases[0]
    assert case.problem_count == 0, render_markdown(report)
    assert {v.status for v in case.variants} == {"killed", "held"}
    ran = {v.operator for v in case.variants}
    assert {"number_swap", "negation", "entity_swap", "whitespace", "letter_case"} <= ran
    assert report.exit_code == 0


# Passes the Pro price sentence's words in any case, spacing or punctuation; cannot decide an
# answer that names 39 (the Starter price, or a typo?); fails any other change.
UNDECIDED_39_CHECK = """
import re
from evals.checks import check, failed, passed, undecided

def _words(text):
    return sorted(re.findall(r"[a-z0-9€#]+", text.lower()))

@check("price_undecided")
def price_undecided(inp):
    if _words(inp.answer) == _words("The Pro plan costs 45 € per month [doc:pricing#plans]."):
        return passed("the price sentence's words")
    if "39" in inp.answer:
        return undecided("39 € may be the Starter price or a typo")
    return failed("the answer changed")
"""


def test_mutants_and_drafts_a_check_cannot_decide_are_counted_apart_and_fail_nothing(
    tmp_path: Path,
) -> None:
    case = strong_case(
        checks=["price_undecided"],
        known_wrong=[
            {"draft": "The Pro plan costs 39 € [doc:pricing#plans].", "why": "Starter price"},
            {"draft": "The Pro plan costs 50 € [doc:pricing#plans].", "why": "made up"},
        ],
        known_right=[
            {
                "draft": "The Pro plan costs 45 € per month, not 39 € [doc:pricing#plans].",
                "why": "x",
            }
        ],
    )
    report = report_for(tmp_path, case, checks_py=UNDECIDED_39_CHECK)
    c = report.cases[0]
    review = [v for v in c.variants if v.status == "review"]
    assert {v.operator for v in review} >= {"number_swap"}
    assert all("39" in v.text and v.kind == "mutant" for v in review)
    assert not [v for v in c.variants if v.status in ("survived", "false_alarm", "error")]
    assert [k.status for k in c.known_wrong] == ["review", "caught"]
    assert [k.status for k in c.known_right] == ["review"]
    assert c.problem_count == 0 and report.exit_code == 0
    t = totals(report)
    assert t["caught_for_review"] == len(review) and t["known_wrong_review"] == 1
    assert t["known_right_review"] == 1 and t["known_wrong_missed"] == 0
    # Caught for review is neither a kill nor a survivor: the kill rate leaves it out.
    assert t["n_scored"] == t["killed"] + t["survived"] == t["mutants"] - len(review)
    md = render_markdown(report)
    assert f"caught for review {len(review)}; kill rate" in md
    assert "failing nothing 0, errors 0, in review 1" in md
    assert f"## In review: answers a check could not decide ({len(review) + 2})" in md
    assert (
        "- `pro-price` known_wrong[0] (Starter price): price_undecided: 39 € may be the "
        "Starter price or a typo"
    ) in md
    assert "known_wrong drafts not caught" not in md and "false alarms (" not in md
    assert c.operator_status("number_swap") in ("review", "killed")
    data = to_json(report)
    assert data["cases"][0]["known_right"][0]["review_checks"] == {
        "price_undecided": "39 € may be the Starter price or a typo"
    }


def test_a_reference_in_review_is_reported_and_not_mutated_without_failing_mutate(
    tmp_path: Path,
) -> None:
    case = strong_case(
        checks=["price_undecided"],
        reference="The Pro plan costs 45 € per month, not 39 € [doc:pricing#plans].",
        known_wrong=[{"draft": "The Pro plan costs 50 € [doc:pricing#plans].", "why": "made up"}],
    )
    report = report_for(tmp_path, case, checks_py=UNDECIDED_39_CHECK)
    c = report.cases[0]
    assert [(g.status, g.failed, g.used) for g in c.good] == [
        ("review", ["price_undecided"], False)
    ]
    assert not c.variants and report.exit_code == 0
    md = render_markdown(report)
    assert "- good answers in review (a check could not decide; not mutated): 1" in md
    assert "- `pro-price` reference: review on price_undecided (the case cannot be mutated)" in md


CASE_SENSITIVE_CHECK = """
from evals.checks import check, failed, passed

@check("says_pro_plan_exactly")
def says_pro_plan_exactly(inp):
    return passed("ok") if "Pro plan" in inp.answer else failed("no 'Pro plan'")
"""


def test_a_case_sensitive_suite_check_is_a_false_alarm(tmp_path: Path) -> None:
    case = strong_case(checks=["says_pro_plan_exactly", "facts_present", "no_forbidden"])
    report = report_for(tmp_path, case, checks_py=CASE_SENSITIVE_CHECK)
    [alarm] = [v for v in report.variants if v.status == "false_alarm"]
    assert alarm.operator == "letter_case"
    assert alarm.checks_with("fail") == ["says_pro_plan_exactly"]
    assert report.cases[0].operator_status("letter_case") == "false_alarm"
    md = render_markdown(report)
    assert "## False alarms (1)" in md and "failed by: says_pro_plan_exactly" in md
    assert report.exit_code == 1


def test_known_wrong_draft_that_fails_nothing_is_named(tmp_path: Path) -> None:
    case = strong_case(
        known_wrong=[
            {
                "draft": "The Pro plan costs 45 € per month, billed weekly [doc:pricing#plans].",
                "why": "invents weekly billing",
            },
            {"draft": "The Pro plan costs 39 € [doc:pricing#plans].", "why": "Starter price"},
        ]
    )
    report = report_for(tmp_path, case)
    assert [k.status for k in report.cases[0].known_wrong] == ["missed", "caught"]
    assert "`pro-price` known_wrong[0] fails no check: invents weekly billing" in render_markdown(
        report
    )
    assert report.exit_code == 1


def test_mutation_exempt_suppresses_with_the_reason_shown(tmp_path: Path) -> None:
    why = "The tariff sheet states the price only; the payslip shows the rate too."
    polarity = "The judge covers polarity; this case pins the price pattern only."
    case = trap_case(
        r"45",
        mutation_exempt=[
            {"operator": "number_swap", "why": why},
            {"operator": "negation", "why": polarity},
        ],
    )
    report = report_for(tmp_path, case)
    [swap] = [v for v in report.variants if v.operator == "number_swap"]
    assert swap.status == "survived" and swap.exempt == why
    assert report.cases[0].operator_status("number_swap") == "exempt"
    assert report.exit_code == 0, render_markdown(report)
    md = render_markdown(report)
    assert f"| night-surcharge | number_swap | all | {why} | yes |" in md
    data = to_json(report)
    assert data["cases"][0]["mutation_exempt"] == [
        {"operator": "number_swap", "change": None, "why": why, "used": True},
        {"operator": "negation", "change": None, "why": polarity, "used": True},
    ]


def test_an_exemption_naming_one_change_exempts_that_variant_only(tmp_path: Path) -> None:
    # Two prices survive the swap; the case owner accepts one of them, not every number_swap.
    why = "The Sunday rate is printed on the payslip too; a wrong one is caught there."
    case = trap_case(
        r"45",
        retrieved=[
            {
                "ref": "pricing#night",
                "text": "Night shifts carry a surcharge of 45 € per shift, Sunday shifts 60 €.",
            },
            TRAP_PASSAGES[1],
        ],
        reference="For the shift at 21:45 you get 45 € [doc:pricing#night], on a Sunday "
        "60 € [doc:pricing#night].",
        mutation_exempt=[{"operator": "number_swap", "change": "60 € -> 39 €", "why": why}],
    )
    report = report_for(tmp_path, case)
    swaps = {v.note.split(" (")[0]: v for v in report.variants if v.operator == "number_swap"}
    assert swaps["60 € -> 39 €"].status == "survived" and swaps["60 € -> 39 €"].exempt == why
    assert swaps["45 € -> 39 €"].status == "survived" and swaps["45 € -> 39 €"].exempt is None
    assert report.exit_code == 1
    md = render_markdown(report)
    assert f"| night-surcharge | number_swap | `60 € -> 39 €` | {why} | yes |" in md


def test_an_error_is_not_a_kill(tmp_path: Path) -> None:
    raising = """
from evals.checks import check, passed

@check("breaks_on_empty_citation_list")
def breaks_on_empty_citation_list(inp):
    if not inp.cited:
        raise RuntimeError("no citations to look at")
    return passed("ok")
"""
    case = strong_case(checks=["breaks_on_empty_citation_list", "facts_present"])
    report = report_for(tmp_path, case, checks_py=raising)
    [removed] = [v for v in report.variants if v.operator == "citations_removed"]
    assert removed.status == "error"
    assert report.cases[0].operator_status("citations_removed") == "error"
    assert to_json(report)["totals"]["mutant_errors"] >= 1
    assert "## Errors" in render_markdown(report)


def test_extra_grader_results_join_the_kill_rates() -> None:
    def stern(case: Case, reply: Reply) -> dict[str, CheckResult]:
        ok = "45 €" in reply.answer and "not" not in reply.answer
        return {"judge": passed("fine") if ok else failed("wrong")}

    case = Case(trap_case("45"))
    report = mutate_case(
        case, SuiteSettings(), [GoodAnswer("reference", case.data["reference"])], stern
    )
    [swap] = [v for v in report.variants if v.operator == "number_swap"]
    assert swap.status == "killed" and swap.checks_with("fail") == ["judge"]
    table = by_check(MutationReport("s", [report]))
    assert table["judge"]["number_swap"]["kill_rate"] == 1.0
    assert table["mentions_expected"]["number_swap"]["kill_rate"] == 0.0


def write_run(path: Path, rows: list[dict[str, Any]]) -> None:
    from recordkit import header, row

    lines = [header(model="m")] + [row(**{"model": "m", **r}) for r in rows]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_from_run_mutates_drafts_that_passed(tmp_path: Path) -> None:
    suite_dir = make_project(tmp_path, [strong_case()])
    run = tmp_path / "r1.jsonl"
    draft = "Pro costs 45 € a month [doc:pricing#plans]. You are billed monthly."
    write_run(
        run,
        [
            {
                "case": "pro-price",
                "status": "pass",
                "draft": draft,
                "retrieved": ["pricing#plans", "pricing#trial"],
            },
            {"case": "pro-price", "status": "fail", "draft": "It costs 39 €."},
        ],
    )
    r = invoke(
        tmp_path, "mutate", "--suite", str(suite_dir), "--from-run", str(run), "--format", "json"
    )
    data = json.loads(r.stdout)
    goods = data["cases"][0]["good_answers"]
    assert [(g["source"], g["status"]) for g in goods] == [
        ("reference", "pass"),
        ("run r1 epoch 0", "pass"),
    ]
    sources = {v["source"] for v in data["cases"][0]["variants"]}
    assert sources == {"reference", "run r1 epoch 0"}


def test_exit_codes_through_invoke(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    ok_suite = make_project(tmp_path / "ok", [strong_case()])
    r = invoke(tmp_path / "ok", "mutate", "--suite", str(ok_suite))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "**Result: PASS** (exit 0)" in r.stdout

    (tmp_path / "weak").mkdir()
    weak_suite = make_project(tmp_path / "weak", [strong_case(), trap_case("45")])
    r = invoke(tmp_path / "weak", "mutate", "--suite", str(weak_suite), "--format", "json")
    assert r.returncode == 1
    data = json.loads(r.stdout)
    survivors = [
        (c["case"], v["operator"])
        for c in data["cases"]
        for v in c["variants"]
        if v["status"] == "survived"
    ]
    assert ("night-surcharge", "number_swap") in survivors
    assert all(case == "night-surcharge" for case, _ in survivors)
    # --case narrows to the sound case: exit 0 again
    r = invoke(tmp_path / "weak", "mutate", "--suite", str(weak_suite), "--case", "pro-*")
    assert r.returncode == 0, r.stdout

    (tmp_path / "bad").mkdir()
    bad_suite = make_project(tmp_path / "bad", [strong_case()])
    (bad_suite / "cases" / "broken.json").write_text("{not json", encoding="utf-8")
    write_case(
        bad_suite,
        strong_case(
            "typo", mutation_exempt=[{"operator": "number_swapp", "why": "no reason at all"}]
        ),
    )
    r = invoke(tmp_path / "bad", "mutate", "--suite", str(bad_suite))
    assert r.returncode == 2
    assert "broken.json: /: invalid JSON" in r.stderr
    assert "Traceback" not in r.stderr

    (tmp_path / "exempt").mkdir()
    typo_suite = make_project(
        tmp_path / "exempt",
        [
            strong_case(
                "typo", mutation_exempt=[{"operator": "number_swapp", "why": "no reason at all"}]
            )
        ],
    )
    r = invoke(tmp_path / "exempt", "mutate", "--suite", str(typo_suite))
    assert r.returncode == 2
    assert "/mutation_exempt/0/operator: unknown mutation operator 'number_swapp'" in r.stderr

    r = invoke(tmp_path / "ok", "mutate", "--suite", str(ok_suite), "--format", "xml")
    assert r.returncode == 2 and "--format must be md or json" in r.stderr


def test_judge_is_mutated_too_and_its_kill_rate_reported(
    tmp_path: Path, openai_server: Any
) -> None:
    def verdict(body: dict[str, Any]) -> str:
        text = body["messages"][-1]["content"]
        answer = text.split("<answer_to_grade>")[1].split("</answer_to_grade>")[0]
        # a judge that checks the price and nothing else: it misses a negation
        ok = "45 €" in answer
        return json.dumps(
            {
                "score": 5 if ok else 1,
                "grounded": ok,
                "rubric_met": ok,
                "reasoning": "price checked",
            }
        )

    openai_server.responder = verdict
    case = strong_case(expect={**strong_case()["expect"], "rubric": "States the Pro price."})
    suite_dir = make_project(tmp_path, [case])
    (suite_dir / "judge_prompt.txt").write_text("Grade the answer.\n", encoding="utf-8")
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-test"}
    r = invoke(
        tmp_path,
        "mutate",
        "--suite",
        str(suite_dir),
        "--format",
        "json",
        "--judge",
        "openai/gpt-4o-mini@2024-07-18",
        env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert data["judge"] == "openai/gpt-4o-mini@2024-07-18"
    judge = data["by_check"]["judge"]
    assert judge["number_swap"]["kill_rate"] == 1.0
    assert judge["negation"]["kill_rate"] == 0.0
    assert openai_server.served > 10


def test_an_operator_that_cannot_apply_is_not_applicable_not_a_survivor(tmp_path: Path) -> None:
    case = strong_case(
        expect={"facts": ["cancel at any time"], "sources": ["pricing#plans"]},
        reference="You can cancel at any time [doc:pricing#plans].",
    )
    report = report_for(tmp_path, case)
    c = report.cases[0]
    assert c.operator_status("number_swap") == "n/a"
    assert c.operator_status("forbidden_inserted") == "n/a"
    assert c.operator_status("confident_answer") == "n/a"
    assert to_json(report)["cases"][0]["operators"]["sentence_order"] == "n/a"


def test_a_reference_that_fails_its_own_checks_is_reported_and_not_mutated(tmp_path: Path) -> None:
    case = strong_case(reference="The Pro plan is 45 € per month [doc:pricing#plans].")
    report = report_for(tmp_path, case)
    c = report.cases[0]
    assert [(g.source, g.status, g.failed) for g in c.good] == [
        ("reference", "fail", ["facts_present"])
    ]
    assert c.variants == []
    assert report.exit_code == 1
    md = render_markdown(report)
    assert "`pro-price` reference: fail on facts_present (the case cannot be mutated)" in md
    # why it fails, in the check's own words, so the case can be fixed from the report
    detail = c.good[0].details["facts_present"]
    assert detail and f"  - facts_present: {detail}" in md


def test_an_extra_grader_that_raises_gives_errors_not_kills() -> None:
    def broken(case: Case, reply: Reply) -> dict[str, CheckResult]:
        raise ValueError("judge offline")

    case = Case(strong_case())
    report = mutate_case(
        case, SuiteSettings(), [GoodAnswer("reference", case.data["reference"])], broken
    )
    assert [g.status for g in report.good] == ["error"]
    assert report.good[0].failed == ["broken"]
    assert [k.status for k in report.known_wrong] == ["error"]


def test_each_deliberately_weak_check_is_found_by_the_operator_that_exposes_it(
    tmp_path: Path,
) -> None:
    trial = [
        # Both figures are about the trial: claim support cannot tell a swapped number by its
        # subject here, so only the generic fact is left to catch it (and does not).
        {
            "ref": "trial#length",
            "text": "The trial lasts 14 days. An extended trial lasts 30 days.",
        },
        {"ref": "billing#invoices", "text": "Invoices are issued on the first of the month."},
    ]
    generic_fact = {
        "id": "generic-fact",
        "question": "How long is the trial?",
        "retrieved": trial,
        "expect": {"facts": ["days"], "sources": ["trial#length"]},
        "reference": "The trial lasts 14 days [doc:trial#length].",
    }
    no_sources = {
        "id": "no-sources",
        "question": "How long is the trial?",
        "retrieved": trial,
        "expect": {"facts": ["lasts 14 days"]},
        "reference": "The trial lasts 14 days [doc:trial#length].",
    }
    unchecked_abstain = {
        "id": "unchecked-abstain",
        "question": "Can you refund invoice RB-1234?",
        "retrieved": trial,
        "checks": ["max_words"],
        "expect": {"abstain": True, "max_words": 60},
        "reference": "I'll hand this over to our billing team.",
    }
    loose_name = strong_case("loose-name", expect={"facts": ["45 €"], "sources": ["pricing#plans"]})
    loose_name["retrieved"][0]["text"] = (
        "The Starter plan costs 45 € per location. The Pro plan costs 45 € per month."
    )
    report = report_for(tmp_path, generic_fact, no_sources, unchecked_abstain, loose_name)
    found = {
        c.case_id: {
            op
            for op in ("number_swap", "citation_moved", "confident_answer", "entity_swap")
            if c.operator_status(op) == "survived"
        }
        for c in report.cases
    }
    assert found["generic-fact"] == {"number_swap"}
    # Without expect.sources a moved citation used to pass; citation_precision now asks whether
    # the cited passage supports the claim, so this case is no longer weak.
    assert found["no-sources"] == set()
    assert found["unchecked-abstain"] == {"confident_answer"}
    assert found["loose-name"] == {"entity_swap"}
    assert report.exit_code == 1
    (tmp_path / "strong").mkdir()
    strong = report_for(tmp_path / "strong", strong_case())
    assert strong.exit_code == 0 and not any(v.is_problem for v in strong.variants)


def test_a_judge_that_kills_no_mutant_fails_the_run(tmp_path: Path, openai_server: Any) -> None:
    # A judge that approves everything: the deterministic checks still kill every mutant.
    openai_server.responder = lambda body: json.dumps(
        {"score": 5, "grounded": True, "rubric_met": True, "reasoning": "looks fine"}
    )
    case = strong_case(expect={**strong_case()["expect"], "rubric": "States the Pro price."})
    suite_dir = make_project(tmp_path, [case])
    (suite_dir / "judge_prompt.txt").write_text("Grade the answer.\n", encoding="utf-8")
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-test"}
    args = ["mutate", "--suite", str(suite_dir), "--judge", "openai/gpt-4o-mini@2024-07-18"]
    r = invoke(tmp_path, *args, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "killed 0% (0/" in r.stdout and "cannot tell these wrong answers" in r.stdout
    assert "**Result: FAIL** (exit 1)" in r.stdout
    data = json.loads(invoke(tmp_path, *args, "--format", "json", env=env).stdout)
    assert data["totals"]["judge_killed"] == 0 and data["totals"]["judge_graded"] > 0
    assert data["totals"]["survived"] == 0  # only the judge is blind


def test_nothing_to_test_is_exit_2_not_a_pass(tmp_path: Path) -> None:
    bare = strong_case("no-reference")
    del bare["reference"], bare["known_wrong"]
    suite_dir = make_project(tmp_path, [bare])
    r = invoke(tmp_path, "mutate", "--suite", str(suite_dir))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "nothing to test" in r.stderr and "PASS" not in r.stdout


def test_a_known_right_draft_a_check_fails_is_a_false_alarm_with_the_check_and_its_detail(
    tmp_path: Path,
) -> None:
    case = strong_case(
        checks=["says_pro_plan_exactly"],
        known_right=[
            {
                "draft": "Per month, the Pro plan costs 45 € [doc:pricing#plans].",
                "why": "reordered",
            },
            {"draft": "The pro plan is €45 a month [doc:pricing#plans].", "why": "lower case"},
        ],
    )
    report = report_for(tmp_path, case, checks_py=CASE_SENSITIVE_CHECK)
    assert [k.status for k in report.cases[0].known_right] == ["held", "false_alarm"]
    assert report.exit_code == 1
    md = render_markdown(report)
    assert "- known_right drafts: 2; false alarms 1, errors 0" in md
    assert "## known_right drafts failed: false alarms (1)" in md
    assert "- `pro-price` known_right[1] (lower case):" in md
    assert "  - failed by says_pro_plan_exactly: no 'Pro plan'" in md
    data = to_json(report)
    assert data["totals"]["known_right"] == 2
    assert data["totals"]["known_right_false_alarms"] == 1
    assert data["cases"][0]["known_right"][1]["failed_checks"] == {
        "says_pro_plan_exactly": "no 'Pro plan'"
    }
    # The passing draft alone: nothing to report (this one check lets mutants survive, though).
    (tmp_path / "ok").mkdir()
    good = {**case, "known_right": case["known_right"][:1]}
    alone = report_for(tmp_path / "ok", good, checks_py=CASE_SENSITIVE_CHECK)
    assert [k.status for k in alone.cases[0].known_right] == ["held"]
    assert "known_right drafts failed" not in render_markdown(alone)
    # The same reference and variants: the false alarm is the one problem more (exit 1).
    assert report.cases[0].problem_count == alone.cases[0].problem_count + 1


def test_known_wrong_and_known_right_drafts_are_graded_with_the_refs_they_report(
    tmp_path: Path,
) -> None:
    # No citation in the text: the refs the system reported decide `sources_cited`.
    case = strong_case(
        checks=["sources_cited"],
        known_right=[
            {"draft": "The Pro plan costs 45 € per month.", "why": "x", "cited": ["pricing#plans"]}
        ],
        known_wrong=[
            {"draft": "The Pro plan costs 45 € [doc:pricing#plans].", "why": "x", "cited": []}
        ],
    )
    c = report_for(tmp_path, case).cases[0]
    assert [k.status for k in c.known_right] == ["held"]
    assert [k.status for k in c.known_wrong] == ["caught"]
