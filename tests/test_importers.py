"""`invoke import`: outside golden sets become valid case files, with every field accounted for."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import invoke, make_project, read_jsonl, write_case

from evals.importers import slugify


def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, cases=[])


def case_file(suite: Path, case_id: str) -> dict:
    return json.loads((suite / "cases" / f"{case_id}.json").read_text("utf-8"))


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def test_golden_jsonl_maps_every_field_and_keeps_unknown_ones_in_the_note(tmp_path):
    suite = project(tmp_path)
    src = write_jsonl(
        tmp_path / "golden.jsonl",
        [
            {
                "id": "Refund Window",
                "question": "How long can I return an item?",
                "expected_facts": ["30 days"],
                "must_not_contain": ["60 days"],
                "source_id": "policy-refunds",
                "answer": "You have 30 days [doc:policy-refunds].",
                "owner": "sam",
            },
            {
                "id": "shipping.eu",
                "question": "Do you ship abroad?",
                "expected_facts": "EU",
                "must_not_contain": [],
                "source_id": "shipping",
            },
        ],
    )
    proc = invoke(tmp_path, "import", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "imported 2 case(s)" in proc.stdout and "(format: golden)" in proc.stdout
    assert "'Refund Window' -> refund-window" in proc.stdout
    assert "field 'owner' has no case field: kept in the note of 1 case(s)" in proc.stdout
    assert case_file(suite, "refund-window") == {
        "id": "refund-window",
        "question": "How long can I return an item?",
        "expect": {
            "facts": ["30 days"],
            "must_not_contain": ["60 days"],
            "sources": ["policy-refunds"],
        },
        "reference": "You have 30 days [doc:policy-refunds].",
        "note": 'imported fields with no case field: {"owner": "sam"}',
    }
    assert case_file(suite, "shipping.eu")["expect"] == {"facts": ["EU"], "sources": ["shipping"]}
    assert invoke(tmp_path, "validate").returncode == 0


def test_rubric_jsonl_maps_destinations_to_facts_and_reports_unknown_difficulty(tmp_path):
    suite = project(tmp_path)
    src = write_jsonl(
        tmp_path / "trips.jsonl",
        [
            {
                "question": "Plan me a weekend near Lisbon",
                "rubric": "Suggests realistic day trips",
                "expected_destinations": ["Sintra", "Cascais"],
                "difficulty": "moderate",
                "category": "travel",
            },
            {
                "question": "Somewhere warm in January?",
                "rubric": "Names warm places",
                "expected_destinations": ["Canary Islands"],
                "difficulty": "insane",
                "category": "travel",
            },
        ],
    )
    proc = invoke(tmp_path, "import", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "line 1 -> trips-0001, line 2 -> trips-0002" in proc.stdout
    assert "trips-0002: difficulty 'insane' is not easy|medium|hard: kept in note" in proc.stdout
    first = case_file(suite, "trips-0001")
    assert first["difficulty"] == "medium" and first["category"] == "travel"
    assert first["expect"] == {
        "facts": ["Sintra", "Cascais"],
        "rubric": "Suggests realistic day trips",
    }
    second = case_file(suite, "trips-0002")
    assert "difficulty" not in second
    assert json.loads(second["note"].split(": ", 1)[1]) == {"difficulty": "insane"}
    assert invoke(tmp_path, "validate").returncode == 0


CHUNKS = """chunk_id,text,score
pricing-pro,Pro: 45 € per seat and month.,0.9
pricing-starter,Starter: 39 € per seat and month.,0.4
refunds,Refunds are accepted within 30 days of delivery.,0.8
"""
EVAL_CSV = """case_id,question,expected_chunk_ids,required_points,should_abstain,candidate_answer,cited_chunk_ids,candidate_abstains,reviewer
Price-Pro,What does a Pro seat cost?,pricing-pro,45 €,false,A Pro seat costs 39 € per month [doc:pricing-pro].,pricing-pro,false,ann
Refunds,How long do refunds take?,refunds,30 days|delivery,no,Within 30 days of delivery [doc:refunds].,refunds,no,
ceo-phone,What's the CEO's phone number?,,,yes,I can't help with that.,,yes,bob
"""


def test_csv_with_chunks_gives_passages_sources_facts_abstain_and_a_replay_file(tmp_path):
    suite = project(tmp_path)
    (tmp_path / "chunks.csv").write_text(CHUNKS, "utf-8")
    src = tmp_path / "evalset.csv"
    src.write_text(EVAL_CSV, "utf-8")
    proc = invoke(tmp_path, "import", str(src), "--chunks", str(tmp_path / "chunks.csv"))
    assert proc.returncode == 0, proc.stderr
    assert "'Price-Pro' -> price-pro" in proc.stdout
    assert "field 'reviewer' has no case field: kept in the note of 2 case(s)" in proc.stdout
    assert "column(s) with no case field, not imported: score" in proc.stdout
    price = case_file(suite, "price-pro")
    assert price["retrieved"] == [{"ref": "pricing-pro", "text": "Pro: 45 € per seat and month."}]
    assert price["expect"] == {"facts": ["45 €"], "sources": ["pricing-pro"], "abstain": False}
    assert case_file(suite, "refunds")["expect"]["facts"] == ["30 days", "delivery"]
    assert case_file(suite, "ceo-phone")["expect"] == {"abstain": True}

    answers = tmp_path / "evalset.answers.jsonl"
    assert read_jsonl(answers) == [
        {
            "case": "price-pro",
            "answer": "A Pro seat costs 39 € per month [doc:pricing-pro].",
            "cited": ["pricing-pro"],
            "abstained": False,
        },
        {
            "case": "refunds",
            "answer": "Within 30 days of delivery [doc:refunds].",
            "cited": ["refunds"],
            "abstained": False,
        },
        {"case": "ceo-phone", "answer": "I can't help with that.", "abstained": True},
    ]
    run = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/rag@2026-01-01")
    assert run.returncode == 1, run.stdout + run.stderr  # the wrong price fails, nothing errors
    (run_file,) = (tmp_path / "runs").glob("*.jsonl")
    rows = [r for r in read_jsonl(run_file) if r["kind"] == "case"]
    assert {r["case"]: r["status"] for r in rows} == {
        "ceo-phone": "pass",
        "price-pro": "fail",
        "refunds": "pass",
    }
    price_row = next(r for r in rows if r["case"] == "price-pro")
    assert price_row["failed_checks"] == ["facts_present"]


def test_csv_answers_out_flag_and_missing_chunks_is_bad_input(tmp_path):
    suite = project(tmp_path)
    src = tmp_path / "evalset.csv"
    src.write_text(EVAL_CSV, "utf-8")
    proc = invoke(tmp_path, "import", str(src))
    assert proc.returncode == 2
    assert "line 2/expected_chunk_ids: the passages are unknown: pass --chunks FILE" in proc.stderr
    assert not list((suite / "cases").iterdir())
    (tmp_path / "chunks.csv").write_text(CHUNKS.replace("refunds,", "refund-policy,"), "utf-8")
    out = tmp_path / "saved" / "answers.jsonl"
    out.parent.mkdir()
    proc = invoke(tmp_path, "import", str(src), "--chunks", "chunks.csv", "--answers-out", str(out))
    assert proc.returncode == 2
    assert "line 3/expected_chunk_ids: not in the chunks file: refunds" in proc.stderr
    (tmp_path / "chunks.csv").write_text(CHUNKS, "utf-8")
    proc = invoke(tmp_path, "import", str(src), "--chunks", "chunks.csv", "--answers-out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert len(read_jsonl(out)) == 3 and not (tmp_path / "evalset.answers.jsonl").exists()


def test_conflicts_are_all_reported_and_nothing_is_written(tmp_path):
    suite = project(tmp_path)
    write_case(suite, {"id": "a", "question": "Existing?", "expect": {"facts": ["old"]}})
    write_case(suite, {"id": "c", "question": "Existing too?", "expect": {"facts": ["old"]}})
    src = write_jsonl(
        tmp_path / "g.jsonl",
        [
            {"id": i, "question": f"{i}?", "expected_facts": ["x"], "source_id": "doc"}
            for i in ("a", "b", "c")
        ],
    )
    proc = invoke(tmp_path, "import", str(src))
    assert proc.returncode == 2
    conflicts = [line for line in proc.stderr.splitlines() if "already exists" in line]
    assert len(conflicts) == 2
    assert not (suite / "cases" / "b.json").exists()
    assert case_file(suite, "a")["expect"] == {"facts": ["old"]}


def test_every_bad_record_is_reported_at_once_with_its_line(tmp_path):
    suite = project(tmp_path)
    src = tmp_path / "g.jsonl"
    src.write_text(
        "\n".join(
            [
                json.dumps({"id": "ok", "question": "Fine?", "expected_facts": ["x"]}),
                json.dumps({"id": "no-question", "expected_facts": ["x"]}),
                "{not json",
                json.dumps({"id": "nothing", "question": "No checks?", "expected_facts": []}),
                json.dumps({"id": "A B", "question": "Q?", "expected_facts": ["x"]}),
                json.dumps({"id": "a-b", "question": "Q?", "expected_facts": ["x"]}),
                json.dumps({"id": "bad-facts", "question": "Q?", "expected_facts": 3}),
            ]
        )
        + "\n",
        "utf-8",
    )
    proc = invoke(tmp_path, "import", str(src), "--format", "golden")
    assert proc.returncode == 2
    err = proc.stderr
    assert "g.jsonl: line 2/question: required, a non-empty string" in err
    assert "g.jsonl: line 3: invalid JSON" in err
    assert "nothing.json: /expect: no check applies" in err and "(from " in err
    assert "line 6/id: id 'a-b' also on line 5" in err
    assert "line 7/expected_facts: must be a string or a list of strings" in err
    assert "Traceback" not in err
    assert not list((suite / "cases").iterdir())


def test_format_detection_and_override(tmp_path):
    project(tmp_path)
    mixed = write_jsonl(
        tmp_path / "mixed.jsonl",
        [{"id": "m", "question": "Q?", "expected_facts": ["x"], "rubric": "r"}],
    )
    proc = invoke(tmp_path, "import", str(mixed))
    assert proc.returncode == 2 and "pass --format" in proc.stderr
    proc = invoke(tmp_path, "import", str(mixed), "--format", "rubric")
    assert proc.returncode == 0, proc.stderr
    assert "field 'expected_facts' has no case field" in proc.stdout
    assert invoke(tmp_path, "import", str(mixed), "--format", "yaml").returncode == 2


def test_slugify_follows_the_case_id_rule():
    assert slugify("Refund Window") == "refund-window"
    assert slugify("  Café/Crème #2 ") == "cafe-creme-2"
    assert slugify("__x.y_z") == "x.y_z"
    assert slugify("???") == ""
