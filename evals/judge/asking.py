"""One structured request to the judge, retried while its reply is unusable: the loop that
case verdicts and per-fact questions share. An unusable reply is an error, never a score."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openai import AsyncOpenAI

_KEY_LIKE = re.compile(r"\b(?:sk|key|api[-_]?key)[-_][A-Za-z0-9*_.\-]{3,}", re.IGNORECASE)


@dataclass(frozen=True)
class JudgeOutcome:
    """One judging: a valid verdict, or the reason there is none. `attempts` counts requests made."""

    verdict: dict[str, Any] | None
    error: str | None
    attempts: int
    cached: bool = False
    #: Tokens over every reply the judge sent (retries included); None when none was sent.
    usage: dict[str, int] | None = None
    #: False when some reply came without token counts: the usage is then a floor.
    usage_complete: bool = True


_TOKEN_KEYS = ("prompt_tokens", "completion_tokens")


class _Tally:
    """The tokens of one judging, summed over its replies."""

    def __init__(self) -> None:
        self.tokens = dict.fromkeys(_TOKEN_KEYS, 0)
        self.replies = 0
        self.complete = True

    def add(self, resp: Any) -> None:
        self.replies += 1
        usage = getattr(resp, "usage", None)
        counts = [getattr(usage, k, None) for k in _TOKEN_KEYS]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            self.complete = False
            return
        for k, n in zip(_TOKEN_KEYS, counts, strict=True):
            self.tokens[k] += n

    def outcome(
        self, verdict: dict[str, Any] | None, error: str | None, attempts: int
    ) -> JudgeOutcome:
        usage = dict(self.tokens) if self.replies else None
        return JudgeOutcome(verdict, error, attempts, usage=usage, usage_complete=self.complete)


def _usage_of(resp: Any) -> dict[str, Any] | None:
    """One response's token counts, as `cost_usd` reads them; None when it reported none."""
    usage = getattr(resp, "usage", None)
    p, c = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
    if not isinstance(p, int) or not isinstance(c, int):
        return None
    return {"prompt_tokens": p, "completion_tokens": c}


def _redacted(text: str) -> str:
    """An endpoint's error text, cut short, with anything shaped like an API key masked."""
    return _KEY_LIKE.sub("[redacted]", " ".join(text.split()))[:300]


def _error_message(body: object) -> str | None:
    """The message of an error body: `{"message": ...}` or `{"error": {"message": ...}}`."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    said = inner.get("message") if isinstance(inner, dict) else body.get("message")
    return said if isinstance(said, str) and said.strip() else None


def _describe_failure(exc: Exception, retries: int | None = None) -> str:
    """A transport failure in one line, without anything the request carried (keys, bodies)."""
    import openai  # the SDK loads only where a judge talks to an endpoint

    name = type(exc).__name__
    # The SDK has already retried timeouts, 429, 5xx and dropped connections this often.
    tries = f" after {retries} retries" if retries else ""
    if isinstance(exc, openai.APIStatusError):
        said = _error_message(exc.body)
        tail = f": {_redacted(said)}" if said else ""
        return f"judge request failed{tries}: HTTP {exc.status_code} ({name}){tail}"
    if isinstance(exc, openai.APITimeoutError):
        return f"judge request failed{tries}: timed out ({name})"
    if isinstance(exc, openai.APIConnectionError):
        return f"judge request failed{tries}: connection error ({name})"
    return f"judge request failed: {name}: {str(exc)[:200]}"


def _with_history(error: str, problems: list[str]) -> str:
    return f"{error} (earlier: {'; '.join(problems)})" if problems else error


def _content(resp: Any) -> tuple[str | None, str | None]:
    """The reply's text, or why there is none (no choices, a refusal)."""
    choices = getattr(resp, "choices", None)
    if not choices:
        return None, "the endpoint's response had no choices"
    message = getattr(choices[0], "message", None)
    refusal = getattr(message, "refusal", None)
    if refusal:
        return None, f"the judge refused: {str(refusal)[:200]}"
    content = getattr(message, "content", None)
    if isinstance(content, list):  # some gateways send text parts: [{"type": "text", ...}]
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        content = "".join(t for t in texts if isinstance(t, str))
    if content is not None and not isinstance(content, str):
        return None, f"the reply's content is {type(content).__name__}, not text"
    return content, None


#: Reads one reply's text: (value, "") or (None, what was wrong).
Check = Callable[[str | None], tuple[dict[str, Any] | None, str]]


@dataclass(frozen=True)
class Request:
    """What one judging sends: the messages, the structured-output format, how to read and
    correct a reply, and how to mask what goes into errors."""

    model: str
    messages: list[dict[str, Any]]
    response_format: dict[str, Any]
    temperature: float
    max_attempts: int
    check: Check
    retry: Callable[[str], str]
    mask: Callable[[str], str]
    #: Asked before each request with its prompt's characters: why it may not be sent (the
    #: run's `--max-cost`), else None.
    gate: Callable[[int], str | None] | None = None
    #: Told after each reply what it cost (None: unknown) and its prompt's characters.
    paid: Callable[[dict[str, Any] | None, int], None] | None = None


async def ask(client: AsyncOpenAI, req: Request) -> JudgeOutcome:
    """Send, and resend with what was wrong while a reply is unusable; errors stay errors."""
    import openai  # already loaded by the client; a cached verdict never gets here

    messages = req.messages
    problems: list[str] = []
    tally = _Tally()
    for attempt in range(1, req.max_attempts + 1):
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        if req.gate is not None and (why := req.gate(chars)) is not None:
            # Not sent, so not paid: an error that says why, never a verdict.
            return tally.outcome(
                None, req.mask(_with_history(f"not asked: {why}", problems)), attempt - 1
            )
        try:
            resp = await client.chat.completions.create(
                model=req.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=req.temperature,
                response_format=req.response_format,  # type: ignore[arg-type]
            )
        except openai.APIError as exc:  # the SDK has already retried what can be retried
            if req.paid is not None:  # refused, not answered: what was held for it is freed
                req.paid({"prompt_tokens": 0, "completion_tokens": 0}, chars)
            retries = getattr(client, "max_retries", None)
            if not isinstance(exc, openai.APIStatusError | openai.APIConnectionError):
                retries = None  # a body the SDK could not read was not retried by it
            why = _with_history(_describe_failure(exc, retries), problems)
            return tally.outcome(None, req.mask(why), attempt)
        except Exception as exc:  # an unreadable response body: ask again, unchanged
            problems.append(f"attempt {attempt}: unreadable response ({type(exc).__name__})")
            # It was answered, so it may be billed; its tokens are unknown.
            tally.complete = False
            if req.paid is not None:
                req.paid(None, chars)
            continue
        tally.add(resp)
        if req.paid is not None:
            req.paid(_usage_of(resp), chars)
        content, missing = _content(resp)
        if missing:
            # The judge said nothing usable to correct: ask again, unchanged.
            problems.append(f"attempt {attempt}: {missing}")
            continue
        value, problem = req.check(content)
        problem = req.mask(problem)
        if value is not None:
            return tally.outcome(value, None, attempt)
        problems.append(f"attempt {attempt}: {problem}")
        messages = [
            *messages,
            {"role": "assistant", "content": content or ""},
            {"role": "user", "content": req.retry(problem)},
        ]
    error = f"no valid verdict after {req.max_attempts} attempts: " + "; ".join(problems)
    return tally.outcome(None, req.mask(error), req.max_attempts)
