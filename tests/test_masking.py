"""Secrets in what an endpoint sends back, or in its URL, never reach a file or the terminal."""

from __future__ import annotations

import json

from openai_server import Fault, Scripted
from runkit import API_KEY, GOOD, make_project, records, rows, run, run_files, use

from evals.cli import guarded
from evals.providers.masking import SecretMask, printable, redact_url, secret_looking
from evals.report.command import cmd_report


def _no_key_anywhere(root, out: str) -> None:
    files = [p for p in root.rglob("*") if p.is_file() and "suite" not in p.parts]
    assert files
    for f in files:
        assert API_KEY.encode() not in f.read_bytes(), f
    assert API_KEY not in out


def test_a_key_in_the_finish_reason_is_masked_in_the_row_the_console_and_the_html_report(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 1, max_retries=0)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: Scripted(None, finish_reason=f"content_filter {API_KEY}")
    assert run() == 3
    assert guarded(lambda: cmd_report("latest", html=str(root / "report.html"))) == 0
    out = capsys.readouterr()
    _no_key_anywhere(root, out.out + out.err)
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "error" and "finish_reason: content_filter ***" in row["error"]


def test_a_key_in_an_http_error_or_a_reported_model_is_masked_even_in_part(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 2, max_retries=0, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    part = API_KEY[3:20]  # a gateway quoting only a piece of the key
    openai_server.enqueue(
        Fault.http(500, f"upstream said: token {part}... was refused"),
        Scripted(GOOD, model=f"proxy\x1b[31m-{API_KEY[:-2]}"),
    )
    assert run() == 3
    out = capsys.readouterr()
    text = out.out + out.err + run_files(root)[0].read_text("utf-8")
    assert part not in text and API_KEY[:-2] not in text and "\x1b" not in text
    error, answered = rows(run_files(root)[0])
    assert "token ***... was refused" in error["error"]
    assert answered["resolved_model"] == "proxy-***"


def test_a_key_in_the_base_url_path_or_fragment_is_masked_in_the_header(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 1)
    # A gateway that takes the key in the path; the fragment is never sent.
    base = openai_server.base_url.replace("/v1", f"/{API_KEY}/v1") + f"#{API_KEY}"
    use(monkeypatch, root, base)
    run()
    header = records(run_files(root)[0])[0]
    url = header["settings"]["provider"]["base_url"]
    assert url == f"http://127.0.0.1:{openai_server.port}/***/v1#***"
    _no_key_anywhere(root, "".join(capsys.readouterr()))


def test_redact_url_masks_user_info_query_fragment_and_token_like_path_segments():
    assert redact_url("https://u:pw@gw.example/v1") == "https://gw.example/v1"
    assert redact_url("https://gw.example:8443/v1?api-key=s3cret&x=1&bare") == (
        "https://gw.example:8443/v1?api-key=***&x=***&***"
    )
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    token = "a8f3kQz92LmXw01pR7sT4vB6nY5c"
    assert redact_url(f"https://gw.example/k/{token}/v1") == "https://gw.example/k/***/v1"
    # A short key is only recognised because it is the key.
    assert redact_url("https://gw.example/abc123/v1", "abc123") == "https://gw.example/***/v1"
    assert redact_url("https://gw.example/abc123/v1") == "https://gw.example/abc123/v1"


def test_model_names_and_path_words_are_not_taken_for_secrets():
    for word in ("v1", "openai", "deployments", "gpt-4o-mini-2024-07-18"):
        assert not secret_looking(word), word
    assert not secret_looking("Meta-Llama-3.1-70B-Instruct")
    assert secret_looking("3f2b9c1e-8d4a-4b6f-9e2a-7c5d1f0b8a3e")  # a UUID
    assert secret_looking("sk-proj-abc")


def test_a_secret_mask_covers_the_whole_key_fragments_and_key_shaped_tokens():
    mask = SecretMask(API_KEY)
    assert mask.text(f"say {API_KEY} twice {API_KEY}") == "say *** twice ***"
    assert mask.text(f"piece {API_KEY[5:19]} end") == "piece *** end"
    assert mask.text("0123456789") == "0123456789"  # short runs of ordinary text stay
    assert mask.message("Incorrect API key provided: sk-ab***yz") == (
        "Incorrect API key provided: sk-***"
    )
    assert SecretMask(None).text("nothing to mask") == "nothing to mask"


def test_printable_drops_escape_sequences_and_control_characters():
    raw = "\x1b[2J\x1b]0;owned\x07red \x1b[31mtext\x1b[0m\r\nnext\x00\x9b1m"
    assert printable(raw) == "red text\nnext"
    assert printable(raw, one_line=True) == "red text next"
    assert json.dumps(printable("tab\there")) == '"tab\\there"'


def test_the_judge_masks_a_piece_of_its_key_echoed_in_a_verdict(
    tmp_path, monkeypatch, openai_server
):
    from judgekit import grade, judge_project, load_case, make, verdict

    project = judge_project(tmp_path)
    piece = "sk-test-not-a-secret"[2:16]  # the key judgekit's judge is given, in part
    openai_server.enqueue(verdict(score=4, reasoning=f"I was called with {piece}..."))
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert result.status == "pass"
    assert piece not in json.dumps(extra)
    assert extra["judge"]["verdict"]["reasoning"] == "I was called with ***..."


TOKEN = "gw7Qk2Lx9Rt4Vb8Nz3Pw6Yc1"


def test_a_token_in_the_base_url_path_quoted_in_a_404_is_masked_in_row_summary_and_console(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 2, max_retries=0)
    use(monkeypatch, root, openai_server.base_url.replace("/v1", f"/gw/{TOKEN}/v1"))
    assert run() == 3
    out = capsys.readouterr()
    text = out.out + out.err
    for f in root.rglob("*"):
        if f.is_file():
            assert TOKEN.encode() not in f.read_bytes(), f
    assert TOKEN not in text
    recs = records(run_files(root)[0])
    assert any(
        "not found: POST /gw/***/v1/chat/completions" in (r.get("error") or "") for r in recs
    )
    assert "/gw/***/v1" in recs[-1]["stopped_reason"]


def test_basic_auth_in_the_url_is_masked_in_its_base64_form_as_the_client_sends_it(
    tmp_path, monkeypatch, openai_server, capsys
):
    import base64

    user, password = "svc-evals", "hunter2-hunter2"
    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
    root = make_project(tmp_path, 1, max_retries=0)
    url = openai_server.base_url.replace("http://", f"http://{user}:{password}@")
    use(monkeypatch, root, url)
    openai_server.enqueue(Fault.http(403, f"header Authorization: Basic {basic} not allowed"))
    assert run() == 3
    assert openai_server.requests[0].headers["authorization"] == f"Basic {basic}"
    out = capsys.readouterr()
    text = out.out + out.err + run_files(root)[0].read_text("utf-8")
    assert basic not in text and password not in text and f"{user}:" not in text
    (row,) = rows(run_files(root)[0])
    assert "header Authorization: Basic *** not allowed" in row["error"]


def test_url_secrets_are_the_credentials_a_url_holds_and_nothing_else():
    from evals.providers.masking import url_secrets

    assert url_secrets("http://127.0.0.1:8000/v1") == []
    assert url_secrets("https://api.openai.com/v1?api-version=2024-06-01") == []
    found = url_secrets(f"https://u:pa%40ss-long@gw.example/gw/{TOKEN}/v1?api-key=k3y-value")
    assert TOKEN in found and "k3y-value" in found and "pa@ss-long" in found
    assert "u:pa@ss-long" in found and "dTpwYUBzcy1sb25n" in found  # base64 of u:pa@ss-long
    assert "u" not in found and "gw" not in found and "v1" not in found


def test_any_run_of_six_or_more_characters_matching_the_keys_start_or_end_is_masked():
    key = "tokQ9f8eAbCdEfGhIjKl172635Zq"
    mask = SecretMask(key)
    assert mask.text("Incorrect API key provided: tokQ9f8e****172635Zq") == (
        "Incorrect API key provided: ***"
    )
    assert mask.text("starts tokQ9f, ends 2635Zq.") == "starts ***, ends ***."
    # Five characters are not a run of the key, nor is a run inside a longer word.
    assert mask.text("tokQ9 and 635Zq") == "tokQ9 and 635Zq"
    assert mask.text("atokQ9f and 2635Zqs") == "atokQ9f and 2635Zqs"
    # A key a person chose: its ends are ordinary words, masked only standing alone.
    chosen = SecretMask("sk-no-key-required")
    assert chosen.text("A card is required.") == "A card is required."
    assert chosen.text("key sk-no-key-re**** refused") == "key *** refused"


def test_the_judge_masks_a_token_in_its_base_url_quoted_back_in_an_error(
    tmp_path, monkeypatch, openai_server
):
    from dataclasses import replace

    from judgekit import JUDGE, grade, judge_project, load_case

    from evals.config import load_settings
    from evals.judge.client import make_judge
    from evals.suite.folder import open_suite

    project = judge_project(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url.replace("/v1", f"/gw/{TOKEN}/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    cfg = replace(load_settings(project.parent), timeout_s=1.0, max_retries=0)
    judge = make_judge(JUDGE, open_suite(project), cfg, use_cache=False)
    result, extra = grade(judge, load_case(project))
    text = json.dumps(extra) + (result.detail or "")
    assert result.status == "error" and "not found: POST /gw/***/v1/chat/completions" in text
    assert TOKEN not in text
