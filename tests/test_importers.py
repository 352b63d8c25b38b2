"""`invoke import`: outside golden sets become valid case files, with every field accounted for."""

from __future__ import annotations

import json
from pathlib import Path

from casekit import good_case, invoke, make_project, read_jsonl, write_case

from evals.interchange.naming import slugify


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
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src))
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
        "note": "imported as given (no case field, or changed on import): "
        '{"id": "Refund Window", "owner": "sam"}',
    }
    assert case_file(suite, "shipping.eu")["expect"] == {"facts": ["EU"], "sources": ["shipping"]}
    assert invoke(tmp_path, "validate").returncode == 0


def test_rubric_jsonl_maps_destinations_to_a_retrieval_expectation_not_answer_facts(tmp_path):
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
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "line 1 (no id) -> trips-0001, line 2 (no id) -> trips-0002" in proc.stdout
    assert "trips-0002: difficulty 'insane' is not easy|medium|hard: kept in note" in proc.stdout
    assert "expected_destinations became expect.sources in 2 case(s)" in proc.stdout
    first = case_file(suite, "trips-0001")
    assert first["difficulty"] == "medium" and first["category"] == "travel"
    assert first["expect"] == {
        "sources": ["Sintra", "Cascais"],
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
    proc = invoke(
        tmp_path, "import", "--suite", "suite", str(src), "--chunks", str(tmp_path / "chunks.csv")
    )
    assert proc.returncode == 0, proc.stderr
    assert "'Price-Pro' -> price-pro" in proc.stdout
    assert "field 'reviewer' has no case field: kept in the note of 2 case(s)" in proc.stdout
    assert "column(s) with no case field, not imported: score" in proc.stdout
    price = case_file(suite, "price-pro")
    assert price["retrieved"] == [{"ref": "pricing-pro", "text": "Pro: 45 € per seat and month."}]
    assert price["expect"] == {"facts": ["45 €"], "sources": ["pricing-pro"], "abstain": False}
    assert case_file(suite, "refunds")["expect"]["facts"] == ["30 days", "delivery"]
    assert case_file(suite, "ceo-phone")["expect"] == {"abstain": True}

    answers = suite / "evalset.answers.jsonl"  # beside the suite's cases, not beside FILE
    assert not (tmp_path / "evalset.answers.jsonl").exists()
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
    assert "facts_present" in price_row["failed_checks"]


def test_csv_answers_out_flag_and_missing_chunks_is_bad_input(tmp_path):
    suite = project(tmp_path)
    src = tmp_path / "evalset.csv"
    src.write_text(EVAL_CSV, "utf-8")
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src))
    assert proc.returncode == 2
    assert "line 2/expected_chunk_ids: the passages are unknown: pass --chunks FILE" in proc.stderr
    assert not list((suite / "cases").iterdir())
    (tmp_path / "chunks.csv").write_text(CHUNKS.replace("refunds,", "refund-policy,"), "utf-8")
    out = tmp_path / "saved" / "answers.jsonl"
    out.parent.mkdir()
    proc = invoke(
        tmp_path,
        "import",
        "--suite",
        "suite",
        str(src),
        "--chunks",
        "chunks.csv",
        "--answers-out",
        str(out),
    )
    assert proc.returncode == 2
    assert "line 3/expected_chunk_ids: not in the chunks file: refunds" in proc.stderr
    (tmp_path / "chunks.csv").write_text(CHUNKS, "utf-8")
    proc = invoke(
        tmp_path,
        "import",
        "--suite",
        "suite",
        str(src),
        "--chunks",
        "chunks.csv",
        "--answers-out",
        str(out),
    )
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
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src))
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
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src), "--format", "golden")
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
    proc = invoke(tmp_path, "import", "--suite", "suite", str(mixed))
    assert proc.returncode == 2 and "pass --format" in proc.stderr
    proc = invoke(tmp_path, "import", "--suite", "suite", str(mixed), "--format", "rubric")
    assert proc.returncode == 0, proc.stderr
    assert "field 'expected_facts' has no case field" in proc.stdout
    assert (
        invoke(tmp_path, "import", "--suite", "suite", str(mixed), "--format", "yaml").returncode
        == 2
    )


