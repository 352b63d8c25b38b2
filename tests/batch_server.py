"""The loopback OpenAI-compatible server plus the Files and Batches endpoints.

Everything ``OpenAIServer`` serves (live chat completions, used by the judge) and:

- ``POST /v1/files`` (multipart, ``purpose=batch``), ``GET /v1/files/{id}``,
  ``GET /v1/files/{id}/content``;
- ``POST /v1/batches``, ``GET /v1/batches`` (newest first, ``limit``/``after``),
  ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``.

A batch moves on only when it is looked at: each ``GET /v1/batches/{id}`` is one poll.
On poll ``i`` of ``polls_to_finish`` it has answered ``ceil(n * i / polls_to_finish)`` of
its ``n`` lines (``validating`` on the first poll, ``in_progress`` until the last, then
``completed``). With ``expire_after=k`` it stops at ``k`` answered lines and ends
``expired`` on the last poll; with ``expired_in_error_file`` the unanswered lines are
written to the error file with code ``batch_expired`` (as OpenAI does), else left out. A
cancelled batch ends ``cancelled`` on its next poll with what it had answered.

Each line is answered by ``responder(body)`` (as live requests are) unless
``line_faults[custom_id]`` says otherwise: ``LineFault.error(code, message)`` (error file,
no response), ``LineFault.status(code, message)`` (error file, a non-200 response) or
``LineFault.malformed()`` (output file, a 200 whose body is no chat completion) or
``LineFault.raw(text)`` (that text as the line, as it is). ``batch_errors`` makes every new
batch fail validation with those errors; ``can_list = False`` removes ``GET /v1/batches``.
``create_faults`` scripts ``POST /v1/batches`` calls in order: a ``Fault`` is answered
instead of creating the batch; ``"drop-after-create"`` creates it, then drops the
connection before the response, as a lost response would.

Counters: ``files_uploaded``, ``batches_created``, ``line_counts`` (every ``custom_id``
ever put into a created batch, with how often), ``polls`` (by batch id); every request is
recorded in ``requests``.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import json
import math
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from openai_server import Fault, OpenAIServer, Recorded, Scripted, _Handler

ENDPOINT = "/v1/chat/completions"


@dataclass
class LineFault:
    """How one request of a batch fails."""

    kind: str
    code: int | str = 400
    message: str = "injected"

    @classmethod
    def error(cls, code: str = "server_error", message: str = "injected line error") -> LineFault:
        return cls("error", code, message)

    @classmethod
    def status(cls, code: int = 400, message: str = "injected bad request") -> LineFault:
        return cls("status", code, message)

    @classmethod
    def malformed(cls) -> LineFault:
        return cls("malformed")

    @classmethod
    def raw(cls, line: str) -> LineFault:
        """This exact text as the request's line in the output file (any bytes, any depth)."""
        return cls("raw", message=line)


@dataclass
class _Batch:
    id: str
    input_file_id: str
    lines: list[dict[str, Any]]
    created_at: int
    metadata: dict[str, Any] | None
    status: str = "validating"
    polls: int = 0
    answered: int = 0
    output: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    failed: int = 0
    validation_errors: list[dict[str, Any]] = field(default_factory=list)


class _BatchHandler(_Handler):
    server: Any

    def _route(self, method: str) -> None:
        owner: BatchServer = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        path, query = parts.path.rstrip("/"), parse_qs(parts.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        body: Any = None
        if raw and headers.get("content-type", "").startswith("application/json"):
            with contextlib.suppress(ValueError):
                body = json.loads(raw)
        owner._record(Recorded(method, self.path, headers, body, raw))
        seg = path.split("/")[1:]  # "", "v1", ... -> ["v1", ...]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if seg[:2] == ["v1", "files"]:
                self._files(owner, method, seg[2:], headers, raw)
            elif seg[:2] == ["v1", "batches"]:
                self._batches(owner, method, seg[2:], body, query)
            else:
                self._send(404, b'{"error":{"message":"not found","type":"not_found"}}')

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode())

    def _missing(self, what: str) -> None:
        self._json(404, {"error": {"message": f"no such {what}", "type": "invalid_request_error"}})

    def _files(
        self, owner: BatchServer, method: str, rest: list[str], headers: dict[str, str], raw: bytes
    ) -> None:
        if method == "POST" and not rest:
            ctype = headers.get("content-type", "")
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw
            )
            fields: dict[str, Any] = {}
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                fields[str(name)] = part.get_payload(decode=True)
            if fields.get("purpose") != b"batch" or not isinstance(fields.get("file"), bytes):
                self._json(400, {"error": {"message": "need file and purpose=batch"}})
                return
            self._json(200, owner._store_file(fields["file"], "batch"))
            return
        f = owner.files.get(rest[0]) if rest else None
        if method != "GET" or f is None:
            self._missing("file")
        elif rest[1:] == ["content"]:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(f["content"])))
            self.end_headers()
            self.wfile.write(f["content"])
        else:
            self._json(200, {k: v for k, v in f.items() if k != "content"})

    def _batches(
        self, owner: BatchServer, method: str, rest: list[str], body: Any, query: dict[str, Any]
    ) -> None:
        if method == "POST" and not rest:
            action = owner._next_create()
            if isinstance(action, Fault):
                err = {"error": {"message": f"injected {action.kind}", "type": action.kind}}
                self._json(action.status, err)
                return
            made = owner._create(body if isinstance(body, dict) else {})
            if isinstance(made, str):
                self._json(400, {"error": {"message": made, "type": "invalid_request_error"}})
                return
            if action == "drop-after-create":
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            self._json(200, made)
            return
        if method == "GET" and not rest:
            if owner.can_list:
                self._json(200, owner._list(query))
            else:
                self._missing("route")
            return
        with owner._lock:
            b = owner.batches.get(rest[0]) if rest else None
        if b is None:
            self._missing("batch")
        elif method == "GET" and len(rest) == 1:
            self._json(200, owner._poll(b))
        elif method == "POST" and rest[1:] == ["cancel"]:
            self._json(200, owner._cancel(b))
        else:
            self._missing("route")

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        path = self.path.split("?", 1)[0]
        if path.startswith(("/v1/files", "/v1/batches")):
            self._route("POST")
        else:
            super().do_POST()  # live chat completions (the judge)


