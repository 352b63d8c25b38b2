"""Conversation cases: earlier turns reach every system under test, the judge, the reports and
the review; checks grade the final reply; the customer's earlier figures need no source."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import runkit
from casekit import invoke
from runkit import MODEL, records, rows, run, run_files, use

from evals.checks.grading import grade, outcome
from evals.checks.loading import load_cases
from evals.judge.prompt import case_message
from evals.judge.verdict import Scale
from evals.providers.local import ExtractiveModel
from evals.reply import Reply
from evals.report.data import build_report
from evals.report.html import render_run_html
from evals.review.fields import diff_case
from evals.run.files import read_run
from evals.suite.case import Case, canonical_json, content_sha
from evals.suite.folder import SuiteSettings, open_suite

EXAMPLE = Path(__file__).resolve().parent.parent / "evals"
FOLLOW_UP = "conv-followup-starter-price"


def example_case(case_id: str) -> dict[str, Any]:
    return json.loads((EXAMPLE / "cases" / f"{case_id}.json").read_text("utf-8"))


def conversation_project(tmp: Path, *case_ids: str) -> Path:
    """A project whose suite holds the example suite's conversation cases and prompt."""
    root = runkit.make_project(tmp, 0, prompt=(EXAMPLE / "prompt.txt").read_text("utf-8"))
    for cid in case_ids or (FOLLOW_UP,):
        runkit.write_case(root, example_case(cid))
    return root


def test_the_follow_up_case_is_a_conversation_whose_last_turn_only_makes_sense_after_the_first():
    data = example_case(FOLLOW_UP)
    assert data["question"] == "and on Starter?"
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]
    assert "Pro" in data["messages"][0]["content"]


def test_a_follow_up_runs_offline_and_its_row_keeps_the_earlier_turns(tmp_path, monkeypatch):
    root = conversation_project(tmp_path)
    use(monkeypatch, root, None)
    code = run(models=["local/extractive@2026-11-01"])
    assert code in (0, 1)  # scored, never an error
    (row,) = rows(run_files(root)[0])
    assert row["status"] in ("pass", "fail") and row["error"] is None
    assert row["question"] == "and on Starter?"
    assert row["messages"] == example_case(FOLLOW_UP)["messages"]
    assert "Starter" in row["draft"] and "[doc:pricing#plans]" in row["draft"]


PASSAGES = [
    {"ref": "payroll#export", "text": "Payroll export to DATEV is part of Pro only."},
    {"ref": "pricing#plans", "text": "Starter costs 29 € per seat and month."},
    {"ref": "support#hours", "text": "Support is open on weekdays."},
    {"ref": "data#retention", "text": "Data is kept for 30 days after a cancellation."},
]


def test_the_offline_model_reads_the_customers_earlier_turn_to_resolve_a_follow_up():
    passages = PASSAGES
    alone = Case({"id": "x", "question": "and on Starter?", "retrieved": passages})
    after = Case(
        {
            **alone.data,
            "messages": [
                {"role": "user", "content": "Can Pro export payroll to DATEV?"},
                {"role": "assistant", "content": "Yes, Pro exports payroll to DATEV."},
            ],
        }
    )
    model = ExtractiveModel("local/extractive@2026-11-01", max_sentences=1)
    assert "[doc:pricing#plans]" in model.reply_to(alone).answer
    assert "[doc:payroll#export]" in model.reply_to(after).answer


def test_the_offline_model_takes_nothing_from_an_earlier_assistant_turn():
    passages = PASSAGES
    said = [{"role": "assistant", "content": "Payroll export to DATEV is part of Pro only."}]
    case = Case({"id": "x", "question": "and on Starter?", "retrieved": passages, "messages": said})
    model = ExtractiveModel("local/extractive@2026-11-01", max_sentences=1)
    assert "[doc:pricing#plans]" in model.reply_to(case).answer


APP = """
__version__ = "1.0"
SEEN = []

def answer(case):
    SEEN.append(case)
    last = case["messages"][-1]["content"]
    return {
        "answer": "Starter costs 29 € per seat and month and covers one location [doc:pricing#plans].",
        "retrieved": ["pricing#plans"],
        "cited": ["pricing#plans"],
        "abstained": False,
    } if last == "and on Starter?" else {"answer": "?", "abstained": True}
"""


def test_a_target_app_receives_every_turn_of_the_conversation(tmp_path, monkeypatch):
    root = conversation_project(tmp_path)
    (root / "chat_app_conv.py").write_text(textwrap.dedent(APP), encoding="utf-8")
    use(monkeypatch, root, None)
    assert run(target="chat_app_conv:answer") == 0
    import chat_app_conv

    (seen,) = chat_app_conv.SEEN
    earlier = example_case(FOLLOW_UP)["messages"]
    assert seen["messages"] == [*earlier, {"role": "user", "content": "and on Starter?"}]
    assert seen["question"] == "and on Starter?"
    assert "expect" not in seen and "reference" not in seen
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "pass", row["checks"]