def test_slugify_follows_the_case_id_rule():
    assert slugify("Refund Window") == "refund-window"
    assert slugify("  Café/Crème #2 ") == "cafe-creme-2"
    assert slugify("__x.y_z") == "x.y_z"
    assert slugify("???") == ""
    assert slugify("Größe-Tabelle") == "grosse-tabelle"
    assert slugify("Ærø Œuvre") == "aero-oeuvre"


MESSY_CSV = (
    "\ufeffCASE_ID,Question,expected_chunk_ids,required_points,should_abstain,"
    "candidate_answer,cited_chunk_ids,candidate_abstains,Reviewer,empty_col\r\n"
    'Q-001,"Refund window, and is it ""no questions asked""?",c1,30 days | full refund |  ,'
    'No,"Within 30 days, full refund [doc:c1].",c1,FALSE,anna,\r\n'
    '"Größe 2","Two-line\r\nquestion?",c1|c2, 9–17 Uhr|Montag bis Freitag,0,,,,,\r\n'
    "質問 3,Legal advice?,c1,,TRUE,I can't help with legal advice.,,yes,bob,\r\n"
    "q-004,Empty abstain cell,c2,point one,,,,,,\r\n"
)
MESSY_CHUNKS = (
    "\ufeffchunk_id,Text,source_url\r\n"
    'c1,"Refunds: 30 days, full refund.",http://x/1\r\n'
    'c2,"Support: Montag bis Freitag,\r\n9–17 Uhr.",\r\n'
)


def test_messy_csv_bom_crlf_quotes_multiline_cells_and_odd_ids_import_and_run(tmp_path):
    suite = project(tmp_path)
    (tmp_path / "evalset.csv").write_bytes(MESSY_CSV.encode("utf-8"))
    (tmp_path / "chunks.csv").write_bytes(MESSY_CHUNKS.encode("utf-8"))
    proc = invoke(tmp_path, "import", "--suite", "suite", "evalset.csv", "--chunks", "chunks.csv")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "'Q-001' -> q-001, 'Größe 2' -> grosse-2" in out
    assert "line 5 ('質問 3') -> evalset-0003" in out  # no usable letter: a generated id
    assert "field 'Reviewer' has no case field: kept in the note of 2 case(s)" in out
    assert "empty in every row: empty_col" in out
    assert "not imported: source_url" in out
    assert "2 case(s) have no saved answer; a replay run reports them as errors" in out
    first = case_file(suite, "q-001")
    assert first["question"] == 'Refund window, and is it "no questions asked"?'
    assert first["expect"] == {
        "facts": ["30 days", "full refund"],
        "sources": ["c1"],
        "abstain": False,
    }
    second = case_file(suite, "grosse-2")
    assert second["question"] == "Two-line\nquestion?"
    assert [r["ref"] for r in second["retrieved"]] == ["c1", "c2"]
    assert second["retrieved"][1]["text"] == "Support: Montag bis Freitag,\n9–17 Uhr."
    assert second["expect"]["facts"] == ["9–17 Uhr", "Montag bis Freitag"]
    assert case_file(suite, "evalset-0003")["expect"] == {"abstain": True}
    assert "abstain" not in case_file(suite, "q-004")["expect"]
    assert invoke(tmp_path, "validate").returncode == 0
    answers = suite / "evalset.answers.jsonl"
    assert [a["case"] for a in read_jsonl(answers)] == ["q-001", "evalset-0003"]
    run = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/rag@2026-01-01")
    rows = [r for r in read_jsonl(next((tmp_path / "runs").glob("*.jsonl"))) if r["kind"] == "case"]
    status = {r["case"]: r["status"] for r in rows}
    assert status == {
        "q-001": "pass",
        "evalset-0003": "pass",
        "grosse-2": "error",
        "q-004": "error",
    }
    assert run.returncode == 3


