"""A scriptable OpenAI-compatible chat server on loopback, with faults on demand.

Real HTTP on 127.0.0.1 (a random free port unless one is given), one thread per
connection, so concurrent requests are served side by side and a fixed reply
latency does not serialise them. Only the chat completions endpoint is served:
``POST /v1/chat/completions`` and ``POST /chat/completions``.

Use it as a context manager (or the ``openai_server`` pytest fixture in conftest.py)::

    with OpenAIServer(latency_ms=0) as srv:
        client = AsyncOpenAI(base_url=srv.base_url, api_key="sk-test")
        srv.responder = lambda body: "Seats cost $12 [doc:pricing]."
        srv.enqueue(Fault.rate_limit(retry_after=0.01), "second call's content")
        ...
        srv.requests[0].body["messages"]      # every request is recorded
        srv.requests[0].headers["authorization"]

What a request gets, in this order:

1. the next item of the per-call queue, if any (``enqueue(*items)``), where an item is
   a ``str`` (the reply's content), a ``Scripted(content, model=, usage=, latency_ms=, finish_reason=)``
   or a ``Fault``;
2. otherwise, with probability ``fault_rate`` (seeded by ``seed``), a fault drawn from
   ``fault_kinds``;
3. otherwise the ``responder(body)`` function's reply: it returns a ``str`` content or a
   ``Scripted``. The default responder answers ``"scripted reply"``.

Faults (``Fault.<kind>(...)``):

- ``rate_limit(retry_after=0.05)``: 429 with a ``Retry-After`` header (seconds);
- ``server_error()``: 500; ``unavailable(retry_after=None)``: 503;
- ``http(status, message=None, retry_after=None)``: any status, e.g. 401, with that message;
- ``slow(seconds=5.0)``: waits that long before a normal reply (slower than a client timeout);
- ``drop()``: closes the connection without any response;
- ``malformed()``: 200 with a body that is not JSON;
- ``no_choices()``: 200 with a JSON body that has no ``choices``.

``response_format`` and every other request field are accepted and ignored (the
scripted content is returned as is); they are recorded for assertions. The reply's
``model`` is ``report_model`` when set (a string, or a function of the request body),
else the requested model. ``usage`` counts whitespace-separated words. Counters:
``srv.served`` (normal replies) and ``srv.faults`` (faults injected, by kind);
``srv.chat_requests`` lists the chat requests only; ``srv.reset()`` forgets everything.

As a script, for benchmarks and manual trials::

    python tests/openai_server.py --port 0 --latency-ms 100 [--fault-rate 0.15 --seed 7]

prints ``listening http://127.0.0.1:PORT/v1`` on its first line and serves until
interrupted or ``--max-seconds`` (default 3600) pass.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import socket
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
FAULT_KINDS = ("rate_limit", "server_error", "unavailable", "slow", "drop", "malformed")


@dataclass
class Scripted:
    """A normal reply: its content, and optionally the reported model, usage and latency."""

    #: Usually text; None or a list of parts to mimic servers that send those.
    content: str | list[dict[str, Any]] | None
    model: str | None = None
    usage: dict[str, int] | None = None
    latency_ms: float | None = None
    finish_reason: str = "stop"


@dataclass
class Fault:
    """A failure to inject instead of a reply."""

    kind: str
    retry_after: float | None = None
    seconds: float = 5.0
    status: int = 500
    message: str | None = None

    @classmethod
    def rate_limit(cls, retry_after: float = 0.05) -> Fault:
        return cls("rate_limit", retry_after=retry_after, status=429)

    @classmethod
    def server_error(cls) -> Fault:
        return cls("server_error", status=500)

    @classmethod
    def unavailable(cls, retry_after: float | None = None) -> Fault:
        return cls("unavailable", retry_after=retry_after, status=503)

    @classmethod
    def http(
        cls, status: int, message: str | None = None, retry_after: float | None = None
    ) -> Fault:
        """Any HTTP error status with an OpenAI-shaped error body carrying `message`."""
        return cls("http", retry_after=retry_after, status=status, message=message)

    @classmethod
    def slow(cls, seconds: float = 5.0) -> Fault:
        return cls("slow", seconds=seconds, status=200)

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop", status=0)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed", status=200)

    @classmethod
    def no_choices(cls) -> Fault:
        return cls("no_choices", status=200)

    @classmethod
    def of(cls, kind: str, *, slow_s: float = 5.0) -> Fault:
        """A fault by name, as listed in FAULT_KINDS (plus `no_choices`)."""
        if kind == "slow":
            return cls.slow(slow_s)
        if kind == "rate_limit":
            return cls.rate_limit(0.05)
        return getattr(cls, kind)()


@dataclass
class Recorded:
    """One request as received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes
    at: float = field(default_factory=time.time)


def default_responder(body: dict[str, Any]) -> str:
    return "scripted reply"


def _words(text: str) -> int:
    return len(text.split())


