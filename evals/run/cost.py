"""Token cost from the `[tool.evals.prices]` table: USD per million tokens, per pinned model."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """USD per million input (prompt) and output (completion) tokens."""

    input: float
    output: float


def price_for(model: str, prices: dict[str, Any]) -> Price | None:
    """The model's price, or None when the table does not list it (unknown, never free)."""
    entry = prices.get(model)
    if not isinstance(entry, dict):
        return None
    try:
        return Price(float(entry["input"]), float(entry["output"]))
    except (KeyError, TypeError, ValueError):
        return None


def cost_usd(usage: dict[str, Any] | None, price: Price | None) -> float | None:
    """The cost of one reply; None when the price or the token counts are unknown."""
    if price is None or not usage:
        return None
    p, c = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(p, int) or not isinstance(c, int):
        return None
    return round((p * price.input + c * price.output) / 1_000_000, 9)


def estimate_prompt_cost(chars: int, price: Price | None) -> float | None:
    """A floor for a request's cost before any reply: about four characters per input token."""
    if price is None:
        return None
    return chars / 4 * price.input / 1_000_000


#: The case a worker is on: the judge's requests are charged to it as they come back.
CURRENT_CASE: contextvars.ContextVar[CaseSpend | None] = contextvars.ContextVar(
    "spend", default=None
)


@dataclass
class CaseSpend:
    """One case against `--max-cost`: its answer and its judging are charged together."""

    #: The LLM judge will grade this case (and cost money).
    judged: bool = False
    #: The case took a place in the budget (its first paid request was allowed to start).
    started: bool = False
    #: Something was paid for: an answer from the endpoint, or a judging.
    counted: bool = False
    cost: float | None = 0.0
    floor: float = 0.0
    chars: int = 0
    #: What its judge calls paid so far (in the budget's `live` until the case settles).
    live: float = 0.0
    #: Tries the answer took: 1, plus one per re-send of a transient error.
    tries: int = 1

    def add(self, cost: float | None) -> None:
        self.counted = True
        self.cost = None if cost is None or self.cost is None else self.cost + cost


def _charge(budget: Budget, amount: float) -> None:
    budget.live += amount
    if (case := CURRENT_CASE.get()) is not None:
        case.live += amount


def judge_refusal(budget: Budget, chars: int, price: Price | None) -> str | None:
    """Why a judge request with a prompt of `chars` characters may not be sent: it would take
    the estimated cost past the cap. None when it may, and then its estimate is held against
    the budget until it comes back, so requests sent at once cannot all pass the cap."""
    estimate = estimate_prompt_cost(chars, price) or 0.0
    if budget.may_spend(estimate):
        _charge(budget, estimate)
        return None
    return (
        f"budget: the next judge request would take the estimated cost past "
        f"${budget.max_usd:g} (spent ${budget.spent + budget.live:.4f})"
    )


def charge_judge(budget: Budget, cost: float | None, chars: int, price: Price | None) -> None:
    """A judge request came back: its cost (the estimate held for it when unknown) replaces
    that estimate, against the budget and the case the worker is on."""
    estimate = estimate_prompt_cost(chars, price) or 0.0
    _charge(budget, (cost if cost is not None else estimate) - estimate)


@dataclass
class Budget:
    """`--max-cost`: refuses to start a case once spent + in flight + next would pass the cap.

    A reply that reports no token usage still cost something: it is charged at the mean
    cost per case so far (the prompt-size floor before any), so an endpoint that omits
    `usage` cannot run past the cap unseen.
    """

    max_usd: float
    spent: float = 0.0
    in_flight: int = 0
    done: int = 0
    #: Replies charged at the estimate because the endpoint reported no usage.
    estimated: int = 0
    #: What the judge's calls for cases still in flight have paid so far: counted at once,
    #: since one case can ask the judge many questions.
    live: float = 0.0

    def mean(self, floor: float) -> float:
        """The expected cost of one more case: the mean so far, else the prompt-size floor."""
        return self.spent / self.done if self.done else floor

    def may_start(self, floor: float) -> bool:
        per_case = self.mean(floor)
        return self.spent + self.live + (self.in_flight + 1) * per_case <= self.max_usd

    def may_spend(self, estimate: float) -> bool:
        """Whether one more request of about `estimate` USD stays under the cap, with what
        finished cases spent and what cases in flight have paid so far."""
        return self.spent + self.live + estimate <= self.max_usd

    def started(self) -> None:
        self.in_flight += 1

    def finished(
        self, cost: float | None, *, counted: bool, floor: float = 0.0, least: float = 0.0
    ) -> None:
        """Record a finished case; cached answers and errors cost nothing this time. An
        unknown cost is charged at the mean, and at no less than `least` (what is known of
        it: its judge requests)."""
        self.in_flight -= 1
        if not counted and not least:
            return
        if cost is None:
            self.estimated += 1
            cost = max(self.mean(floor), least)
        elif not counted:
            cost = least
        self.spent += cost
        self.done += 1


def batch_discount(model: str, prices: dict[str, Any]) -> float | None:
    """The model's `batch_discount` (the share of the live price a batch request costs, e.g.
    0.5), or None when the table gives none; ValueError when it is not a number in (0, 1]."""
    entry = prices.get(model)
    if not isinstance(entry, dict) or "batch_discount" not in entry:
        return None
    d = entry["batch_discount"]
    if isinstance(d, bool) or not isinstance(d, int | float) or not 0 < d <= 1:
        raise ValueError(f"batch_discount {d!r}: must be a number more than 0 and at most 1")
    return float(d)


def discounted(price: Price | None, factor: float | None) -> Price | None:
    """The price times `factor`; without a factor, the price itself (never made cheaper)."""
    if price is None or factor is None:
        return price
    return Price(price.input * factor, price.output * factor)


def estimate_batch_cost(
    prompt_chars: list[int], price: Price | None, output_tokens: float
) -> list[float] | None:
    """The running total of a batch's estimated cost, request by request: about four
    characters per input token plus `output_tokens` per reply; None without a price."""
    if price is None:
        return None
    totals, total = [], 0.0
    for chars in prompt_chars:
        total += (chars / 4 * price.input + output_tokens * price.output) / 1_000_000
        totals.append(total)
    return totals
