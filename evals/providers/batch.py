"""An OpenAI-compatible Batch API: one JSONL file of chat requests in, output and error files out.

The calls are the SDK's (its timeout, retries and backoff), made through the provider's own
client; this module only shapes what goes in and reads what comes back. Creating a batch is
the one call that must never happen twice for the same input (each batch is paid for), so it
is made without the SDK's retries: after a failure the batch is looked up by its input file
before it is asked for again.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evals.providers.openai_compat import OpenAICompatProvider
from evals.reply import ProviderError
from evals.suite.jsonl import jsonl_lines, parse_record

#: What every string the endpoint chose goes through before it is stored or printed.
Clean = Callable[[str], str]

#: The endpoint every request line is addressed to, and the window the batch is given.
ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
#: Statuses after which a batch changes no more.
FINAL = frozenset({"completed", "expired", "cancelled", "failed"})
#: How many pages of the batch list are searched for a batch created by a lost response.
_FIND_PAGES = 10


def custom_id(case_id: str, epoch: int) -> str:
    """The id of one request in the batch: case ids never hold `#`."""
    return f"{case_id}#{epoch}"


def split_custom_id(cid: str) -> tuple[str, int] | None:
    """(case id, epoch) of a custom_id this harness wrote, else None."""
    case_id, sep, epoch = cid.rpartition("#")
    if not sep or not case_id or not epoch.isdigit():
        return None
    return case_id, int(epoch)


def batch_input(items: list[tuple[str, dict[str, Any]]]) -> bytes:
    """The batch input file: one line per (custom_id, request) with the request's exact body."""
    lines = (
        json.dumps(
            {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": request["body"]},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for cid, request in items
    )
    return ("\n".join(lines) + "\n").encode("utf-8")


@dataclass(frozen=True)
class BatchState:
    """What the endpoint says about a batch."""

    id: str
    status: str
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int | None = None
    completed: int | None = None
    failed: int | None = None
    #: Batch-level errors (a batch that failed validation), one line each.
    errors: list[str] = field(default_factory=list)

    @property
    def final(self) -> bool:
        return self.status in FINAL


def state_of(batch: Any, clean: Clean = str) -> BatchState:
    """A BatchState from the SDK's Batch object; every string the endpoint chose passes
    through `clean` (the provider's mask), as a live reply's would."""
    counts = getattr(batch, "request_counts", None)
    errs = getattr(getattr(batch, "errors", None), "data", None) or []
    lines = []
    for e in errs:
        where = f" (line {e.line})" if getattr(e, "line", None) is not None else ""
        said = f"{getattr(e, 'code', None) or 'error'}: {getattr(e, 'message', '')}{where}"
        lines.append(clean(said))

    def text(value: Any) -> str | None:
        return None if value is None else clean(str(value))

    return BatchState(
        id=clean(str(batch.id)),
        status=clean(str(batch.status)),
        input_file_id=text(getattr(batch, "input_file_id", None)),
        output_file_id=text(getattr(batch, "output_file_id", None)),
        error_file_id=text(getattr(batch, "error_file_id", None)),
        total=_count(getattr(counts, "total", None)),
        completed=_count(getattr(counts, "completed", None)),
        failed=_count(getattr(counts, "failed", None)),
        errors=lines,
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def missing_reason(state: BatchState) -> str:
    """Why a request the batch holds has no result in its files."""
    if state.status == "expired":
        return f"batch {state.id} expired before this request was answered"
    if state.status == "cancelled":
        return f"batch {state.id} was cancelled before this request was answered"
    if state.status == "failed":
        return f"batch {state.id} failed: {'; '.join(state.errors) or 'no reason given'}"[:500]
    return f"batch {state.id} ended ({state.status}) without a result for this request"


def progress_line(state: BatchState, elapsed_s: float) -> str:
    """`batch batch_1: in_progress, 120/200 answered, 3 failed (42s)`."""

    def n(v: int | None) -> str:
        return "?" if v is None else str(v)

    return (
        f"batch {state.id}: {state.status}, {n(state.completed)}/{n(state.total)} answered, "
        f"{n(state.failed)} failed ({elapsed_s:.0f}s)"
    )


@dataclass(frozen=True)
class ResultLine:
    """One request's outcome in an output or error file: a response body, or why there is none."""

    custom_id: str
    body: bytes | None
    error: str | None


def _said(body: Any) -> str | None:
    """The message of an error body: `{"error": {"message": ...}}` or `{"message": ...}`."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    msg = inner.get("message") if isinstance(inner, dict) else body.get("message")
    return msg if isinstance(msg, str) and msg.strip() else None


def result_of(rec: dict[str, Any], clean: Clean = str) -> ResultLine | None:
    """The outcome in one parsed line, or None when it names no request; what the endpoint
    said of a failure passes through `clean`."""
    cid = rec.get("custom_id")
    if not isinstance(cid, str):
        return None
    err = rec.get("error")
    if err:
        if isinstance(err, dict):
            code, msg = err.get("code"), err.get("message")
            text = ": ".join(str(x) for x in (code, msg) if x) or json.dumps(err)[:200]
        else:
            text = str(err)
        return ResultLine(cid, None, clean(f"the batch reported an error: {text}"))
    resp = rec.get("response")
    if not isinstance(resp, dict):
        return ResultLine(cid, None, "malformed batch line: no response and no error")
    status = resp.get("status_code")
    body = resp.get("body")
    if status != 200:
        said = _said(body)
        tail = f": {said}" if said else ""
        return ResultLine(cid, None, clean(f"HTTP {status} in the batch{tail}"))
    raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return ResultLine(cid, raw.encode("utf-8"), None)


# The custom_id of a line too broken to parse, so its case can be told why it has no answer.
_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


def parse_results(
    raw: bytes, where: str, clean: Clean = str
) -> tuple[dict[str, ResultLine], list[str]]:
    """Every request's outcome in an output or error file (the first line per id wins), and
    a warning per line that could not be read or that contradicts an earlier one.

    Only `\n` ends a line (an answer may hold U+2028 raw). A line that is no JSON, or nested
    deeper than a run file may be, is skipped; when its custom_id can still be read, that
    request's outcome is an error saying so, and every other line is kept.
    """
    out: dict[str, ResultLine] = {}
    warnings: list[str] = []
    for n, line in enumerate(jsonl_lines(raw.decode("utf-8", "replace")), 1):
        if not line.strip():
            continue
        try:
            rec = parse_record(line)
        except ValueError as exc:
            found = _CUSTOM_ID.search(line[:10_000])
            cid = found.group(1) if found else None
            warnings.append(clean(f"{where}: line {n}: {exc}; skipped"))
            if cid is not None and cid not in out:
                why = f"the batch's line for this request could not be read ({exc}; {where})"
                out[cid] = ResultLine(cid, None, clean(why))
            continue
        res = result_of(rec, clean) if isinstance(rec, dict) else None
        if res is None:
            warnings.append(clean(f"{where}: line {n}: names no custom_id; skipped"))
        elif res.custom_id not in out:
            out[res.custom_id] = res
        elif out[res.custom_id] != res:
            warnings.append(
                clean(
                    f"{where}: line {n}: a second, different result for {res.custom_id}; "
                    "the first is kept"
                )
            )
    return out, warnings


class CannotList(ProviderError):
    """The endpoint has no batch list (`GET /v1/batches`), so a batch cannot be looked up."""


class NotCreated(ProviderError):
    """The endpoint answered the create call with a refusal: no batch was made."""


#: Statuses that say the batch list is not there at all, rather than failing this once.
_NO_LIST = (404, 405, 501)


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        return code in (408, 409, 429) or code >= 500
    return isinstance(exc, openai.APIConnectionError)


class BatchEndpoint:
    """The Files and Batches calls of one OpenAI-compatible endpoint (the provider's client)."""

    def __init__(self, provider: OpenAICompatProvider, *, create_retry_s: float = 1.0) -> None:
        self.provider = provider
        self.create_retry_s = create_retry_s

    def _fail(self, what: str, exc: BaseException) -> ProviderError:
        return ProviderError(f"{what}: {self.provider.error_for(exc)}")

    async def upload(self, data: bytes, filename: str) -> str:
        """Upload the input file (purpose `batch`); its file id."""
        client = self.provider.sdk_client()
        try:
            f = await client.files.create(
                file=(filename, data, "application/jsonl"), purpose="batch"
            )
        except Exception as exc:  # every SDK failure, after its retries
            raise self._fail("uploading the batch input failed", exc) from None
        return self.provider.clean(str(f.id))

    async def find(self, input_file_id: str) -> BatchState | None:
        """The newest batch made from this input file, if the endpoint lists one."""
        client = self.provider.sdk_client()
        try:
            page = await client.batches.list(limit=100)
            for _ in range(_FIND_PAGES):
                for b in page.data:
                    if getattr(b, "input_file_id", None) == input_file_id:
                        return state_of(b, self.provider.clean)
                if not page.has_next_page():
                    return None
                page = await page.get_next_page()
        except Exception as exc:  # every SDK failure, after its retries
            import openai

            if isinstance(exc, openai.APIStatusError) and exc.status_code in _NO_LIST:
                raise CannotList(
                    f"the endpoint cannot list batches (GET /v1/batches: HTTP {exc.status_code})"
                ) from None
            raise self._fail("listing batches failed", exc) from None
        return None

    async def create(self, input_file_id: str, metadata: dict[str, str]) -> BatchState:
        """Create the batch for this input file, at most once.

        The SDK would retry a dropped response and so create (and bill) a second batch;
        here each failure is followed by a look for the batch it may have created.
        """
        client = self.provider.sdk_client().with_options(max_retries=0)
        tries = self.provider.max_retries
        for attempt in range(tries + 1):
            try:
                b = await client.batches.create(
                    input_file_id=input_file_id,
                    endpoint=ENDPOINT,
                    completion_window=COMPLETION_WINDOW,
                    metadata=metadata,
                )
                return state_of(b, self.provider.clean)
            except Exception as exc:  # noqa: BLE001 - every failure is looked into below
                if not _retryable(exc):
                    failed = self._fail("creating the batch failed", exc)
                    raise NotCreated(str(failed), failed.kind) from None
                try:
                    found = await self.find(input_file_id)
                except CannotList as no_list:
                    raise self._fail(
                        f"creating the batch failed, and {no_list} to see whether it was made "
                        "anyway",
                        exc,
                    ) from None
                if found is not None:
                    return found
                if attempt == tries:
                    raise self._fail(
                        f"creating the batch failed after {tries} retries", exc
                    ) from None
                await asyncio.sleep(min(self.create_retry_s * 2**attempt, 30.0))
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def retrieve(self, batch_id: str) -> BatchState:
        """The batch's current state."""
        try:
            b = await self.provider.sdk_client().batches.retrieve(batch_id)
        except Exception as exc:  # every SDK failure, after its retries
            raise self._fail(f"checking batch {batch_id} failed", exc) from None
        return state_of(b, self.provider.clean)

    async def read_file(self, file_id: str) -> bytes:
        """A file's content (a batch's output or error file)."""
        try:
            resp = await self.provider.sdk_client().files.content(file_id)
        except Exception as exc:  # every SDK failure, after its retries
            raise self._fail(f"reading file {file_id} failed", exc) from None
        return bytes(resp.content)