def _prompt_words(body: Any) -> int:
    msgs = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(msgs, list):
        return 0
    return sum(_words(str(m.get("content", ""))) for m in msgs if isinstance(m, dict))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as separate writes; without this, Nagle plus delayed ACK
    # adds ~40 ms to every reply on a kept-alive connection.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return None  # quiet: tests read the recorded requests instead

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._send(404, b'{"error":{"message":"not found","type":"not_found"}}')

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        owner = self.server.owner
        rec = Recorded(
            "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw
        )
        path = self.path.split("?", 1)[0]
        if path not in CHAT_PATHS:
            owner._record(rec)
            # Quoting the path, as many servers do: a token in the base URL comes back.
            err = {"error": {"message": f"not found: POST {path}", "type": "not_found"}}
            self._send(404, json.dumps(err).encode())
            return
        action = owner._next_action(rec)
        # The client may give up first (its timeout): then there is nothing left to do.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._act(owner, action, body)

    def _act(self, owner: OpenAIServer, action: Scripted | Fault, body: Any) -> None:
        if isinstance(action, Fault):
            k = action.kind
            if k == "drop":
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            if k in ("rate_limit", "server_error", "unavailable", "http"):
                headers = {}
                if action.retry_after is not None:
                    headers["Retry-After"] = f"{action.retry_after:g}"
                msg = action.message or f"injected {k}"
                err = {"error": {"message": msg, "type": k, "code": action.status}}
                self._send(action.status, json.dumps(err).encode(), headers)
                return
            if k == "malformed":
                self._send(200, b"this is not JSON {")
                return
            if k == "no_choices":
                self._send(
                    200, json.dumps({"id": "chatcmpl-x", "object": "chat.completion"}).encode()
                )
                return
            if k == "slow":
                owner._stopping.wait(action.seconds)
                action = owner._reply_for(body)
        assert isinstance(action, Scripted)
        delay = owner.latency_ms if action.latency_ms is None else action.latency_ms
        if delay:
            time.sleep(delay / 1000)
        self._send(200, owner._completion(action, body))


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    allow_reuse_address = True
    owner: OpenAIServer


class OpenAIServer:
    """The server; see the module docstring for the scripting API."""

    #: The request handler; a subclass may serve more endpoints (tests/batch_server.py).
    handler_class: type[BaseHTTPRequestHandler] = _Handler

    def __init__(
        self,
        *,
        port: int = 0,
        latency_ms: float = 0.0,
        responder: Callable[[dict[str, Any]], str | Scripted] | None = None,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] = FAULT_KINDS,
        seed: int = 0,
        slow_s: float = 5.0,
        report_model: str | Callable[[dict[str, Any]], str] | None = None,
        record: bool = True,
    ) -> None:
        self.latency_ms = latency_ms
        self.responder = responder or default_responder
        self.fault_rate = fault_rate
        self.fault_kinds = fault_kinds
        self.slow_s = slow_s
        self.report_model = report_model
        self.record = record
        self.requests: list[Recorded] = []
        self.served = 0
        self.faults: Counter[str] = Counter()
        self._queue: deque[str | Scripted | Fault] = deque()
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._counter = 0
        self._httpd = _HTTPServer(("127.0.0.1", port), self.handler_class)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting --------------------------------------------------------------------------

    def enqueue(self, *items: str | Scripted | Fault) -> None:
        """Script the next calls, one item per call, in order."""
        with self._lock:
            self._queue.extend(items)

    def reset(self) -> None:
        """Forget recorded requests, counters and queued items."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.served = 0
            self.faults.clear()

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.split("?", 1)[0] in CHAT_PATHS]

    # -- internals --------------------------------------------------------------------------

    def _record(self, rec: Recorded) -> None:
        if self.record:
            with self._lock:
                self.requests.append(rec)

    def _next_action(self, rec: Recorded) -> Scripted | Fault:
        with self._lock:
            if self.record:
                self.requests.append(rec)
            item = self._queue.popleft() if self._queue else None
            if item is None and self.fault_rate and self._rng.random() < self.fault_rate:
                item = Fault.of(self._rng.choice(self.fault_kinds), slow_s=self.slow_s)
            if isinstance(item, Fault):
                self.faults[item.kind] += 1
                return item
        if item is None:
            return self._reply_for(rec.body)
        return Scripted(item) if isinstance(item, str) else item

    def _reply_for(self, body: Any) -> Scripted:
        out = self.responder(body if isinstance(body, dict) else {})
        return Scripted(out) if isinstance(out, str) else out

    def _completion(self, reply: Scripted, body: Any) -> bytes:
        body = body if isinstance(body, dict) else {}
        with self._lock:
            self.served += 1
            self._counter += 1
            n = self._counter
        model = reply.model
        if model is None:
            rm = self.report_model
            model = rm(body) if callable(rm) else rm
        if model is None:
            model = str(body.get("model", "unknown"))
        usage = reply.usage
        if usage is None:
            p, c = (
                _prompt_words(body),
                _words(reply.content if isinstance(reply.content, str) else ""),
            )
            usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        return json.dumps(
            {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": usage,
            }
        ).encode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Loopback OpenAI-compatible chat server.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slow-s", type=float, default=5.0, help="how long a `slow` fault waits")
    ap.add_argument("--content", default="scripted reply", help="the content of every reply")
    ap.add_argument("--max-seconds", type=float, default=3600.0)
    args = ap.parse_args(argv)
    srv = OpenAIServer(
        port=args.port,
        latency_ms=args.latency_ms,
        fault_rate=args.fault_rate,
        seed=args.seed,
        slow_s=args.slow_s,
        responder=lambda body: args.content,
        record=False,  # a long-running server must not grow without bound
    )
    srv.start()
    print(f"listening {srv.base_url}", flush=True)
    try:
        srv._stopping.wait(args.max_seconds)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
        if srv.fault_rate:
            print(f"faults injected: {dict(srv.faults)}; served: {srv.served}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
