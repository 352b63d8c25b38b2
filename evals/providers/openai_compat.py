"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp, Ollama, a gateway).

Retries with backoff and `Retry-After` are the SDK's own; a failure that outlives them
is a ProviderError whose reason never contains the API key. Every string the endpoint
sends back (answer, model id, finish reason, error message) is masked where it enters a
`Reply` or a `ProviderError` (see `masking.py`), so no later use can leak the key.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

from evals.providers.base import EndpointRefused
from evals.providers.completion import (
    MALFORMED,
    MalformedBody,
    parse_completion,
    plain_model_id,
    same_model,
)
from evals.providers.masking import endpoint_mask, redact_url
from evals.providers.modelid import date_is_label, endpoint_name
from evals.reply import ProviderError, Reply
from evals.suite.case import Case

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")
#: Statuses no retry can change: the key, its permissions or the model name is wrong.
REFUSED_STATUSES = (401, 403, 404)


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def user_message(case: Case) -> str:
    """The final user turn: the question, the customer's context, then each passage with its
    ref (in a conversation the passages are retrieved for this turn, so they travel with it)."""
    parts = [f"Question:\n{case.question}"]
    if case.context:
        lines = [f"- {k}: {_value(v)}" for k, v in case.context.items()]
        parts.append("Context:\n" + "\n".join(lines))
    if case.retrieved:
        docs = [f"[doc:{p['ref']}]\n{p['text']}" for p in case.retrieved]
        parts.append("Retrieved passages:\n\n" + "\n\n".join(docs))
    return "\n\n".join(parts)


def build_messages(prompt: str, case: Case) -> list[dict[str, str]]:
    """The system prompt, the conversation's earlier turns as they were, then the final user
    turn with the context and passages."""
    earlier = [{"role": m["role"], "content": m["content"]} for m in case.messages]
    return [
        {"role": "system", "content": prompt},
        *earlier,
        {"role": "user", "content": user_message(case)},
    ]


def _retry_after(exc: BaseException) -> float | None:
    """The Retry-After of a failed response in seconds (a number; dates are left to the SDK)."""
    response = getattr(exc, "response", None)
    value = getattr(response, "headers", {}).get("retry-after") if response is not None else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds < 3600 else None


