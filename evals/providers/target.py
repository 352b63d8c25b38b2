"""Your own application as the system under test: `--target module:function`.

The callable gets the case as a dict with `id`, `question`, `context` and `messages` (every
turn of the conversation, `{"role", "content"}`, ending with the question; never the
expected answer) and returns `{"answer", "retrieved", "cited", "abstained"}`; it may be
sync (run in a worker thread, so concurrency still applies) or async. `retrieved` and
`cited` are lists of refs (or of passages with a `ref`); `usage` may be added.

Each call has the per-request timeout, and a call past it is an `error` row whatever the
target does. A sync target cannot be stopped, so each call runs in a daemon thread that is
abandoned (and cannot hold up the process's exit). An async target runs on an event loop of
its own, in a daemon thread: at the timeout it is cancelled and no longer awaited, so one
that swallows the cancellation and answers late is not scored, and one that blocks its loop
cannot stall the run's timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import math
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.errors import InputError, pointer
from evals.providers.masking import describe, printable
from evals.reply import ProviderError, Reply
from evals.suite.case import Case


def _version(module: Any, fn: Any) -> str | None:
    for owner in (fn, module):
        v = getattr(owner, "version", None) if owner is fn else getattr(owner, "__version__", None)
        if v is not None:
            return str(v)
    return None


def load_target(spec: str, root: Path | None = None) -> tuple[Callable[..., Any], dict[str, Any]]:
    """Import `module:function` (the project root and cwd are importable) and its identity."""
    module_name, sep, fn_name = spec.partition(":")
    if not sep or not module_name or not fn_name:
        raise InputError(f"--target {spec!r}: expected module:function, e.g. myapp.rag:answer")
    for p in (str(Path.cwd()), str(root) if root else None):
        if p and p not in sys.path:
            sys.path.insert(0, p)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module failing to import is bad input, not a crash
        raise InputError(f"--target {spec!r}: cannot import {module_name}: {exc}") from None
    fn: Any = module
    for part in fn_name.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise InputError(f"--target {spec!r}: {module_name} has no attribute {fn_name!r}")
    if not callable(fn):
        raise InputError(f"--target {spec!r}: {fn_name} is not callable")
    identity = {
        "spec": spec,
        "module": module_name,
        "function": fn_name,
        "version": _version(module, fn),
    }
    return fn, identity


def target_model_id(identity: dict[str, Any]) -> str:
    """The id stamped on rows: `target/module:function@version`."""
    return (
        f"target/{identity['module']}:{identity['function']}@{identity['version'] or 'unversioned'}"
    )


def _refs(value: Any, field: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise ProviderError(f"target returned {field} as {type(value).__name__}, not a list")
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("ref"), str):
            out.append(item["ref"])
        else:
            raise ProviderError(
                f"target returned an item of {field} that is not a ref: {item!r}"[:300]
            )
    return out


_TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
_MAX_DEPTH = 16


def _usage_problem(value: Any, path: tuple[Any, ...] = ()) -> str | None:
    """What makes a target's usage unfit for a run file (JSON only, finite numbers,
    whole token counts), or None."""
    where = pointer(path)
    if len(path) > _MAX_DEPTH:
        return f"is nested too deeply at {where}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"with a number that is not finite (NaN or infinity) at {where}"
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"with a key that is not a string at {where}"
            found = _usage_problem(v, (*path, k))
            if found:
                return found
            if k in _TOKEN_KEYS and not path and v is not None:
                whole = isinstance(v, int) and not isinstance(v, bool) and v >= 0
                if not whole:
                    return f"whose {pointer((k,))} is not a whole number >= 0"
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _usage_problem(v, (*path, i))
            if found:
                return found
        return None
    if value is None or isinstance(value, str | int | float):
        return None
    return f"with a {type(value).__name__} (not JSON) at {where}"


def _name(exc: BaseException) -> str:
    return printable(type(exc).__name__, one_line=True)[:80] or "exception"


def reply_from(result: Any, latency_ms: float) -> Reply:
    """Validate a target's return value; the wrong shape is this case's error, with the reason."""
    if not isinstance(result, dict):
        raise ProviderError(f"target returned {type(result).__name__}, not a dict with 'answer'")
    answer = result.get("answer")
    if not isinstance(answer, str):
        raise ProviderError(
            f"target returned no 'answer' string (got {type(answer).__name__}; keys: {sorted(result)})"
        )
    abstained = result.get("abstained")
    if abstained is not None and not isinstance(abstained, bool):
        raise ProviderError(f"target returned abstained={abstained!r}, not true/false/null")
    usage = result.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise ProviderError("target returned usage that is not an object")
    problem = _usage_problem(usage) if usage is not None else None
    if problem:
        raise ProviderError(f"target returned usage {problem}", "target returned bad usage")
    return Reply(
        answer=answer,
        retrieved=_refs(result.get("retrieved"), "retrieved"),
        cited=_refs(result.get("cited"), "cited"),
        abstained=abstained,
        usage=usage,
        latency_ms=latency_ms,
    )


def _raised(exc: BaseException) -> ProviderError:
    """What the application raised, as this case's error (never re-raised as it is)."""
    kind = _name(exc) if type(exc).__module__ == "builtins" else "exception"
    what = describe(exc).removesuffix(": ")  # `raise StopIteration` has no message
    return ProviderError(f"target raised {what}"[:500], f"target raised {kind}")


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():  # timed out (cancelled) already: the late result has nowhere to go
        return
    if exc is None:
        fut.set_result(result)
    else:
        fut.set_exception(exc)


