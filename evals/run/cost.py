"""Token cost from the `[tool.evals.prices]` table: USD per million tokens, per pinned model."""

from __future__ import annotations

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

    def mean(self, floor: float) -> float:
        """The expected cost of one more case: the mean so far, else the prompt-size floor."""
        return self.spent / self.done if self.done else floor

    def may_start(self, floor: float) -> bool:
        per_case = self.mean(floor)
        return self.spent + (self.in_flight + 1) * per_case <= self.max_usd

    def started(self) -> None:
        self.in_flight += 1

    def finished(self, cost: float | None, *, counted: bool, floor: float = 0.0) -> None:
        """Record a finished case; cached answers and errors cost nothing this time."""
        self.in_flight -= 1
        if not counted:
            return
        if cost is None:
            cost = self.mean(floor)
            self.estimated += 1
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
