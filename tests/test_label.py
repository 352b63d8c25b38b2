"""`invoke label`: the queue, the labelled file, and the page's app over real HTTP on loopback."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from casekit import INVOKE, ROOT, invoke, make_project, read_jsonl, write_case
from reportkit import cases, run_replay, write_answers

from evals.label.queue import Item, build_queue, row_key
from evals.label.server import Session, serve
from evals.label.store import LabelFile
from evals.run.precedents import answer_sha

MODEL = "acme/support-bot@2026-10-01"


def row(case: str, status: str, draft: str | None = "an answer", epoch: int = 0) -> dict[str, Any]:
    return {"case": case, "status": status, "draft": draft, "epoch": epoch, "case_sha": "0" * 64}


# -- the queue ---------------------------------------------------------------------------


def test_the_queue_puts_review_rows_first_then_failures_then_a_seeded_sample_of_passes() -> None:
    rows = [row(f"p{i}", "pass") for i in range(10)]
    rows += [row("f1", "fail"), row("r1", "review"), row("e1", "error", None), row("f0", "fail")]
    ids = {r["case"] for r in rows}
    q = build_queue(rows, sample=3, seed=7, labelled=set(), case_ids=ids)
    got = [(i.case, i.queued) for i in q.items]
    assert got[:3] == [("r1", "review"), ("f0", "fail"), ("f1", "fail")]
    assert [k for _, k in got[3:]] == ["pass"] * 3 and q.passes_not_sampled == 7
    again = build_queue(list(reversed(rows)), sample=3, seed=7, labelled=set(), case_ids=ids)
    assert [i.case for i in again.items] == [i.case for i in q.items]  # the seed decides
    other = build_queue(rows, sample=3, seed=8, labelled=set(), case_ids=ids)
    assert {i.case for i in other.items[3:]} != {i.case for i in q.items[3:]}
    assert "e1" not in {i.case for i in q.items}  # an error has no verdict to check


def test_an_answer_already_labelled_or_repeated_in_another_epoch_is_asked_once_or_never() -> None:
    rows = [row("a", "fail", "Pro is 39 €."), row("a", "fail", "Pro is  39 €.", epoch=1)]
    rows += [row("b", "fail", "B answer"), row("gone", "fail", "x")]
    done = {(*row_key(row("b", "fail", "B  answer")), None)}
    q = build_queue(rows, sample=0, seed=0, labelled=done, case_ids={"a", "b"})
    assert [(i.case, i.row["epoch"]) for i in q.items] == [("a", 0)]
    assert q.already_labelled == 1 and q.unknown_case == 1
    # A label of the case as another run asked it (another case sha) decides nothing here.
    old = {(*row_key(row("b", "fail", "B answer")), "1" * 64)}
    again = build_queue(rows, sample=0, seed=0, labelled=old, case_ids={"a", "b"})
    assert [i.case for i in again.items] == ["a", "b"] and again.already_labelled == 0


# -- the labelled file -------------------------------------------------------------------


def test_a_label_is_a_whole_line_even_after_a_hand_edit_without_a_final_newline(
    tmp_path: Path,
) -> None:
    path = tmp_path / "labelled" / "run.jsonl"
    path.parent.mkdir()
    path.write_text('{"case": "a"}', "utf-8")
    f = LabelFile(path)
    line, n = f.append({"case": "b", "answer": "Ünïcode\u2028stays"})
    assert n == 2
    assert path.read_text("utf-8").split("\n") == ['{"case": "a"}', line.rstrip("\n"), ""]


def test_undo_removes_only_its_own_line_and_keeps_lines_added_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    f = LabelFile(path)
    first, _ = f.append({"case": "a"})
    mine, _ = f.append({"case": "b"})
    with path.open("a", encoding="utf-8") as h:
        h.write('{"case": "by hand"}\n')
    assert f.remove(mine)
    assert path.read_text("utf-8") == first + '{"case": "by hand"}\n'
    assert not f.remove(mine)  # gone already: nothing else is touched
    assert path.read_text("utf-8") == first + '{"case": "by hand"}\n'
    assert not list(tmp_path.glob(".*tmp"))


# -- the app over HTTP --------------------------------------------------------------------


def post(base: str, path: str, body: Any, token: str | None = None, host: str | None = None):
    """A POST as the page's script sends it; (status, JSON reply)."""
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    if token is not None:
        req.add_header("X-Label-Token", token)
    if host is not None:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Page:
    """The app served on a free loopback port in this process."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.server = serve(session, 0)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def post(self, path: str, body: Any, token: str | None = None, host: str | None = None):
        return post(self.base, path, body, token, host)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Page]:
    items = [
        Item(
            row("a", "fail", "Pro is 39 € [doc:p]")
            | {"retrieved": ["p"], "cited": ["p"], "case_sha": "a" * 64},
            "fail",
        ),
        Item(row("b", "pass", "Fine.") | {"abstained": False, "case_sha": "b" * 64}, "pass"),
    ]
    session = Session(
        items=items,
        run="run-1",
        by="ana",
        file=LabelFile(tmp_path / "labelled" / "run-1.jsonl"),
        page="<p>page</p>",
        token="tok",
    )
    page = Page(session)
    yield page
    page.close()


def test_a_label_is_written_at_once_in_the_labelled_format_and_undo_removes_it(app: Page) -> None:
    status, out = app.post("/label", {"i": 0, "label": "fail", "why": " wrong\nprice "}, "tok")
    assert status == 200 and out["where"] == "run-1.jsonl:1"
    (rec,) = read_jsonl(app.session.file.path)
    assert rec.pop("at").endswith("Z")
    assert rec == {
        "case": "a",
        "answer": "Pro is 39 € [doc:p]",
        "label": "fail",
        "why": "wrong price",
        "case_sha": "a" * 64,
        "answer_sha": answer_sha("Pro is 39 € [doc:p]"),
        "run": "run-1",
        "by": "ana",
        "cited": ["p"],
        "retrieved": ["p"],
    }
    assert app.post("/label", {"i": 0, "label": "pass", "why": ""}, "tok")[0] == 409
    status, out = app.post("/label", {"i": 1, "label": "pass", "why": ""}, "tok")
    assert status == 200
    assert read_jsonl(app.session.file.path)[1]["why"] == "no reason given"
    assert read_jsonl(app.session.file.path)[1]["abstained"] is False
    assert app.post("/undo", {"i": 0}, "tok")[0] == 409  # only the newest label is undone
    assert app.post("/undo", {"i": 1}, "tok") == (200, {"where": "run-1.jsonl", "why": ""})
    status, out = app.post("/undo", {"i": 0}, "tok")
    assert status == 200 and out["why"] == "wrong price"
    assert app.session.file.path.read_text("utf-8") == ""


def test_writes_without_the_page_token_or_from_another_host_are_refused(app: Page) -> None:
    assert app.post("/label", {"i": 0, "label": "fail", "why": ""})[0] == 403
    assert app.post("/label", {"i": 0, "label": "fail", "why": ""}, "nope")[0] == 403
    assert (
        app.post("/label", {"i": 0, "label": "fail", "why": ""}, "tok", "evil.example:80")[0] == 403
    )
    assert app.post("/label", {"i": 5, "label": "fail", "why": ""}, "tok")[0] == 400
    assert app.post("/label", {"i": 0, "label": "maybe", "why": ""}, "tok")[0] == 400
    assert not app.session.file.path.exists()


# -- the command, end to end ---------------------------------------------------------------


class Served:
    """`invoke label --no-browser --port 0` as a user starts it; its address read from stdout."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [INVOKE, "-r", str(ROOT), "label", "--no-browser", "--port", "0", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"},
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(x) for x in self.proc.stdout], daemon=True
        ).start()
        self.lines: list[str] = []
        while True:
            line = lines.get(timeout=120)
            self.lines.append(line)
            if line.startswith("label page: "):
                self.url = line.split()[2]
                break
        self.more = lines

    def stop(self) -> str:
        self.proc.send_signal(2)  # Ctrl-C
        self.proc.wait(timeout=60)
        rest = []
        while not self.more.empty():
            rest.append(self.more.get())
        return "".join(self.lines + rest)


