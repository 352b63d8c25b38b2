"""The review page's web app (bottle) and the loopback server that serves it."""

from __future__ import annotations

import secrets
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import bottle

from evals.label.queue import Item, label_record, row_key, same_reply
from evals.label.store import LabelFile, LinkRefused
from evals.suite.schemas import schema_problems

HOST = "127.0.0.1"


@dataclass
class Session:
    """What one page serves and what it has written, newest last (what `u` undoes)."""

    items: list[Item]
    run: str
    by: str
    file: LabelFile
    page: str
    token: str
    written: list[tuple[int, str, str]] = field(default_factory=list)  # (item, line, why)
    lock: threading.Lock = field(default_factory=threading.Lock)
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))


def _fail(status: int, message: str) -> dict[str, Any]:
    bottle.response.status = status
    return {"error": message}


def _one_line_errors(callback: Callable[..., Any]) -> Callable[..., Any]:
    """A bug in a handler is a 500 with one line in the terminal, never a traceback there."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except bottle.HTTPResponse:
            raise
        except Exception as exc:
            print(f"label page: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
            return _fail(500, f"internal error ({type(exc).__name__}): nothing was written")

    return wrapper


def make_app(session: Session, port: Callable[[], int]) -> bottle.Bottle:
    """The page at `/`; `POST /label` and `POST /undo` change the labelled file."""
    app = bottle.Bottle()
    app.install(_one_line_errors)

    def trusted() -> str | None:
        """Why a request is refused: another Host (a rebinding page) or no session token
        (another site's form: a custom header cannot be sent cross-site without CORS)."""
        hosts = {f"{HOST}:{port()}", f"localhost:{port()}"}
        # Read from the WSGI environ, where a header is latin-1 text of any bytes: bottle's
        # own reader decodes it as UTF-8 and raises on bytes such as \xff\xfe.
        env = bottle.request.environ
        if env.get("HTTP_HOST") not in hosts:
            return "unknown host"
        sent = str(env.get("HTTP_X_LABEL_TOKEN") or "").encode("latin-1", "replace")
        if bottle.request.method == "POST" and not secrets.compare_digest(
            sent, session.token.encode("ascii")
        ):
            return "missing or wrong page token: reload the page"
        return None

    @app.get("/")
    def index() -> str:
        if why := trusted():
            bottle.abort(403, why)
        bottle.response.set_header("Cache-Control", "no-store")
        return session.page

    def body_index() -> tuple[int | None, dict[str, Any]]:
        try:
            data = bottle.request.json  # None unless the body is sent as application/json
        except (ValueError, UnicodeError, bottle.HTTPError):
            return None, {}  # not JSON, or not UTF-8: a 400 like any other bad body
        i = data.get("i") if isinstance(data, dict) else None
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(session.items):
            return None, {}
        return i, data

    @app.post("/label")
    def label() -> dict[str, Any]:
        if why := trusted():
            return _fail(403, why)
        i, data = body_index()
        verdict, reason = data.get("label"), data.get("why", "")
        if i is None or verdict not in ("pass", "fail") or not isinstance(reason, str):
            return _fail(400, 'expected {"i": item, "label": "pass"|"fail", "why": text}')
        with session.lock:
            if any(k == i for k, _, _ in session.written):
                return _fail(409, "this answer is already labelled: undo first")
            item = session.items[i]
            rec = label_record(
                item,
                verdict,
                reason,
                # The version of the case the run asked: a label of an answer to an edited
                # case's old question must not decide the new one.
                case_sha=str(item.row["case_sha"]),
                run=session.run,
                by=session.by,
                at=session.now(),
            )
            problems = schema_problems(rec, "labelled.schema.json", "label")
            if problems:
                return _fail(400, "; ".join(map(str, problems)))
            key = row_key(item.row)
            try:
                done = session.file.append(rec, duplicate=lambda old: same_reply(old, key))
            except LinkRefused as exc:
                return _fail(403, str(exc))
            except OSError as exc:
                return _fail(500, f"cannot write {session.file.path}: {exc.strerror or exc}")
            if done is None:
                return _fail(409, "another page already labelled this answer in this file")
            line, n = done
            session.written.append((i, line, rec["why"]))
        return {"where": f"{session.file.path.name}:{n}", "label": verdict}

    @app.post("/undo")
    def undo() -> dict[str, Any]:
        if why := trusted():
            return _fail(403, why)
        i, _ = body_index()
        with session.lock:
            if not session.written or session.written[-1][0] != i:
                return _fail(409, "that is not the last label written by this page")
            _, line, reason = session.written[-1]
            try:
                removed = session.file.remove(line)
            except LinkRefused as exc:
                return _fail(403, str(exc))
            except OSError as exc:
                return _fail(500, f"cannot rewrite {session.file.path}: {exc.strerror or exc}")
            if not removed:
                return _fail(409, f"the line is no longer in {session.file.path}: nothing removed")
            session.written.pop()
        return {
            "where": session.file.path.name,
            "why": "" if reason == "no reason given" else reason,
        }

    return app


class _Server(ThreadingMixIn, WSGIServer):
    # A browser may open a connection and send nothing on it for a while: one thread per
    # request keeps the page answering; daemon threads never hold the process open.
    daemon_threads = True
    # The default (5) resets a browser's burst of parallel requests past the fifth.
    request_queue_size = 128


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass


def serve(session: Session, port: int) -> WSGIServer:
    """A server for the session's app on 127.0.0.1:`port` (0: any free port), not yet serving."""
    holder: list[WSGIServer] = []
    app = make_app(session, lambda: holder[0].server_port)
    server = make_server(HOST, port, app, server_class=_Server, handler_class=_Quiet)
    holder.append(server)
    return server