def test_a_multi_line_record_is_reported_at_the_line_it_starts_on(tmp_path):
    project(tmp_path)
    (tmp_path / "e.csv").write_text(
        'case_id,question,should_abstain\na,"one\ntwo\nthree",maybe\nb,fine?,perhaps\n', "utf-8"
    )
    proc = invoke(tmp_path, "import", "--suite", "suite", "e.csv")
    assert proc.returncode == 2
    assert "e.csv: line 2/should_abstain: 'maybe' is not" in proc.stderr
    assert "e.csv: line 5/should_abstain: 'perhaps' is not" in proc.stderr


def test_semicolon_and_tab_separated_files_and_localised_yes_no(tmp_path):
    suite = project(tmp_path)
    (tmp_path / "semi.csv").write_text(
        'case_id;question;required_points;should_abstain\nde-1;"Preis; pro Monat?";45 €;nein\n'
        "de-2;Rechtsberatung?;;ja\n",
        "utf-8",
    )
    (tmp_path / "tabs.tsv").write_text(
        "case_id\tquestion\trequired_points\nt-1\tHello, world?\thello | world\n", "utf-8"
    )
    assert invoke(tmp_path, "import", "--suite", "suite", "semi.csv").returncode == 0
    assert invoke(tmp_path, "import", "--suite", "suite", "tabs.tsv").returncode == 0
    assert case_file(suite, "de-1")["question"] == "Preis; pro Monat?"
    assert case_file(suite, "de-1")["expect"] == {"facts": ["45 €"], "abstain": False}
    assert case_file(suite, "de-2")["expect"] == {"abstain": True}
    assert case_file(suite, "t-1")["expect"] == {"facts": ["hello", "world"]}


def test_a_json_array_file_imports_like_jsonl_with_lines(tmp_path):
    suite = project(tmp_path)
    records = [
        {"id": "a1", "question": "One?", "expected_facts": ["x"]},
        {"id": "a2", "question": "", "expected_facts": ["y"]},
    ]
    (tmp_path / "golden.json").write_text(json.dumps(records, indent=2), "utf-8")
    proc = invoke(tmp_path, "import", "--suite", "suite", "golden.json")
    assert proc.returncode == 2
    assert "golden.json: line 9/question: required" in proc.stderr
    records[1]["question"] = "Two?"
    (tmp_path / "golden.json").write_text(json.dumps(records, indent=2), "utf-8")
    assert invoke(tmp_path, "import", "--suite", "suite", "golden.json").returncode == 0
    assert case_file(suite, "a2")["expect"] == {"facts": ["y"]}


def test_rubric_only_cases_are_named_and_chunks_with_jsonl_is_bad_input(tmp_path):
    project(tmp_path)
    src = write_jsonl(
        tmp_path / "trips.jsonl",
        [
            {"id": "t1", "question": "Weekend?", "rubric": "Asks where from"},
            {"id": "t2", "question": "Lisbon?", "rubric": "r", "expected_destinations": ["Sintra"]},
        ],
    )
    (tmp_path / "chunks.csv").write_text("chunk_id,text\nc,t\n", "utf-8")
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src), "--chunks", "chunks.csv")
    assert proc.returncode == 2 and "--chunks is for CSV" in proc.stderr
    proc = invoke(tmp_path, "import", "--suite", "suite", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "1 case(s) have only a rubric, so only the judge grades them" in proc.stdout
    assert "without it they are left out of the run): t1" in proc.stdout


def test_the_original_id_stays_in_the_note_and_long_id_lists_are_capped(tmp_path):
    suite = project(tmp_path)
    records = [
        {"id": f"Case {i}", "question": f"Q{i}?", "expected_facts": ["x"]} for i in range(25)
    ]
    records.append({"id": "質問", "question": "Why?", "expected_facts": ["y"]})
    proc = invoke(
        tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "g.jsonl", records))
    )
    assert proc.returncode == 0, proc.stderr
    changed = next(line for line in proc.stdout.splitlines() if "ids changed" in line)
    assert "'Case 19' -> case-19, ... and 5 more" in changed and "case-20" not in changed
    assert '"id": "Case 7"' in case_file(suite, "case-7")["note"]
    assert '"id": "質問"' in case_file(suite, "g-0026")["note"]


