"""How figures are shown in reports, diffs and sealed-run summaries: a missing value is `n/a`."""

from __future__ import annotations

from typing import Any


def pct(rate: float | None) -> str:
    """A rate as a percentage with one decimal, or `n/a`."""
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def fmt_num(v: float | None, digits: int = 3) -> str:
    """A number with `digits` decimals, or `n/a`."""
    return "n/a" if v is None else f"{v:.{digits}f}"


def fmt_signed(v: float | None, digits: int = 3) -> str:
    """A difference with its sign and `digits` decimals, or `n/a`."""
    return "n/a" if v is None else f"{v:+.{digits}f}"


def fmt_ms(v: float | None) -> str:
    """A latency in milliseconds: whole ms from 10 up, two decimals below."""
    return "n/a" if v is None else f"{v:,.0f} ms" if v >= 10 else f"{v:.2f} ms"


def fmt_cost(v: float | None) -> str:
    """A cost in US dollars, or `unknown` when no price was known."""
    return "unknown" if v is None else f"${v:.4f}"


def fmt_tokens(tokens: dict[str, Any] | None) -> str:
    """Token counts as `name count` pairs, or `none reported`."""
    if not tokens:
        return "none reported"
    return ", ".join(f"{k} {v:,}" for k, v in tokens.items())
