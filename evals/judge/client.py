"""The LLM judge: structured verdicts, validated; an unusable reply is an error, never a score."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.checks import CheckResult
from evals.checks.grading import checks_for, grade
from evals.config import Settings
from evals.errors import InputError
from evals.judge.cache import VerdictCache, package_version
from evals.judge.prompt import JudgePrompt, messages_for, read_judge_prompt, retry_message
from evals.judge.verdict import (
    Scale,
    check_reply,
    judge_result,
    review_reasons,
    scale_of,
    schema_sha,
    verdict_schema,
    wire_schema,
)
from evals.providers.masking import endpoint_mask
from evals.providers.modelid import check_pinned, date_is_label, endpoint_name, undated_name
from evals.reply import Reply
from evals.run.cost import Price, cost_usd, price_for
from evals.suite.case import Case
from evals.suite.folder import Suite

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["Judge", "JudgeOutcome", "make_judge", "same_family"]

DEFAULT_MAX_ATTEMPTS = 3
PASS_RULE = "grounded and rubric_met and score > threshold"
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


class Judge:
    """The `judge` check for the runner: see evals.runner.Grader."""

    name = "judge"

    def __init__(
        self,
        *,
        model: str,
        suite: Suite,
        client: AsyncOpenAI,
        prompt: JudgePrompt,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        temperature: float = 0.0,
        cache: VerdictCache | None = None,
        endpoint: str | None = None,
        price: Price | None = None,
    ) -> None:
        self.model = model
        self.suite = suite
        self.client = client
        self.prompt = prompt
        self.scale: Scale = scale_of(suite)
        self.schema = verdict_schema(self.scale)
        self.schema_sha = schema_sha(self.schema)
        self.response_format = {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": wire_schema(self.schema), "strict": True},
        }
        self.max_attempts = max_attempts
        self.temperature = temperature
        self.cache = cache
        self.endpoint = endpoint
        #: USD per million tokens of the judge model ([tool.evals.prices]); None when unlisted.
        self.price = price

    def stamp(self) -> dict[str, Any]:
        """What the run header records under `judge`."""
        return {
            "model": self.model,
            "endpoint_model": endpoint_name(self.model),
            "model_date_is_label": date_is_label(self.model),
            "prompt_sha": self.prompt.sha,
            "schema_sha": self.schema_sha,
            "scale": [self.scale.lo, self.scale.hi],
            "threshold": self.scale.threshold,
            "pass_rule": PASS_RULE,
            "max_attempts": self.max_attempts,
            "temperature": self.temperature,
            "judge_on_facts": self.suite.settings.judge_on_facts,
        }

    def applies_to(self, case: Case) -> bool:
        """Cases listing `judge` (implied by a rubric), and with judge_on_facts those with facts."""
        if self.name in checks_for(case):
            return True
        implicit = case.data.get("checks") is None
        return bool(self.suite.settings.judge_on_facts and implicit and case.expect.get("facts"))

    def cache_key(self, messages: list[dict[str, Any]]) -> str:
        """Everything that shapes a verdict, including the prompt, schema and package version."""
        key = {
            "kind": "judge-verdict",
            "evals": package_version(),
            "endpoint": self.endpoint,
            "model": self.model,
            "prompt_sha": self.prompt.sha,
            "schema_sha": self.schema_sha,
            "temperature": self.temperature,
            "messages": messages,
        }
        text = json.dumps(key, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    async def judge(self, case: Case, reply: Reply) -> JudgeOutcome:
        """Ask for a verdict; retry an unusable reply saying what was wrong; errors stay errors."""
        messages = messages_for(self.prompt, case, reply, self.scale)
        key = self.cache_key(messages)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            return JudgeOutcome(hit, None, 0, cached=True)
        import openai  # already loaded by the client; a cached verdict never gets here

        problems: list[str] = []
        tally = _Tally()
        for attempt in range(1, self.max_attempts + 1):
            try:
                resp = await self.client.chat.completions.create(
                    model=endpoint_name(self.model),
                    messages=messages,  # type: ignore[arg-type]
                    temperature=self.temperature,
                    response_format=self.response_format,  # type: ignore[arg-type]
                )
            except openai.APIError as exc:  # the SDK has already retried what can be retried
                retries = getattr(self.client, "max_retries", None)
                if not isinstance(exc, openai.APIStatusError | openai.APIConnectionError):
                    retries = None  # a body the SDK could not read was not retried by it
                why = _with_history(_describe_failure(exc, retries), problems)
                return tally.outcome(None, self._mask(why), attempt)
            except Exception as exc:  # an unreadable response body: ask again, unchanged
                problems.append(f"attempt {attempt}: unreadable response ({type(exc).__name__})")
                # It was answered, so it may be billed; its tokens are unknown.
                tally.complete = False
                continue
            tally.add(resp)
            content, missing = _content(resp)
            if missing:
                # The judge said nothing usable to correct: ask again, unchanged.
                problems.append(f"attempt {attempt}: {missing}")
                continue
            verdict, problem = check_reply(content, self.schema)
            problem = self._mask(problem)
            if verdict is not None:
                # A server that echoes request headers must not put the key in a run file.
                verdict["reasoning"] = self._mask(verdict["reasoning"])
                if self.cache is not None:
                    self.cache.put(key, verdict)
                return tally.outcome(verdict, None, attempt)
            problems.append(f"attempt {attempt}: {problem}")
            messages = [
                *messages,
                {"role": "assistant", "content": content or ""},
                {"role": "user", "content": retry_message(problem, self.scale)},
            ]
        error = f"no valid verdict after {self.max_attempts} attempts: " + "; ".join(problems)
        return tally.outcome(None, self._mask(error), self.max_attempts)

    def cost_of(self, out: JudgeOutcome) -> float | None:
        """What this judging paid: 0 for a cached verdict or no reply; None when unknown."""
        if not out.usage_complete:
            return None
        if out.usage is None:
            return 0.0
        return cost_usd(out.usage, self.price)

    def _mask(self, text: str) -> str:
        """`text` with the endpoint's API key (whole, any long piece, its start or end) and
        any credential in its URL as `***`."""
        key = getattr(self.client, "api_key", None)
        return endpoint_mask(key if isinstance(key, str) else None, self.endpoint).text(text)

    async def grade(self, case: Case, reply: Reply) -> tuple[CheckResult, dict[str, Any]]:
        """The `judge` check and the row fields: judge, needs_review, review_reasons."""
        out = await self.judge(case, reply)
        # The deterministic results again (cheap, pure) to spot a judge that disagrees with them.
        deterministic = grade(case, reply, self.suite.settings)
        reasons = review_reasons(out.verdict, out.error, self.scale, deterministic)
        extra = {
            "judge": {
                "model": self.model,
                "prompt_sha": self.prompt.sha,
                "schema_sha": self.schema_sha,
                "verdict": out.verdict,
                "attempts": out.attempts,
                "error": out.error,
                "cached": out.cached,
            },
            "needs_review": bool(reasons),
            "review_reasons": reasons,
            # Counted apart from the answer's usage and cost_usd; the summary adds them up.
            "judge_usage": out.usage,
            "judge_cost_usd": self.cost_of(out),
        }
        return judge_result(out.verdict, out.error, self.scale), extra

    async def aclose(self) -> None:
        await self.client.close()
        if self.cache is not None:
            self.cache.close()


def _max_attempts(settings: Settings) -> int:
    value = settings.extra.get("judge_max_attempts", DEFAULT_MAX_ATTEMPTS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(
            f"{settings.root / 'pyproject.toml'}: /tool/evals/judge_max_attempts: must be an integer >= 1"
        )
    return value


def make_judge(model: str, suite: Suite, settings: Settings, use_cache: bool = True) -> Judge:
    """A Judge for a pinned model on the OpenAI-compatible endpoint from the environment/settings."""
    check_pinned(model)
    prompt = read_judge_prompt(suite)
    scale_of(suite)  # bad scale settings fail here, before any request
    base_url = os.environ.get("OPENAI_BASE_URL") or settings.base_url
    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key:
        raise InputError(
            "the judge needs OPENAI_API_KEY (any non-empty value for a local server that ignores it)"
        )
    temperature = settings.extra.get("judge_temperature", 0.0)
    from openai import AsyncOpenAI  # the SDK loads only when a judge is made

    client = AsyncOpenAI(
        base_url=base_url,
        api_key=api_key,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
    )
    return Judge(
        model=model,
        suite=suite,
        client=client,
        prompt=prompt,
        max_attempts=_max_attempts(settings),
        temperature=float(temperature),
        cache=_open_cache(settings.cache_path) if use_cache else None,
        endpoint=base_url,
        price=price_for(model, settings.prices),
    )


def _open_cache(path: Path) -> VerdictCache | None:
    """The verdict cache, or None with a warning: a broken cache costs requests, not the run."""
    try:
        return VerdictCache(path)
    except (OSError, sqlite3.Error) as exc:
        print(f"warning: judge verdict cache off ({path}: {exc})", file=sys.stderr)
        return None


def _family(model: str) -> str:
    """`gpt-4o-mini-2024-07-18` and `openai/gpt-4o@2024-08-06` are both `gpt-4o`."""
    name = undated_name(model).lower()
    tokens = [t for t in name.split("-") if t]
    out: list[str] = []
    for t in tokens:
        out.append(t)
        if any(ch.isdigit() for ch in t):
            break
    return "-".join(out)


def same_family(judge_model: str, model: str) -> str | None:
    """Why the judge may be lenient with the model under test (same family or vendor), or None."""
    from evals.providers.modelid import vendor

    fam_j, fam_m = _family(judge_model), _family(model)
    if fam_j and fam_j == fam_m:
        return f"the judge {judge_model} and the model under test {model} are both {fam_j!r} models"
    if "/" in judge_model and "/" in model and vendor(judge_model) == vendor(model):
        return f"the judge {judge_model} and the model under test {model} come from the same vendor {vendor(judge_model)!r}"
    return None


def family_warning(judge_model: str, model: str) -> str | None:
    """A printable warning when a judge grades its own family, else None."""
    why = same_family(judge_model, model)
    if why is None:
        return None
    return f"warning: {why}; a judge tends to rate its own family generously: check it against human labels (invoke calibrate) or use a judge from another family"
