"""Your own application as the system under test: `--target module:function`.

The callable gets the case as a dict with `id`, `question` and `context` (never the
expected answer) and returns `{"answer", "retrieved", "cited", "abstained"}`; it may be
sync (run in a worker thread, so concurrency still applies) or async. `retrieved` and
`cited` are lists of refs (or of passages with a `ref`); `usage` may be added.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from evals.case import Case
from evals.errors import InputError
from evals.reply import ProviderError, Reply


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
    return Reply(
        answer=answer,
        retrieved=_refs(result.get("retrieved"), "retrieved"),
        cited=_refs(result.get("cited"), "cited"),
        abstained=abstained,
        usage=usage,
        latency_ms=latency_ms,
    )


class TargetProvider:
    """Calls the application once per case; its own retrieval is what gets measured."""

    def __init__(self, fn: Callable[..., Any], identity: dict[str, Any]) -> None:
        self.fn = fn
        self.identity = identity
        self.model = target_model_id(identity)
        self.is_async = inspect.iscoroutinefunction(fn)
        # asyncio's default pool has min(32, CPUs + 4) threads, which would cap a sync
        # target's concurrency below --concurrency; this one grows threads on demand and
        # the runner's workers bound how many calls are in flight.
        self._pool: ThreadPoolExecutor | None = None

    def stamp(self) -> dict[str, Any]:
        return {"kind": "target", "target": self.identity}

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        payload = {"id": case.id, "question": case.question, "context": dict(case.context)}
        start = time.perf_counter()
        try:
            if self.is_async:
                result = await self.fn(payload)
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=256, thread_name_prefix="target")
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(self._pool, functools.partial(self.fn, payload))
                if inspect.isawaitable(result):
                    result = await result
        except (Exception, SystemExit) as exc:
            # The application raising (even sys.exit from deep inside it) is this case's
            # error; the run goes on. Ctrl-C still stops the run.
            raise ProviderError(f"target raised {type(exc).__name__}: {exc}"[:500]) from None
        return reply_from(result, (time.perf_counter() - start) * 1000)

    async def aclose(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