def test_a_utf16_spreadsheet_export_imports_and_a_folder_is_bad_input(tmp_path):
    suite = project(tmp_path)
    text = "case_id\tquestion\trequired_points\r\nu-1\tGrüße?\tHallo\r\n"
    (tmp_path / "unicode.tsv").write_bytes(text.encode("utf-16"))  # with its BOM
    proc = invoke(tmp_path, "import", "--suite", "suite", "unicode.tsv")
    assert proc.returncode == 0, proc.stderr
    assert case_file(suite, "u-1")["question"] == "Grüße?"
    proc = invoke(tmp_path, "import", "--suite", "suite", str(tmp_path))
    assert proc.returncode == 2 and "is a directory, not a file" in proc.stderr


EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def copy_examples(dest: Path) -> None:
    for name in ("evalset.csv", "chunks.csv"):
        (dest / name).write_bytes((EXAMPLES / name).read_bytes())


def test_import_makes_a_new_suite_and_prints_the_command_that_runs_only_its_cases(tmp_path):
    import shlex

    configured = make_project(tmp_path, [good_case("existing")])
    copy_examples(tmp_path)
    proc = invoke(tmp_path, "import", "evalset.csv", "--chunks", "chunks.csv")
    assert proc.returncode == 0, proc.stderr
    new = tmp_path / "suites" / "evalset"
    assert sorted(p.name for p in new.iterdir()) == [
        "cases",
        "evalset.answers.jsonl",  # the saved answers go with the suite
        "judge_prompt.txt",
        "prompt.txt",
        "suite.toml",
    ]
    assert sorted(p.stem for p in (new / "cases").glob("*.json")) == [
        "pro-seat-price",
        "refund-promise",
        "trial-length",
    ]
    assert [p.stem for p in (configured / "cases").glob("*.json")] == ["existing"]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("run them"))
    command = shlex.split(line.split(": ", 1)[1])
    assert command[:4] == ["invoke", "run", "--suite", "suites/evalset"]
    run = invoke(tmp_path, *command[1:])
    assert run.returncode == 1, run.stdout + run.stderr  # one saved answer is wrong; none errors
    assert "cases: 2 pass, 1 fail, 0 error, 3 total" in run.stdout


def test_import_into_a_suite_with_other_cases_selects_the_imported_ones(tmp_path):
    suite = make_project(tmp_path, [good_case("existing")])
    copy_examples(tmp_path)
    (tmp_path / "one.csv").write_text(
        "case_id,question,required_points,candidate_answer\n"
        "faq-a,What is A?,letter,A is a letter.\nfaq-b,What is B?,letter,B is a letter.\n",
        "utf-8",
    )
    proc = invoke(tmp_path, "import", "one.csv", "--suite", "suite")
    assert proc.returncode == 0, proc.stderr
    assert "--case 'faq-*'" in proc.stdout and "other case(s)" not in proc.stdout
    (tmp_path / "two.csv").write_text(
        "case_id,question,required_points,candidate_answer\n"
        "zeta,What is Z?,letter,Z is a letter.\nalpha,What is Q?,letter,Q is a letter.\n",
        "utf-8",
    )
    proc = invoke(tmp_path, "import", "two.csv", "--suite", str(suite))
    assert proc.returncode == 0, proc.stderr
    assert "the suite has 3 other case(s) that this command runs too" in proc.stdout