class BatchServer(OpenAIServer):
    """The chat server plus Files and Batches; see the module docstring."""

    handler_class = _BatchHandler

    def __init__(
        self,
        *,
        polls_to_finish: int = 2,
        expire_after: int | None = None,
        expired_in_error_file: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        # Finishing a batch stores its files while the batch is locked.
        self._lock = threading.RLock()  # type: ignore[assignment]
        self.polls_to_finish = polls_to_finish
        self.expire_after = expire_after
        self.expired_in_error_file = expired_in_error_file
        self.line_faults: dict[str, LineFault] = {}
        #: False: no `GET /v1/batches` (a 404), as some OpenAI-compatible servers have none.
        self.can_list = True
        #: Errors every new batch fails validation with (its `errors.data`).
        self.batch_errors: list[dict[str, Any]] = []
        self.create_faults: list[Fault | str] = []
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, _Batch] = {}
        self.files_uploaded = 0
        self.batches_created = 0
        self.line_counts: Counter[str] = Counter()
        self.polls: Counter[str] = Counter()
        self._ids = 0

    def _new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}-{self._ids:05d}"

    def _store_file(self, content: bytes, purpose: str) -> dict[str, Any]:
        with self._lock:
            fid = self._new_id("file")
            if purpose == "batch":
                self.files_uploaded += 1
            self.files[fid] = {
                "id": fid,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": f"{fid}.jsonl",
                "purpose": purpose,
                "status": "processed",
                "content": content,
            }
            return {k: v for k, v in self.files[fid].items() if k != "content"}

    def _next_create(self) -> Fault | str | None:
        with self._lock:
            return self.create_faults.pop(0) if self.create_faults else None

    def _create(self, body: dict[str, Any]) -> dict[str, Any] | str:
        fid = body.get("input_file_id")
        with self._lock:
            f = self.files.get(fid) if isinstance(fid, str) else None
        if f is None:
            return f"no such file {fid!r}"
        if body.get("endpoint") != ENDPOINT or body.get("completion_window") != "24h":
            return "endpoint must be /v1/chat/completions and completion_window 24h"
        lines, problems, seen = [], [], set()
        for n, text in enumerate(f["content"].decode("utf-8").splitlines(), 1):
            try:
                rec = json.loads(text)
                cid = rec["custom_id"]
                ok = rec["method"] == "POST" and rec["url"] == ENDPOINT and "body" in rec
            except (ValueError, KeyError, TypeError):
                ok, cid = False, None
            if not ok or cid in seen:
                problems.append({"code": "invalid_line", "message": "bad or repeated", "line": n})
                continue
            seen.add(cid)
            lines.append(rec)
        with self._lock:
            b = _Batch(self._new_id("batch"), fid, lines, int(time.time()), body.get("metadata"))
            b.validation_errors = problems + list(self.batch_errors)
            self.batches[b.id] = b
            self.batches_created += 1
            self.line_counts.update(r["custom_id"] for r in lines)
            return self._view(b)

    def _view(self, b: _Batch) -> dict[str, Any]:
        errors = {"object": "list", "data": b.validation_errors} if b.validation_errors else None
        return {
            "id": b.id,
            "object": "batch",
            "endpoint": ENDPOINT,
            "errors": errors,
            "input_file_id": b.input_file_id,
            "completion_window": "24h",
            "status": b.status,
            "output_file_id": b.output_file_id,
            "error_file_id": b.error_file_id,
            "created_at": b.created_at,
            "request_counts": {
                "total": len(b.lines),
                "completed": b.answered - b.failed,
                "failed": b.failed,
            },
            "metadata": b.metadata,
        }

    def _answer(self, b: _Batch, upto: int) -> None:
        while b.answered < upto:
            rec = b.lines[b.answered]
            b.answered += 1
            cid, body = rec["custom_id"], rec["body"]
            fault = self.line_faults.get(cid)
            rid = f"batch_req_{b.id}_{b.answered}"
            if fault is not None and fault.kind == "raw":
                b.output.append(fault.message)
                continue
            if fault is None or fault.kind == "malformed":
                if fault is None:
                    reply = self._reply_for(body)
                    resp_body = json.loads(self._completion(reply, body))
                else:
                    resp_body = {"id": "x", "object": "chat.completion", "note": "no choices"}
                line = {"status_code": 200, "request_id": rid, "body": resp_body}
                b.output.append(json.dumps({"id": rid, "custom_id": cid, "response": line}))
                continue
            b.failed += 1
            if fault.kind == "error":
                err = {"code": fault.code, "message": fault.message}
                b.errors.append(
                    json.dumps({"id": rid, "custom_id": cid, "response": None, "error": err})
                )
            else:
                resp = {
                    "status_code": fault.code,
                    "request_id": rid,
                    "body": {"error": {"message": fault.message, "type": "invalid_request_error"}},
                }
                b.errors.append(
                    json.dumps({"id": rid, "custom_id": cid, "response": resp, "error": None})
                )

    def _finish(self, b: _Batch, status: str) -> None:
        if status == "expired" and self.expired_in_error_file:
            for rec in b.lines[b.answered :]:
                err = {"code": "batch_expired", "message": "not run before the window closed"}
                b.errors.append(
                    json.dumps(
                        {"id": "x", "custom_id": rec["custom_id"], "response": None, "error": err}
                    )
                )
        b.status = status
        if b.output:
            b.output_file_id = self._store_file(
                ("\n".join(b.output) + "\n").encode(), "batch_output"
            )["id"]
        if b.errors:
            b.error_file_id = self._store_file(
                ("\n".join(b.errors) + "\n").encode(), "batch_output"
            )["id"]

    def _poll(self, b: _Batch) -> dict[str, Any]:
        with self._lock:
            self.polls[b.id] += 1
            if b.status in ("completed", "expired", "cancelled", "failed"):
                return self._view(b)
            if b.validation_errors:
                b.status = "failed"
                return self._view(b)
            if b.status == "cancelling":
                self._finish(b, "cancelled")
                return self._view(b)
            b.polls += 1
            n = len(b.lines)
            upto = math.ceil(n * b.polls / self.polls_to_finish)
            if self.expire_after is not None:
                upto = min(upto, self.expire_after)
            self._answer(b, min(upto, n))
            if b.polls >= self.polls_to_finish:
                expired = self.expire_after is not None and b.answered < n
                self._finish(b, "expired" if expired else "completed")
            else:
                b.status = "validating" if b.polls == 1 else "in_progress"
            return self._view(b)

    def _cancel(self, b: _Batch) -> dict[str, Any]:
        with self._lock:
            if b.status in ("validating", "in_progress"):
                b.status = "cancelling"
            return self._view(b)

    def _list(self, query: dict[str, Any]) -> dict[str, Any]:
        limit = int((query.get("limit") or ["20"])[0])
        after = (query.get("after") or [None])[0]
        with self._lock:
            newest = sorted(self.batches.values(), key=lambda b: b.id, reverse=True)
            if after:
                ids = [b.id for b in newest]
                newest = newest[ids.index(after) + 1 :] if after in ids else []
            page = newest[:limit]
            return {
                "object": "list",
                "data": [self._view(b) for b in page],
                "first_id": page[0].id if page else None,
                "last_id": page[-1].id if page else None,
                "has_more": len(newest) > limit,
            }

    @property
    def uploaded_lines(self) -> list[dict[str, Any]]:
        """Every line of every batch input file, in upload order."""
        out = []
        for f in self.files.values():
            if f["purpose"] == "batch":
                out += [json.loads(x) for x in f["content"].decode().splitlines() if x.strip()]
        return out


__all__ = ["BatchServer", "LineFault", "Scripted"]


def main() -> int:
    """Serve on a free port: print its URL, then serve for --max-seconds (for trials)."""
    import argparse

    ap = argparse.ArgumentParser(description="Loopback OpenAI-compatible Files + Batches server.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--polls", type=int, default=3, help="status checks until a batch ends")
    ap.add_argument("--content", default="scripted reply")
    ap.add_argument("--max-seconds", type=float, default=600.0)
    args = ap.parse_args()
    srv = BatchServer(
        port=args.port, polls_to_finish=args.polls, responder=lambda body: args.content
    )
    srv.start()
    print(f"listening {srv.base_url}", flush=True)
    stop = threading.Event()
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait(args.max_seconds)
    srv.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