def test_a_conversation_is_replayed_and_an_answer_saved_for_other_turns_is_an_error(tmp_path):
    root = conversation_project(tmp_path, FOLLOW_UP, "conv-customer-corrects-plan")
    follow_up = Case(example_case(FOLLOW_UP))
    answers = tmp_path / "saved.jsonl"
    lines = [
        {
            "case": FOLLOW_UP,
            "answer": "Starter is €29 per seat and month, for one location [doc:pricing#plans].",
            "messages": follow_up.turns,  # the log's whole conversation, question included
        },
        {
            "case": "conv-customer-corrects-plan",
            "answer": "Yes: on Pro you can export approved timesheets to DATEV [doc:payroll#export].",
            "messages": [{"role": "user", "content": "Which plan am I on?"}],
        },
    ]
    answers.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    res = invoke(root, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 3, res.stdout + res.stderr
    by_id = {r["case"]: r for r in rows(run_files(root)[0])}
    assert by_id[FOLLOW_UP]["status"] == "pass", by_id[FOLLOW_UP]["checks"]
    other = by_id["conv-customer-corrects-plan"]
    assert other["status"] == "error" and "other turns" in other["error"]


def test_a_malformed_turn_in_a_saved_answer_is_reported_with_its_line(tmp_path):
    root = conversation_project(tmp_path)
    answers = tmp_path / "saved.jsonl"
    bad = {"case": FOLLOW_UP, "answer": "x", "messages": [{"role": "system", "content": "hi"}]}
    answers.write_text(json.dumps(bad) + "\n", "utf-8")
    res = invoke(root, "run", "--answers", str(answers), "--model", "acme/bot@2026-10-01")
    assert res.returncode == 2
    assert "line 1/messages" in res.stderr and "turn 0" in res.stderr


def test_an_endpoint_gets_the_earlier_turns_as_chat_messages_before_the_final_one(
    tmp_path, monkeypatch, openai_server
):
    root = conversation_project(tmp_path)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: (
        "Starter costs 29 € per seat and month and covers one location [doc:pricing#plans]."
    )
    assert run(models=[MODEL]) == 0
    (req,) = openai_server.chat_requests
    msgs = req.body["messages"]
    earlier = example_case(FOLLOW_UP)["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[1:3] == earlier
    assert msgs[3]["content"].startswith("Question:\nand on Starter?")
    assert "[doc:pricing#plans]\nRotaboard has three plans." in msgs[3]["content"]
    header = records(run_files(root)[0])[0]
    assert header["model"] == MODEL


SETTINGS = SuiteSettings()


def night_case() -> Case:
    return Case(
        {
            "id": "night",
            "messages": [
                {"role": "user", "content": "Our night shift starts at 21:30."},
                {"role": "assistant", "content": "The surcharge counts from 22:00."},
            ],
            "question": "Is that automatic on Starter?",
            "retrieved": [
                {
                    "ref": "payroll#night",
                    "text": "On Pro the night surcharge applies from 22:00 at 25 %.",
                }
            ],
        }
    )


def test_a_figure_the_customer_gave_in_an_earlier_turn_needs_no_citation():
    answer = "Not on Starter, not even for your shift from 21:30. Pro does it [doc:payroll#night]."
    results = grade(night_case(), Reply(answer=answer), SETTINGS)
    assert results["no_unsourced_number"].status == "pass", results["no_unsourced_number"]


def test_a_figure_the_assistant_gave_in_an_earlier_turn_is_no_source():
    answer = "As I said, it counts from 22:00. Pro does it automatically [doc:payroll#night]."
    results = grade(night_case(), Reply(answer=answer), SETTINGS)
    nun = results["no_unsourced_number"]
    assert nun.status == "fail" and "22:00" in nun.detail


def test_the_example_conversation_drafts_hold_the_earlier_turn_rules():
    suite = open_suite(EXAMPLE)
    cases = {c.id: c for c in load_cases(suite)[0]}
    night = cases["conv-night-surcharge-on-starter"]
    echo = night.data["known_right"][0]["draft"]
    assert "21:30" in echo and "21:30" not in night.question
    assert outcome(grade(night, Reply(answer=echo), suite.settings)).status == "pass"
    retired = cases["conv-earlier-reply-quoted-retired-price"]
    uncited = retired.data["known_wrong"][3]["draft"]
    results = grade(retired, Reply(answer=uncited), suite.settings)
    assert results["no_unsourced_number"].status == "fail"
    assert "39 €" in results["no_unsourced_number"].detail


def test_the_judge_sees_the_earlier_turns_before_the_question():
    msg = case_message(night_case(), Reply(answer="No."), Scale(1, 5))
    turns, question = msg.index("<earlier_turns>"), msg.index("<question>")
    assert turns < question
    assert '<turn role="user">\nOur night shift starts at 21:30.\n</turn>' in msg
    assert '<turn role="assistant">\nThe surcharge counts from 22:00.\n</turn>' in msg


def test_the_turns_come_before_the_question_in_canonical_form_and_count_in_the_sha():
    data = night_case().data
    text = canonical_json(data)
    assert text.index('"messages"') < text.index('"question"')
    edited = json.loads(json.dumps(data))
    edited["messages"][0]["content"] = "Our night shift starts at 21:00."
    assert content_sha(edited) != content_sha(data)


def test_a_turn_with_an_unknown_role_is_reported_by_its_pointer(tmp_path):
    root = conversation_project(tmp_path)
    path = root / "suite" / "cases" / f"{FOLLOW_UP}.json"
    data = json.loads(path.read_text("utf-8"))
    data["messages"][1]["role"] = "system"
    path.write_text(json.dumps(data), "utf-8")
    res = invoke(root, "validate")
    assert res.returncode == 2
    assert f"{FOLLOW_UP}.json: /messages/1/role" in res.stdout + res.stderr


def test_the_review_names_the_turn_that_changed():
    old = night_case().data
    new = json.loads(json.dumps(old))
    new["messages"][0]["content"] = "Our night shift starts at 21:00."
    (change,) = diff_case(old, new)
    assert change.field == "messages[0]"
    assert change.removed == ["user: Our night shift starts at 21:30."]
    assert change.added == ["user: Our night shift starts at 21:00."]


def test_both_reports_show_the_earlier_turns(tmp_path, monkeypatch):
    root = conversation_project(tmp_path)
    use(monkeypatch, root, None)
    run(models=["local/extractive@2026-11-01"])
    rep = build_report(read_run(run_files(root)[0]))
    html = render_run_html(rep)
    assert "<h4>Earlier turns</h4>" in html
    assert '<div class="turn assistant">' in html and "Pro costs 45 € per seat" in html
    res = invoke(root, "report", "latest", "--review")
    assert res.returncode == 0, res.stderr


def test_export_and_import_keep_the_turns(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    src = conversation_project(tmp_path / "a")
    out = tmp_path / "suite.jsonl"
    assert invoke(src, "export", "--out", str(out)).returncode == 0
    dst = runkit.make_project(tmp_path / "b", 0)
    res = invoke(dst, "import", "--suite", "suite", str(out))
    assert res.returncode == 0, res.stderr
    name = f"{FOLLOW_UP}.json"
    assert (dst / "suite" / "cases" / name).read_bytes() == (
        src / "suite" / "cases" / name
    ).read_bytes()


def test_a_golden_line_with_chat_messages_becomes_a_conversation_case(tmp_path):
    root = runkit.make_project(tmp_path, 0)
    src = tmp_path / "chats.jsonl"
    line = {
        "id": "starter-follow-up",
        "messages": [
            {"role": "user", "content": "What does Pro cost?"},
            {"role": "assistant", "content": "45 € per seat."},
            {"role": "user", "content": "and on Starter?"},
        ],
        "expected_facts": ["29 €"],
    }
    src.write_text(json.dumps(line) + "\n", "utf-8")
    res = invoke(root, "import", "--suite", "suite", str(src))
    assert res.returncode == 0, res.stderr
    case = json.loads((root / "suite" / "cases" / "starter-follow-up.json").read_text("utf-8"))
    assert case["question"] == "and on Starter?"
    assert case["messages"] == line["messages"][:2]


def test_a_sealed_conversation_keeps_its_turns_out_of_every_file_and_row(tmp_path):
    from casekit import write_case
    from sealkit import all_bytes, new_key, project, run_sealed, seal

    proj, cases = project(tmp_path, 6)
    for c in cases:
        c["messages"] = [
            {"role": "user", "content": f"Earlier from {c['id']}: our ward shift starts at 21:30."},
            {"role": "assistant", "content": f"Noted for {c['id']}, the surcharge counts later."},
        ]
        write_case(proj / "suite", c)
    key = new_key()
    res = seal(proj, key, "--fraction", "1.0", "--seed", "3")
    assert res.returncode == 0, res.stdout + res.stderr
    res = run_sealed(proj, key)
    assert res.returncode in (0, 1), res.stdout + res.stderr
    for path, data in all_bytes(proj):
        assert b"Earlier from team-" not in data and b"Noted for team-" not in data, path
    [run_path] = sorted((proj / "runs").glob("*.jsonl"))
    assert all("messages" not in r for r in rows(run_path))