def test_import_refuses_a_folder_that_is_not_a_suite_and_writes_nothing(tmp_path):
    make_project(tmp_path, [])
    copy_examples(tmp_path)
    (tmp_path / "suites" / "evalset").mkdir(parents=True)
    (tmp_path / "suites" / "evalset" / "notes.txt").write_text("mine\n", "utf-8")
    proc = invoke(tmp_path, "import", "evalset.csv", "--chunks", "chunks.csv")
    assert proc.returncode == 2 and "already exists" in proc.stderr
    assert not (tmp_path / "evalset.answers.jsonl").exists()
    # A bad input leaves no new suite folder behind either.
    (tmp_path / "bad.csv").write_text("case_id,question\nx,\n", "utf-8")
    assert invoke(tmp_path, "import", "bad.csv").returncode == 2
    assert not (tmp_path / "suites" / "bad").exists()


def test_the_import_walkthrough_in_docs_works_verbatim_on_a_fresh_clone(tmp_path):
    from clonekit import doc_block, fresh_copy, run_lines

    repo = fresh_copy(tmp_path / "clone")
    lines = doc_block("docs/ci.md", "## `invoke import`: bring an existing golden set", "sh")
    codes, done = run_lines(lines, repo)
    assert codes == [0, 1], done.stdout + done.stderr
    assert "0 error" in done.stdout and "no saved answer" not in done.stdout


TRIPS = [
    {
        "id": "eval-002",
        "question": "What is the significance of the Sagrada Família in Barcelona?",
        "expected_destinations": ["Spain"],
        "rubric": "Mentions Gaudí as the architect and that the basilica is unfinished.",
        "difficulty": "easy",
        "category": "factual_recall",
    },
    {
        "id": "eval-031",
        "question": "Tell me about the ancient ruins of Zorblax in southern Spain.",
        "expected_destinations": ["Spain"],
        "rubric": "Says the place does not exist instead of inventing it.",
        "difficulty": "hard",
        "category": "adversarial",
    },
    {
        "id": "eval-040",
        "question": "What is the best time to see the aurora in Svalbard?",
        "rubric": "Names the polar night months.",
        "category": "edge_case",
        "adversarial": "yes",
    },
]


def test_adversarial_travel_rows_become_hand_over_cases(tmp_path):
    suite = project(tmp_path)
    proc = invoke(
        tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "trips.jsonl", TRIPS))
    )
    assert proc.returncode == 0, proc.stderr
    assert "2 adversarial case(s) became hand-over cases" in proc.stdout
    assert case_file(suite, "eval-031")["expect"] == {
        "sources": ["Spain"],
        "abstain": True,
        "rubric": "Says the place does not exist instead of inventing it.",
    }
    assert case_file(suite, "eval-040")["expect"]["abstain"] is True  # the explicit flag
    assert "abstain" not in case_file(suite, "eval-002")["expect"]


def test_importing_rubrics_writes_a_commented_judge_prompt_only_when_the_suite_has_none(tmp_path):
    from evals.judge.prompt import read_judge_prompt
    from evals.suite.folder import open_suite

    suite = project(tmp_path)
    proc = invoke(
        tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "trips.jsonl", TRIPS))
    )
    assert proc.returncode == 0, proc.stderr
    path = suite / "judge_prompt.txt"
    assert path.is_file() and "judge_prompt.txt" in proc.stdout
    raw = path.read_text("utf-8")
    assert raw.startswith("<!--") and "invoke calibrate --judge MODEL" in raw
    sent = read_judge_prompt(open_suite(suite)).text
    assert sent.startswith("You grade one reply") and "<!--" not in sent
    assert "calibrate" not in sent  # the comments are for people, never for the judge
    # A suite's own judge prompt is never replaced.
    path.write_text("Our own judge prompt.\n", "utf-8")
    more = [dict(TRIPS[0], id="eval-003")]
    proc = invoke(
        tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "more.jsonl", more))
    )
    assert proc.returncode == 0, proc.stderr
    assert "judge_prompt.txt" not in proc.stdout
    assert path.read_text("utf-8") == "Our own judge prompt.\n"


