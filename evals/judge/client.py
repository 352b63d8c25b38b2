"""The LLM judge: structured verdicts, validated; an unusable reply is an error, never a score."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.checks import CheckResult
from evals.checks.grading import checks_for, grade
from evals.config import Settings
from evals.errors import InputError
from evals.judge.asking import JudgeOutcome, Request, ask
from evals.judge.cache import VerdictCache, package_version
from evals.judge.prompt import JudgePrompt, messages_for, read_judge_prompt, retry_message
from evals.judge.questions import decide
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
        # Set by a run with --max-cost: asked before, and told after, every request.
        self._gate: Callable[[int], str | None] | None = None
        self._paid: Callable[[float | None, int], None] | None = None

    def use_budget(
        self, gate: Callable[[int], str | None], paid: Callable[[float | None, int], None]
    ) -> None:
        """Put every request to the judge (verdicts, per-fact questions, retries) under a
        run's budget: `gate(chars)` says why one may not be sent, `paid(cost, chars)` hears
        what each cost."""
        self._gate, self._paid = gate, paid

    def budgeted(self) -> dict[str, Any]:
        """The `gate` and `paid` fields of a Request under this judge's budget."""
        if self._gate is None:
            return {}
        paid = self._paid

        def on_reply(usage: dict[str, Any] | None, chars: int) -> None:
            if paid is not None:
                paid(cost_usd(usage, self.price) if usage else None, chars)

        return {"gate": self._gate, "paid": on_reply}

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
        out = await ask(
            self.client,
            Request(
                model=endpoint_name(self.model),
                messages=messages,
                response_format=self.response_format,
                temperature=self.temperature,
                max_attempts=self.max_attempts,
                check=lambda content: check_reply(content, self.schema),
                retry=lambda problem: retry_message(problem, self.scale),
                mask=self.mask,
                **self.budgeted(),
            ),
        )
        if out.verdict is not None:
            # A server that echoes request headers must not put the key in a run file.
            out.verdict["reasoning"] = self.mask(out.verdict["reasoning"])
            if self.cache is not None:
                self.cache.put(key, out.verdict)
        return out

    def cost_of(self, out: JudgeOutcome) -> float | None:
        """What this judging paid: 0 for a cached verdict or no reply; None when unknown."""
        if not out.usage_complete:
            return None
        if out.usage is None:
            return 0.0
        return cost_usd(out.usage, self.price)

    def mask(self, text: str) -> str:
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

    async def decide(
        self, case: Case, reply: Reply, results: dict[str, CheckResult]
    ) -> tuple[dict[str, CheckResult], dict[str, Any]]:
        """Put each fact, figure or promise the checks left in review to the judge."""
        return await decide(self, case, reply, results)

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
