"""`invoke label [RUN]`: serve a run's answers to a person on 127.0.0.1, write their labels."""

from __future__ import annotations

import getpass
import re
import secrets
import subprocess
import sys
import webbrowser
from pathlib import Path

from evals.calibrate.labelled import cut_note, item_key, labelled_dir, read_labelled
from evals.checks.loading import load_cases
from evals.cli import EXIT_OK
from evals.cli import settings as load_settings
from evals.errors import InputError
from evals.label.page import item_html, render_page
from evals.label.queue import Queue, build_queue
from evals.report.data import find_suite, is_sealed, passages_for, suite_roots
from evals.run.files import RunFile, read_run
from evals.run.latest import resolve_for_suite
from evals.run.precedents import whole_text
from evals.suite.folder import DEFAULT_CITATION_PATTERN, Suite, open_suite


def who(root: Path) -> str:
    """The labeller's name: git's user.name in the project, else the login name."""
    try:
        out = subprocess.run(
            ["git", "config", "user.name"], cwd=root, capture_output=True, text=True, timeout=10
        )
        name = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def run_suite(run: RunFile, suite_dir: str | None, root: Path) -> Suite:
    """--suite, else the suite the run's header names (relative to the project)."""
    if suite_dir:
        return open_suite(suite_dir)
    found = find_suite(run.header, [root, *suite_roots(run, Path.cwd())])
    if found is None:
        raise InputError(
            f"{run.path}: /suite: the run's suite {run.header.get('suite')!r} is not found "
            "here: give --suite DIR"
        )
    return open_suite(found)


def label_file_name(run_id: str) -> str:
    """`labelled/<run id>.jsonl`, with any character a file name should not hold replaced."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", run_id).lstrip(".") + ".jsonl"


def intro(q: Queue, run: RunFile, target: Path) -> str:
    parts = [
        f"run {run.run_id}: {len(q.items)} answer(s) to label, writing to {target}",
        f"{q.already_labelled} already labelled",
        f"{q.passes_not_sampled} pass(es) not sampled",
    ]
    if q.unknown_case:
        parts.append(f"{q.unknown_case} row(s) of cases no longer in the suite")
    return "; ".join(parts)


def cmd_label(
    run_ref: str | None,
    *,
    suite_dir: str | None = None,
    port: int = 8765,
    no_browser: bool = False,
    sample: int = 5,
    seed: int = 0,
    by: str | None = None,
) -> int:
    """Serve the review page until Ctrl-C; every label is on disk the moment it is given."""
    if not 0 <= port <= 65535:
        raise InputError(f"--port: {port} is not a port number (0 to 65535; 0: any free port)")
    if sample < 0:
        raise InputError(f"--sample: {sample} is negative")
    cfg = load_settings()
    # `latest`: the newest run of --suite when it is given (else of the configured suite).
    run = read_run(resolve_for_suite(run_ref or "latest", suite_dir, "`invoke label RUN`"))
    if is_sealed(run.header):
        raise InputError(f"{run.path}: a sealed run keeps no answers to label")
    suite = run_suite(run, suite_dir, cfg.root)
    cases, _ = load_cases(suite)
    by_id = {c.id: c for c in cases}
    cut: list[str] = []
    labelled, problems = read_labelled(suite, {p.stem for p in suite.case_files()}, cut=cut)
    if problems:
        raise InputError(problems)
    if note := cut_note(cut):
        print(f"note: {note}", flush=True)
    queue = build_queue(
        run.rows,
        sample=sample,
        seed=seed,
        labelled={
            (*item_key(item, by_id[item.case]), item.case_sha)
            for item in labelled
            if item.case in by_id
        },
        case_ids=set(by_id),
    )
    target = labelled_dir(suite) / label_file_name(run.run_id)
    print(intro(queue, run, target), flush=True)
    if not queue.items:
        print("nothing to label", flush=True)
        return EXIT_OK
    return _serve(queue, run, suite, target, port, no_browser, by or who(cfg.root))


def _serve(
    queue: Queue, run: RunFile, suite: Suite, target: Path, port: int, no_browser: bool, by: str
) -> int:
    # The web framework is loaded only here: no other command pays for importing it.
    from evals.label.server import Session, serve
    from evals.label.store import LabelFile

    pattern = str(
        (run.header.get("settings") or {}).get("citation_pattern") or DEFAULT_CITATION_PATTERN
    )
    cases = {c.id: c for c in load_cases(suite)[0]}
    n = len(queue.items)
    html = []
    for i, item in enumerate(queue.items):
        changed = item.row.get("case_sha") != cases[item.case].sha
        note = (
            "the case was edited since this run: both versions of the ticket are shown, the "
            "passages are today's, and the label is given to the version the run asked (it "
            "decides no run of the case as it is now)"
            if changed
            else ""
        )
        passages = passages_for(item.row, suite.path)
        html.append(item_html(i, n, item, passages, pattern, note, cases[item.case]))
    intro_line = intro(queue, run, target) + f"; labelling as {by}"
    # The page carries a token each write must send back: another site cannot read it.
    token = secrets.token_urlsafe(24)
    session = Session(
        items=queue.items,
        run=run.run_id,
        by=by,
        file=LabelFile(target),
        # A lone surrogate anywhere in a row (a ticket, a check's detail) cannot be sent as
        # UTF-8: shown as U+FFFD, never a 500 for the whole page.
        page=whole_text(render_page(f"Label {run.run_id}", html, token, intro_line)),
        token=token,
    )
    try:
        server = serve(session, port)
    except OSError as exc:
        raise InputError(
            f"--port: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
        ) from None
    url = f"http://127.0.0.1:{server.server_port}/"
    print(f"label page: {url} (Ctrl-C to stop)", flush=True)
    if not no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print(f"{len(session.written)} label(s) written to {target}", file=sys.stdout, flush=True)
    return EXIT_OK