def call_in_daemon_thread(fn: Callable[..., Any], arg: Any) -> asyncio.Future[Any]:
    """`fn(arg)` in a new daemon thread, its outcome delivered to a future on this loop.

    Not an executor: executor threads are joined when the interpreter exits, so one hung
    call would keep the finished run's process alive forever.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = fn(arg)
        except BaseException as exc:
            # Described here, in the thread: some exceptions cannot travel as they are
            # (a future refuses StopIteration; GeneratorExit thrown into the awaiting
            # coroutine would end it instead of being reported).
            error = _raised(exc)
        # RuntimeError: the run ended (its loop closed) while this call still ran.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, fut, result, error)

    threading.Thread(target=work, name="target", daemon=True).start()
    return fut


class _TargetLoop:
    """An event loop in a daemon thread that runs an async target's calls.

    The run's own loop only waits for the outcome: at the timeout it stops waiting (and
    cancels the call), so nothing the target does afterwards can reach a row.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.running = 0  # calls on this loop, counted on the loop's own thread
        self.closing = False
        threading.Thread(target=self._serve, name="target-loop", daemon=True).start()

    def _serve(self) -> None:
        self.loop.run_forever()
        self.loop.close()  # stopped by close() once no call is left on it

    def submit(self, fn: Callable[..., Any], arg: Any) -> asyncio.Future[Any]:
        """Run `fn(arg)` on the target's loop; a future for it on the caller's loop."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._call(fn, arg), self.loop))

    async def _call(self, fn: Callable[..., Any], arg: Any) -> Any:
        self.running += 1
        try:
            return await _guarded(fn(arg))
        finally:
            self.running -= 1
            self._stop_if_done()

    def _stop_if_done(self) -> None:
        # A call that outlived its timeout keeps the loop until it ends: stopping the loop
        # under it would leave its coroutine to be closed by the garbage collector.
        if self.closing and not self.running:
            self.loop.stop()

    def close(self) -> None:
        """Stop the loop once no call is left on it (its thread is a daemon either way)."""

        def close_soon() -> None:
            self.closing = True
            self._stop_if_done()

        self.loop.call_soon_threadsafe(close_soon)


async def _guarded(awaitable: Any) -> Any:
    try:
        return await awaitable
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        # KeyboardInterrupt or SystemExit would otherwise stop the target's loop itself.
        raise _raised(exc) from None


class TargetProvider:
    """Calls the application once per case; its own retrieval is what gets measured."""

    def __init__(
        self, fn: Callable[..., Any], identity: dict[str, Any], timeout_s: float = 60.0
    ) -> None:
        self.fn = fn
        self.identity = identity
        self.model = target_model_id(identity)
        self.is_async = inspect.iscoroutinefunction(fn)
        self.timeout_s = timeout_s
        self._loop: _TargetLoop | None = None

    def stamp(self) -> dict[str, Any]:
        return {"kind": "target", "target": self.identity, "timeout_s": self.timeout_s}

    async def _call(self, payload: dict[str, Any]) -> Any:
        if self.is_async:
            return await self._on_target_loop(self.fn, payload)
        # A thread per call rather than a pool: a sync target's calls in flight are bounded
        # by the runner's workers (--concurrency), not by a pool's size.
        result = await call_in_daemon_thread(self.fn, payload)
        if inspect.isawaitable(result):  # a sync function that hands back a coroutine
            result = await self._on_target_loop(lambda _: result, None)
        return result

    async def _on_target_loop(self, fn: Callable[..., Any], arg: Any) -> Any:
        if self._loop is None:
            self._loop = _TargetLoop()
        return await self._loop.submit(fn, arg)

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        payload = {
            "id": case.id,
            "question": case.question,
            "context": dict(case.context),
            # A chat application takes the whole conversation; a single ticket is one turn.
            "messages": [dict(m) for m in case.turns],
        }
        start = time.perf_counter()
        # asyncio.timeout, unlike wait_for before 3.12, awaits in this task: a SystemExit
        # from the target is caught below instead of escaping another task to the loop.
        deadline = asyncio.timeout(self.timeout_s)
        try:
            async with deadline:
                result = await self._call(payload)
        except BaseException as exc:
            task = asyncio.current_task()
            if isinstance(exc, asyncio.CancelledError) and task and task.cancelling():
                raise  # the run is being stopped (Ctrl-C): not the target's doing
            if isinstance(exc, TimeoutError) and deadline.expired():
                raise ProviderError(
                    f"target timed out after {self.timeout_s:g} s", "target timed out"
                ) from None
            if isinstance(exc, ProviderError):
                raise
            # Whatever the application raises (sys.exit or KeyboardInterrupt from deep
            # inside it, a BaseException of its own, a timeout of its own) is this case's
            # error; the run goes on. A real Ctrl-C reaches the run as a cancellation.
            raise _raised(exc) from None
        return reply_from(result, max(0.0, (time.perf_counter() - start) * 1000))

    async def aclose(self) -> None:
        """Stop the async target's loop; a call still running in its thread is abandoned."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None