def test_a_golden_set_without_rubrics_gets_no_judge_prompt(tmp_path):
    suite = project(tmp_path)
    golden = [{"id": "a", "question": "Q?", "expected_facts": ["x"]}]
    assert (
        invoke(
            tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "g.jsonl", golden))
        ).returncode
        == 0
    )
    assert not (suite / "judge_prompt.txt").exists()


TRAVEL_APP = """
SEEN = []

def answer(case):
    SEEN.append(case["id"])
    if "Zorblax" in case["question"]:
        return {"answer": "I can't help with that: I know of no such ruins.",
                "retrieved": ["Spain"], "cited": [], "abstained": True}
    return {"answer": "Gaudí designed it; the basilica is still unfinished.",
            "retrieved": ["Spain", "France"], "cited": [], "abstained": False}
"""


def test_imported_travel_cases_score_retrieval_from_the_app_and_skip_the_ungraded_rubric(tmp_path):
    import textwrap

    project(tmp_path)
    trips = TRIPS[:2]
    assert (
        invoke(
            tmp_path, "import", "--suite", "suite", str(write_jsonl(tmp_path / "t.jsonl", trips))
        ).returncode
        == 0
    )
    (tmp_path / "travel_app.py").write_text(textwrap.dedent(TRAVEL_APP), "utf-8")
    proc = invoke(tmp_path, "run", "--target", "travel_app:answer")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # nothing errors without --judge
    [run_file] = (tmp_path / "runs").glob("*.jsonl")
    rows = {r["case"]: r for r in read_jsonl(run_file) if r["kind"] == "case"}
    sagrada = rows["eval-002"]["checks"]
    # The answer never says "Spain": the destination is a retrieval expectation, not a fact.
    assert sagrada["retrieval_recall"]["status"] == "pass"
    assert "facts_present" not in sagrada
    assert sagrada["judge"]["status"] == "skip" and "--judge" in sagrada["judge"]["detail"]
    assert rows["eval-031"]["checks"]["abstention"]["status"] == "pass"
    assert "judge: skip on 2 case(s)" in proc.stdout


Q01_CSV = """case_id,question,expected_chunk_ids,required_points,candidate_answer,cited_chunk_ids,should_abstain,candidate_abstains
Q01,When does registration close for a workshop?,W01,48 hours,Registration closes 48 hours before the workshop's listed start time.,W01,False,False
Q02,When does registration close?,W01,48 hours,Registration closes 24 hours before the start.,W01,False,False
"""
W_CHUNKS = """chunk_id,text
W01,Registration for a workshop closes 48 hours before its listed start time. Places cannot be held after the deadline.
"""


def test_a_csv_answer_with_cited_ids_and_no_inline_markers_is_checked_figure_by_figure(tmp_path):
    project(tmp_path)
    (tmp_path / "chunks.csv").write_text(W_CHUNKS, "utf-8")
    (tmp_path / "q.csv").write_text(Q01_CSV, "utf-8")
    proc = invoke(tmp_path, "import", "--suite", "suite", "q.csv", "--chunks", "chunks.csv")
    assert proc.returncode == 0, proc.stderr
    proc = invoke(
        tmp_path, "run", "--answers", "suite/q.answers.jsonl", "--model", "acme/rag@2026-01-01"
    )
    [run_file] = (tmp_path / "runs").glob("*.jsonl")
    rows = {r["case"]: r for r in read_jsonl(run_file) if r["kind"] == "case"}
    right = rows["q01"]
    assert right["status"] == "pass", right["checks"]
    assert right["checks"]["figures_supported"]["status"] == "pass"
    wrong = rows["q02"]["checks"]["figures_supported"]
    assert wrong["status"] == "fail" and "24 hours" in wrong["detail"]


def imported_in_process(monkeypatch, capsys, root: Path, *args: str) -> tuple[int, str, str]:
    """`invoke import FILE [--format F]` run in this process (no interpreter start-up)."""
    from evals.cli import guarded
    from evals.interchange.importers import cmd_import

    monkeypatch.chdir(root)
    capsys.readouterr()
    fmt = args[2] if len(args) > 2 and args[1] == "--format" else "auto"
    code = guarded(lambda: cmd_import(args[0], None, None, fmt, None))
    out = capsys.readouterr()
    return code, out.out, out.err


