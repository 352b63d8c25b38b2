"""The state a run's workers share: the requests and their cache, re-sends of transient
errors, the budget each case is charged against."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Iterable
from typing import Any

from evals.providers.base import (
    REFUSAL_QUORUM,
    EndpointRefused,
    RefusalWatch,
    RequestProvider,
)
from evals.providers.masking import describe
from evals.reply import ProviderError, Reply
from evals.run.cache import AnswerCache, cache_key
from evals.run.cost import (
    Budget,
    CaseSpend,
    charge_judge,
    cost_usd,
    estimate_prompt_cost,
    judge_refusal,
    price_for,
)
from evals.run.grade_cache import GradeCache
from evals.run.plan import RunPlan
from evals.run.retry import transient
from evals.suite.case import Case

WITHHELD_MESSAGE = "provider message withheld (sealed run)"


def _builtin_name(exc: BaseException) -> str:
    """The exception's type when Python defines it; an application's own class name could
    be made of any text."""
    return type(exc).__name__ if type(exc).__module__ == "builtins" else "exception"


def request_chars(request: dict[str, Any]) -> int:
    """The characters of a request's messages: the prompt-size floor of its cost."""
    msgs = request.get("body", {}).get("messages") or []
    return sum(len(m.get("content") or "") for m in msgs if isinstance(m, dict))