@pytest.fixture
def labelled_run(tmp_path: Path) -> tuple[Path, Path]:
    suite = make_project(tmp_path, [])
    for c in cases():
        if c["id"] in ("night-shift", "price-pro", "xss-note"):
            write_case(suite, c)
    answers = {
        "night-shift": "The night surcharge applies from 21:45 on [doc:rules#night].",
        "price-pro": "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].",
        "xss-note": "Markup is shown as text [doc:sec#markup].",
    }
    path = write_answers(tmp_path / "answers.jsonl", answers)
    return tmp_path, run_replay(tmp_path, MODEL, path, "first")


def page_token(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as r:
        html = r.read().decode("utf-8")
    return html.split('<meta name="label-token" content="', 1)[1].split('"', 1)[0]


def test_labels_given_on_the_page_decide_the_next_run_of_the_same_answers(
    labelled_run: tuple[Path, Path],
) -> None:
    root, first = labelled_run
    served = Served(root, "--by", "ana", "--sample", "0")
    try:
        assert "1 answer(s) to label" in served.lines[0]  # the one failure; no pass sampled
        body = {"i": 0, "label": "pass", "why": "21:45 is fine"}
        status, _ = post(served.url.rstrip("/"), "/label", body, page_token(served.url))
        assert status == 200
    finally:
        out_text = served.stop()
    assert served.proc.returncode == 0 and "1 label(s) written" in out_text
    (rec,) = read_jsonl(root / "suite" / "labelled" / f"{first.stem}.jsonl")
    assert rec["case"] == "night-shift" and rec["by"] == "ana" and rec["run"] == first.stem
    assert invoke(root, "validate").returncode == 0
    again = invoke(root, "run", "--model", MODEL, "--answers", str(root / "answers.jsonl"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "decided by a label: 1 case(s) (1 pass, 0 fail)" in again.stdout
    # Asked again, the labelled answer is not in the queue any more.
    out = invoke(root, "label", "--no-browser", "--port", "0", "--sample", "0", "--run", first.stem)
    assert out.returncode == 0 and "nothing to label" in out.stdout
    assert "1 already labelled" in out.stdout


def test_bad_flags_and_sealed_or_missing_runs_are_one_line_errors(
    labelled_run: tuple[Path, Path],
) -> None:
    root, _ = labelled_run
    for args, says in (
        (("--port", "70000"), "--port: 70000 is not a port number"),
        (("--sample", "-1"), "--sample: -1 is negative"),
        (("--run", "nope"), "nope"),
    ):
        out = invoke(root, "label", "--no-browser", *args)
        assert out.returncode == 2, out.stderr
        assert says in out.stderr and "Traceback" not in out.stderr


# -- what the page shows ----------------------------------------------------------------------


def test_the_page_shows_what_the_case_expects_collapsed_beside_the_answer() -> None:
    from evals.label.page import item_html
    from evals.report.data import Passages
    from evals.suite.case import Case

    data = {
        "id": "a",
        "question": "How much is Pro?",
        "reference": "Pro costs 45 € per seat and month.",
        "expect": {
            "facts": [["Pro costs 45 €", "45 € for Pro"], {"any": ["per seat"], "optional": True}],
            "figures": [{"value": "45 €", "about": "Pro"}],
            "must_not_contain": ["39 €"],
        },
    }
    case = Case(data)
    item = Item(row("a", "fail", "Pro is 39 €.") | {"case_sha": case.sha}, "fail")
    html = item_html(0, 1, item, Passages([]), r"\[doc:([^\]]+)\]", "", case)
    expected = html.split('<details class="expected">', 1)[1].split("</details>", 1)[0]
    assert "<summary>What the case expects</summary>" in expected
    assert "Pro costs 45 € per seat and month." in expected  # the reference answer
    assert "<q>Pro costs 45 €</q> · <q>45 € for Pro</q>" in expected
    assert '<q>per seat</q> <span class="dim">(optional)</span>' in expected
    assert '<q>45 €</q> <span class="dim">about Pro</span>' in expected
    assert "Never says</h4><ul><li><q>39 €</q>" in expected
    assert "Ticket as the run asked it" not in html  # the case is as the run asked it


def test_a_very_long_answer_has_figures_marked_in_its_first_part_only_and_says_so() -> None:
    from evals.label.page import MARKED_PREFIX, answer_html, item_html
    from evals.report.data import Passages

    answer = "Pro costs 45 € per seat. " * (MARKED_PREFIX // 10)
    html = answer_html(answer, r"\[doc:([^\]]+)\]", {})
    cut = html.index("</mark>", html.rindex('<mark class="fig"')) + len("</mark>")
    assert html[cut:].count("45 €") > 0 and "<mark" not in html[cut:]
    assert (
        html.replace('<mark class="fig" title="money 45 EUR">', "").replace("</mark>", "") == answer
    )
    page = item_html(0, 1, Item(row("a", "fail", answer), "fail"), Passages([]), r"x", "")
    assert f"marked in the first {MARKED_PREFIX:,} characters only" in page


def test_an_edited_case_shows_both_tickets_and_its_label_stays_with_the_version_the_run_asked(
    labelled_run: tuple[Path, Path],
) -> None:
    root, first = labelled_run
    path = root / "suite" / "cases" / "night-shift.json"
    data = json.loads(path.read_text("utf-8"))
    old_question = data["question"]
    asked_sha = next(r for r in read_jsonl(first) if r.get("case") == "night-shift")["case_sha"]
    data["question"] = "From what time does the weekend surcharge apply?"
    write_case(root / "suite", data)
    served = Served(root, "--by", "ana", "--sample", "0")
    try:
        with urllib.request.urlopen(served.url, timeout=30) as r:
            html = r.read().decode("utf-8")
        assert "Ticket as the run asked it" in html and "Ticket in the case now" in html
        assert "weekend surcharge" in html and old_question.split()[0] in html
        body = {"i": 0, "label": "pass", "why": "right for the question asked"}
        assert post(served.url.rstrip("/"), "/label", body, page_token(served.url))[0] == 200
    finally:
        served.stop()
    (rec,) = read_jsonl(root / "suite" / "labelled" / f"{first.stem}.jsonl")
    assert rec["case_sha"] == asked_sha  # not the edited case's: it decides no run of it
    out = invoke(root, "validate")
    assert "stale label: case 'night-shift' was edited after it was labelled" in out.stderr


def test_bad_bytes_in_an_answer_a_reason_or_a_token_give_no_crash_no_500_and_no_empty_file(
    labelled_run: tuple[Path, Path],
) -> None:
    root, first = labelled_run
    recs = [json.loads(x) for x in first.read_text("utf-8").splitlines()]
    for rec in recs:
        if rec.get("case") == "night-shift":  # bad bytes in the answer and a check's detail
            rec["draft"] = rec["draft"].replace("21:45 on", "21:45 \ud800 on")
            rec["checks"]["facts_present"]["detail"] += " \udcff"
    first.write_text("".join(json.dumps(r) + "\n" for r in recs), "utf-8")
    served = Served(root, "--by", "ana", "--sample", "0")
    base = served.url.rstrip("/")
    try:
        token = page_token(served.url)
        raw = b'{"i": 0, "label": "pass", "why": "odd \\ud800 byte"}'
        req = urllib.request.Request(base + "/label", data=raw, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("X-Label-Token", token)
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=30)
        conn.putrequest("POST", "/label")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("X-Label-Token", b"\xff\xfe")
        conn.putheader("Content-Length", "2")
        conn.endheaders(b"{}")
        assert conn.getresponse().status == 403
        conn.close()
    finally:
        out = served.stop()
    assert "Traceback" not in out + served.proc.stderr.read()
    (rec,) = read_jsonl(root / "suite" / "labelled" / f"{first.stem}.jsonl")
    assert rec["answer"] == "The night surcharge applies from 21:45 \ufffd on [doc:rules#night]."
    assert rec["why"] == "odd \ufffd byte"
    assert invoke(root, "validate").returncode == 0


def test_the_server_takes_a_burst_of_waiting_connections(tmp_path: Path) -> None:
    import socket

    session = Session(
        items=[Item(row("a", "fail"), "fail")],
        run="run-1",
        by="ana",
        file=LabelFile(tmp_path / "run-1.jsonl"),
        page="<p>page</p>",
        token="tok",
    )
    server = serve(session, 0)
    socks = []
    try:
        # Nothing is accepted yet: every connection waits in the listen queue.
        for _ in range(32):
            s = socket.create_connection(("127.0.0.1", server.server_port), timeout=0.5)
            socks.append(s)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        for s in socks:
            s.sendall(f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{server.server_port}\r\n\r\n".encode())
            assert s.recv(64).startswith(b"HTTP/1.0 200")
    finally:
        for s in socks:
            s.close()
        server.shutdown()
        server.server_close()


def test_a_second_page_on_the_same_run_is_told_an_answer_is_labelled_and_writes_nothing(
    tmp_path: Path,
) -> None:
    def page() -> Page:
        items = [Item(row("a", "fail", "Pro is 39 €.") | {"case_sha": "a" * 64}, "fail")]
        target = LabelFile(tmp_path / "labelled" / "run-1.jsonl")  # each page its own writer
        return Page(Session(items=items, run="run-1", by="ana", file=target, page="", token="t"))

    first, second = page(), page()
    try:
        assert first.post("/label", {"i": 0, "label": "fail", "why": ""}, "t")[0] == 200
        status, out = second.post("/label", {"i": 0, "label": "pass", "why": ""}, "t")
        assert status == 409 and "another page already labelled this answer" in out["error"]
    finally:
        first.close()
        second.close()
    assert [r["label"] for r in read_jsonl(tmp_path / "labelled" / "run-1.jsonl")] == ["fail"]