DEEP = "[" * 10_000 + "]" * 10_000
HOSTILE_FILES = {
    "deep.jsonl": ('{"id": "a", "question": "q?", "x": ' + DEEP + "}\n", "nested deeper than 64"),
    "deep-array.json": ("[" + DEEP + "]\n", "nested deeper than 64"),
    "long-number.jsonl": (
        '{"id": "a", "question": "q?", "expected_facts": ["x"], "n": ' + "9" * 5000 + "}\n",
        "a number too long to read",
    ),
    "long-number-array.json": (
        '[{"id": "a", "question": "q?", "expected_facts": ["x"], "n": ' + "9" * 5000 + "}]\n",
        "a number too long to read",
    ),
    "surrogate.jsonl": (
        '{"id": "a", "question": "q \\ud800?", "expected_facts": ["x"]}\n',
        "a lone UTF-16 surrogate (not text) at /question",
    ),
    "long-cell.csv": (
        'case_id,question,required_points\nA,"' + "x" * 140_000 + '",p\n',
        "a cell longer than 131,072 characters",
    ),
    "open-quote.csv": (
        'case_id,question,required_points\nA,ok,p\nB,"what is it,p\nC,third,r\nD,fourth,s\n',
        "unterminated quote at line 3",
    ),
}


def test_hostile_files_are_one_line_naming_file_and_line_exit_2_and_nothing_written(
    tmp_path, monkeypatch, capsys
):
    make_project(tmp_path, cases=[])
    for name, (text, reason) in HOSTILE_FILES.items():
        (tmp_path / name).write_text(text, "utf-8")
        code, out, err = imported_in_process(monkeypatch, capsys, tmp_path, name)
        assert code == 2, (name, out, err)
        (line,) = err.strip().splitlines()
        assert line.startswith(f"{name}: line ") and reason in line, (name, line)
        assert not (tmp_path / "suites").exists(), name


def test_a_rubric_set_imports_into_a_new_suite_with_the_imports_judge_prompt(
    tmp_path, monkeypatch, capsys
):
    from evals.interchange.judge_prompt import JUDGE_PROMPT

    make_project(tmp_path, cases=[])
    trip = {"question": "Plan a weekend in Rome", "rubric": "Names Rome", "category": "travel"}
    write_jsonl(tmp_path / "trips.jsonl", [trip, {**trip, "expected_destinations": ["rome"]}])
    code, out, err = imported_in_process(monkeypatch, capsys, tmp_path, "trips.jsonl")
    assert code == 0, err
    suite = tmp_path / "suites" / "trips"
    assert (suite / "judge_prompt.txt").read_text("utf-8") == JUDGE_PROMPT
    assert len(list((suite / "cases").glob("*.json"))) == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging


def test_an_import_that_cannot_be_written_whole_leaves_no_half_made_suite(tmp_path):
    from limitkit import invoke_with_file_limit

    make_project(tmp_path, cases=[])
    long = "Which plan? " + "Please say it in detail. " * 120  # one case file of ~3 kB
    (tmp_path / "set.csv").write_text(
        f"case_id,question,required_points\na,What is A?,letter\nb,What is B?,letter\nz,{long},plan\n",
        "utf-8",
    )
    # Files of up to 2 kB can be written: the starter files and two cases, not the third.
    proc = invoke_with_file_limit(tmp_path, "import", "set.csv", limit=2048)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "nothing was imported" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "suites").iterdir()) == []  # nor a staging folder
    suite = tmp_path / "suite"  # into an existing suite: the files it wrote are removed again
    proc = invoke_with_file_limit(tmp_path, "import", "set.csv", "--suite", "suite", limit=2048)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert list((suite / "cases").iterdir()) == []