class Work:
    """The per-run state the workers share (one event loop, so no locks are needed)."""

    def __init__(self, plan: RunPlan, prompt: str) -> None:
        self.plan = plan
        self.prompt = prompt
        self.price = price_for(plan.provider.model, plan.prices)
        # The judge's price (None when unlisted, or for a grader that costs nothing).
        self.judge_price = getattr(plan.grader, "price", None)
        self.budget = Budget(plan.max_cost) if plan.max_cost is not None else None
        self.stopped: str | None = None
        self.refusals = RefusalWatch(REFUSAL_QUORUM)
        p = plan.provider
        self.requester = p if isinstance(p, RequestProvider) else None
        self.cache: AnswerCache | None = None
        self.grades: GradeCache | None = None
        # (case id, epoch) -> (request, cache key), built up front by `prefetch`.
        self.prepared: dict[tuple[str, int], tuple[dict[str, Any], str]] = {}
        if plan.use_cache and self.requester is not None and plan.cache_path is not None:
            try:
                self.cache = AnswerCache(plan.cache_path)
            except (OSError, sqlite3.Error) as exc:
                # A broken cache must not stop a run: it only costs requests.
                print(f"warning: answer cache off ({plan.cache_path}: {exc})", file=sys.stderr)
        if self.cache is not None:
            self.grades = self.cache.grade_cache(plan.suite.settings, plan.suite.path)

    async def answer(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None]:
        """The reply (from the cache when it holds one), or the reason there is none.

        An attempt that ends in a transient error is sent again, up to `plan.resend` times
        with a doubling wait, before it becomes an error row; `spend.tries` counts the tries.
        """
        while True:
            reply, error, wait = await self._try(case, epoch, spend)
            if wait is None or spend.tries > self.plan.resend or self.stopped:
                return reply, error
            await asyncio.sleep(max(wait, self.plan.resend_wait_s * 2 ** (spend.tries - 1)))
            spend.tries += 1

    async def _try(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None, float | None]:
        """One try: (reply, reason there is none, the least wait before another try, or None
        when another try could not change it)."""
        try:
            reply, error = await self._send(case, epoch, spend)
        except ProviderError as exc:
            again = transient(exc)
            return None, self._failed(exc), min(exc.retry_after or 0.0, 60.0) if again else None
        return reply, error, None

    def _failed(self, exc: ProviderError) -> str:
        """The reason of a failed try, noting a refusal that stops the run."""
        reason = self._reason(exc)
        if isinstance(exc, EndpointRefused):
            verdict = self.refusals.refused(exc.signature, reason, exc.hint)
            if verdict and not self.stopped:
                self.stopped = verdict
        else:
            self.refusals.answered()
        return reason

    async def _send(
        self, case: Case, epoch: int, spend: CaseSpend
    ) -> tuple[Reply | None, str | None]:
        """The reply, or the reason there is none; a ProviderError is raised to the caller."""
        plan = self.plan
        try:
            if self.requester is None:
                coro = plan.provider.answer(case, self.prompt, epoch)
                reply = await self._budgeted(coro, spend)
                if reply is not None:
                    self.refusals.answered()
                return reply, None
            prepared = self.prepared.pop((case.id, epoch), None)
            request, key = prepared or self.request_and_key(case, epoch)
            spend.chars = request_chars(request)
            if self.cache:
                hit = self.cache.get(key)
                if hit is not None:
                    return hit, None
            reply = await self._budgeted(self.requester.send(request), spend)
            if reply is not None:
                self.refusals.answered()
            if reply is not None and self.cache:
                self.cache.put(key, plan.provider.model, reply)  # only successes reach here
            return reply, None
        except ProviderError:
            raise
        except Exception as exc:  # an unexpected provider failure is still only this case's error
            self.refusals.answered()
            if self.plan.withhold_provider_text:
                return None, f"{_builtin_name(exc)}: {WITHHELD_MESSAGE}"
            return None, describe(exc)[:500]

    def request_and_key(self, case: Case, epoch: int) -> tuple[dict[str, Any], str]:
        """The request for one case and its cache key ("" when there is no cache)."""
        assert self.requester is not None
        request = self.requester.request_for(case, self.prompt)
        return request, cache_key(request, epoch) if self.cache else ""

    def prefetch(self, queue: Iterable[tuple[Case, int]]) -> None:
        """Build every queued request and read all their cached replies in one query."""
        if self.cache is None or self.requester is None:
            return
        for case, epoch in queue:
            try:
                self.prepared[(case.id, epoch)] = self.request_and_key(case, epoch)
            except Exception:  # noqa: S112 - `answer` builds it again and makes it this case's error
                continue
        self.cache.prefetch([key for _, key in self.prepared.values()])
        if self.grades is not None:
            # A cached reply graded before under the same inputs is not graded again.
            hits = [
                (c, self.cache.prefetched(self.prepared[(c.id, e)][1]))
                for c, e in queue
                if (c.id, e) in self.prepared
            ]
            self.grades.prefetch([(c, r) for c, r in hits if r is not None])

    def _reason(self, exc: ProviderError) -> str:
        """The error row's reason: the provider's message, or only its kind when withheld."""
        if self.plan.withhold_provider_text:
            return f"{exc.kind}: {WITHHELD_MESSAGE}"
        return str(exc) or exc.kind

    def admit(self, spend: CaseSpend) -> bool:
        """Whether the case may start paying: spent + in flight + this one stay under the cap.

        Charged once per case, at its first paid request (the answer, or the judging of a
        cached answer); the case stays in flight until its judging is done."""
        b = self.budget
        if b is None or spend.started:
            return True
        judge_floor = estimate_prompt_cost(spend.chars, self.judge_price) if spend.judged else 0.0
        spend.floor = (estimate_prompt_cost(spend.chars, self.price) or 0.0) + (judge_floor or 0.0)
        if self.stopped or not b.may_start(spend.floor):
            if not self.stopped:
                guessed = (
                    f", {b.estimated} case(s) without token usage charged at the mean"
                    if b.estimated
                    else ""
                )
                self.stopped = (
                    f"budget: the next case would take the estimated cost past "
                    f"${b.max_usd:g} (spent ${b.spent:.4f}{guessed})"
                )
            return False
        b.started()
        spend.started = True
        return True

    def settle(self, spend: CaseSpend) -> None:
        """The case is done: what it paid (answer plus judge) joins the budget's spend."""
        live, spend.live = spend.live, 0.0
        if self.budget is not None:
            self.budget.live -= live
        if self.budget is not None and spend.started:
            # An answer of unknown cost still paid for its judging: never charged less.
            self.budget.finished(spend.cost, counted=spend.counted, floor=spend.floor, least=live)

    def judge_gate(self, chars: int) -> str | None:
        """Before each request to the judge (a verdict, a per-fact question, a retry): why it
        may not be sent (the budget would pass its cap, or the run stopped), else None."""
        if self.budget is None:
            return None
        if not self.stopped:
            self.stopped = judge_refusal(self.budget, chars, self.judge_price)
        return self.stopped

    def judge_paid(self, cost: float | None, chars: int) -> None:
        """A judge request came back: its cost counts against the budget at once."""
        if self.budget is not None:
            charge_judge(self.budget, cost, chars, self.judge_price)

    async def _budgeted(self, coro: Any, spend: CaseSpend) -> Reply | None:
        if not self.admit(spend):
            coro.close()
            return None
        reply = await coro
        if self.budget is not None:
            spend.add(cost_usd(reply.usage, self.price))
        return reply