class OpenAICompatProvider:
    """One shared AsyncOpenAI client, created on the first request (a cached run needs none)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        warn: Callable[[str], None] | None = None,
        withhold: bool = False,
    ) -> None:
        self.model = model
        # A sealed run prints nothing the endpoint said: it could quote a sealed case.
        self.withhold = withhold
        self.base_url = (base_url or OPENAI_DEFAULT_URL).rstrip("/")
        self._api_key = api_key or "not-set"
        # The key, and any credential in the URL (a token in its path, user info), is masked
        # in everything the endpoint sends back: an error may quote the URL it was sent to.
        self._mask = endpoint_mask(api_key, self.base_url)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self._warn = warn or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self._warned: set[str] = set()
        self._warned_length = False
        self._client: Any = None
        # (base URL, its masked form): masking parses the URL, once per run rather than per case.
        self._shown: tuple[str, str] | None = None

    @property
    def model_date_is_label(self) -> bool:
        """The pinned id's date is not what the endpoint is asked for (see modelid)."""
        return date_is_label(self.model)

    def generation(self) -> dict[str, Any]:
        """Every generation setting sent with a request."""
        gen: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            gen["max_tokens"] = self.max_tokens
        return gen

    def stamp(self) -> dict[str, Any]:
        masked = self.url()
        return {
            "kind": "openai",
            "base_url": masked,
            **({"base_url_id": endpoint_id(self.base_url)} if masked != self.base_url else {}),
            "endpoint_model": endpoint_name(self.model),
            "model_date_is_label": self.model_date_is_label,
            "generation": self.generation(),
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
        }

    def request_for(self, case: Case, prompt: str) -> dict[str, Any]:
        """Everything that shapes the answer (the cache key's material); no secret in it.

        Two URLs that differ only in a masked part (a token in the path) are two endpoints:
        the real URL's hash tells them apart in the cache key without storing the URL.
        """
        url = self.url()
        where = {"endpoint": url}
        if url != self.base_url:
            where["endpoint_sha256"] = hashlib.sha256(self.base_url.encode("utf-8")).hexdigest()
        return {
            **where,
            "model": self.model,
            "body": {
                "model": endpoint_name(self.model),
                "messages": build_messages(prompt, case),
                **self.generation(),
            },
        }

    def url(self) -> str:
        """The endpoint's URL as it may be stored or printed (credential-looking parts masked)."""
        if self._shown is None or self._shown[0] != self.base_url:
            self._shown = (self.base_url, redact_url(self.base_url, self._mask.secret))
        return self._shown[1]

    def _get_client(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI  # imported late: a fully cached run never needs it

            self._client = AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self.timeout_s,
                max_retries=self.max_retries,
            )
        return self._client

    def _reason(self, exc: BaseException) -> tuple[str, str]:
        """(kind, reason) of an SDK failure: the kind in the harness's words only."""
        import openai

        tries = f"after {self.max_retries} retries"
        if isinstance(exc, openai.APITimeoutError):
            kind, why = "timeout", f"timed out ({self.timeout_s:g}s per request) {tries}"
        elif isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            kind, why = "connection failed", f"connection failed {tries}: {cause or exc}"
        elif isinstance(exc, openai.APIStatusError):
            # The SDK retries 408, 409, 429 and 5xx only; a 401 or 404 was asked once.
            code = exc.status_code
            retried = code in (408, 409, 429) or code >= 500
            # The SDK prefixes the server's message with "Error code: 404 - ": said already.
            msg = _SDK_PREFIX.sub("", exc.message)
            kind = f"HTTP {code}"
            why = f"HTTP {code} {tries}: {msg}" if retried else f"HTTP {code}: {msg}"
        elif isinstance(exc, openai.APIResponseValidationError | ValueError):
            kind, why = MALFORMED, f"malformed reply (not the chat completion format): {exc}"
        else:
            kind, why = type(exc).__name__, f"{type(exc).__name__}: {exc}"
        return kind, self._mask.message(why)

    def _refusal(self, exc: BaseException) -> tuple[str, str] | None:
        """(signature, what to check) when every request here would fail alike, else None.

        Only failures no retry can change count: the refusing statuses, and a connection
        that nothing accepts (refused, or a host name that does not resolve). Rate limits,
        5xx, timeouts and dropped connections are transient and never count.
        """
        import openai

        url = self.url()
        if isinstance(exc, openai.APIStatusError) and exc.status_code in REFUSED_STATUSES:
            code = exc.status_code
            if code == 404:
                hint = f"check the model name ({endpoint_name(self.model)!r}) and OPENAI_BASE_URL"
            else:
                hint = "check OPENAI_API_KEY (and that the key may use this model)"
            return f"HTTP {code}", f"{hint}; the endpoint is {url}"
        if isinstance(exc, openai.APIConnectionError) and not isinstance(
            exc, openai.APITimeoutError
        ):
            cause: BaseException | None = exc
            seen = 0
            while cause is not None and seen < 10:  # the chain is short; bound it anyway
                if isinstance(cause, ConnectionRefusedError):
                    return "connection refused", f"check OPENAI_BASE_URL (now {url})"
                if isinstance(cause, socket.gaierror) and cause.errno != socket.EAI_AGAIN:
                    return "unknown host", f"check OPENAI_BASE_URL (now {url})"
                cause, seen = cause.__cause__ or cause.__context__, seen + 1
        return None

    def _failure(self, exc: BaseException) -> ProviderError:
        """The case's error for an SDK failure that outlived its retries."""
        kind, reason = self._reason(exc)
        refused = self._refusal(exc)
        if refused is None:
            return ProviderError(reason, kind, _retry_after(exc))
        signature, hint = refused
        if not signature.startswith("HTTP"):
            # "All connection attempts failed" hides why; say it and where.
            reason = (
                f"connection failed after {self.max_retries} retries: {signature} ({self.url()})"
            )
        return EndpointRefused(reason, signature, hint)

    def _masked(self, exc: ProviderError) -> ProviderError:
        """The same error with its message masked: however it was built, whatever it quotes
        of the endpoint's reply (a finish reason, a body snippet) cannot carry the key."""
        exc.args = (self._mask.message(str(exc)),)
        if isinstance(exc, EndpointRefused):
            exc.hint = self._mask.message(exc.hint)
        return exc

    async def send(self, request: dict[str, Any]) -> Reply:
        """POST the chat completion through the SDK (its retries, backoff and timeout).

        The SDK's generic `post` with raw bytes skips its per-request parameter
        transformation and model construction, about a third of its CPU time per request;
        the reply is parsed and checked here instead. The SDK retries only failed HTTP
        exchanges, so a 200 whose body is not a chat completion (a proxy's error page, a
        truncated body) is asked again here, within the same retry budget.
        """
        try:
            return await self._send(request)
        except ProviderError as exc:
            raise self._masked(exc) from None

    async def _send(self, request: dict[str, Any]) -> Reply:
        client = self._get_client()
        for attempt in range(self.max_retries + 1):
            if attempt:
                # The retries left are shared with the SDK, so a flaky body cannot multiply them.
                client = self._get_client().with_options(max_retries=self.max_retries - attempt)
            start = time.perf_counter()
            try:
                raw = await client.post("/chat/completions", body=request["body"], cast_to=bytes)
            except Exception as exc:  # every SDK failure, after its retries, is this case's error
                raise self._failure(exc) from None
            latency = max(0.0, (time.perf_counter() - start) * 1000)
            try:
                return self.reply_from_body(raw, latency)
            except MalformedBody as exc:
                if attempt == self.max_retries:
                    tries = f" (after {attempt} retries)" if attempt else ""
                    raise ProviderError(f"{exc}{tries}", MALFORMED) from None
                await asyncio.sleep(min(0.25 * 2**attempt, 8.0))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def reply_from_body(self, raw: bytes, latency_ms: float | None) -> Reply:
        """The Reply in a chat completion body (a live response, or one line of a batch's
        output); ProviderError (MalformedBody when asking again may help) when it is none,
        its message masked (it may quote a finish reason or a piece of the body)."""
        try:
            content, usage, resolved, finish = parse_completion(raw)
        except ProviderError as exc:
            raise self._masked(exc) from None
        resolved = self._mask.message(resolved, 200) if resolved else None
        if self.withhold:
            if resolved and not self._warned and not plain_model_id(self.model, resolved):
                self._warned.add("")
                self._warn(
                    "warning: the endpoint reports a model other than the pinned "
                    f"{self.model!r} (its name withheld: sealed run)"
                )
        elif resolved and resolved not in self._warned and not same_model(self.model, resolved):
            self._warned.add(resolved)
            self._warn(
                f"warning: the endpoint reports model {resolved!r}, not the pinned {self.model!r}"
            )
        if finish == "length" and not self._warned_length:
            self._warned_length = True
            self._warn(
                "warning: the endpoint cut an answer at its token limit (finish_reason "
                '"length"); such answers are scored as they are: raise max_tokens if unintended'
            )
        # A server that echoes the request's headers must not put the key in a run file.
        return Reply(
            answer=self._mask.text(content),
            usage=usage,
            latency_ms=latency_ms,
            resolved_model=resolved,
        )

    def sdk_client(self) -> Any:
        """The shared AsyncOpenAI client (its timeout and retries), for the Files and Batches
        endpoints."""
        return self._get_client()

    def clean(self, text: str, limit: int = 500) -> str:
        """Text the endpoint sent outside a reply (a batch's errors, an error file's line)
        masked as every reply is: safe for a row, a run file or the terminal."""
        return self._mask.message(text, limit)

    def error_for(self, exc: BaseException) -> ProviderError:
        """What an SDK failure that outlived its retries means, in one line without the key."""
        return self._failure(exc)

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        return await self.send(self.request_for(case, prompt))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def from_settings(
    model: str,
    cfg: Any,
    env: dict[str, str] | None = None,
    warn: Callable[[str], None] | None = None,
    withhold: bool = False,
) -> OpenAICompatProvider:
    """The provider configured from the environment first, then `[tool.evals]`."""
    env = dict(os.environ) if env is None else env
    base_url = env.get("OPENAI_BASE_URL") or cfg.base_url
    api_key = env.get("OPENAI_API_KEY")
    if not api_key and not base_url:
        from evals.errors import InputError

        raise InputError(
            f"model {model!r} needs an OpenAI-compatible endpoint: set OPENAI_API_KEY "
            "(and OPENAI_BASE_URL or [tool.evals] base_url for another server)"
        )
    max_tokens = cfg.extra.get("max_tokens")
    return OpenAICompatProvider(
        model,
        base_url=base_url,
        api_key=api_key,
        temperature=float(cfg.temperature),
        max_tokens=int(max_tokens) if max_tokens is not None else None,
        timeout_s=float(cfg.timeout_s),
        max_retries=int(cfg.max_retries),
        warn=warn,
        withhold=withhold,
    )


def endpoint_id(url: str) -> str:
    """A fingerprint of a URL that holds a secret (a token in its path or query), so that a
    resumed run can tell two such endpoints apart while the run file keeps the secret out.

    scrypt, not a bare hash: the rest of the URL is in the file, so a short token could
    otherwise be guessed offline by hashing candidates."""
    salt = b"evals endpoint id v1"
    return hashlib.scrypt(url.encode("utf-8"), salt=salt, n=2**14, r=8, p=1, dklen=16).hex()
