"""Which failed attempts `invoke run` sends again, and how the run counts the re-sends.

The SDK retries one HTTP request (`--retries`, with backoff and `Retry-After`); an attempt
that still failed is sent again as a whole, up to `--resend` times (default 2), when its
failure is one that another try can change. A gate fed with unretried transient errors
cannot tell a provider's bad minute from a change: with 5% of attempts erroring in each run
and nothing changed, 38% of pairs came out INCONCLUSIVE; two re-sends leave 0.0125%.
"""

from __future__ import annotations

from typing import Any

from evals.providers.base import EndpointRefused
from evals.reply import ProviderError

#: Failure kinds another try can change: the SDK's own retries were spent on one request, and
#: a provider's bad minute passes. A refusal (bad key, wrong URL or model) never does.
TRANSIENT_KINDS = ("timeout", "connection failed", "target timed out")


def transient(exc: ProviderError) -> bool:
    """Whether a failed attempt is worth sending again (see TRANSIENT_KINDS)."""
    if isinstance(exc, EndpointRefused):
        return False
    kind = exc.kind
    if kind in TRANSIENT_KINDS:
        return True
    code = kind.removeprefix("HTTP ")
    return code != kind and code.isdigit() and (int(code) in (408, 409, 429) or int(code) >= 500)


def retry_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """The run's re-sends: how many in all, how many rows needed one, and how many of those
    still ended as an error."""
    retried = [r for r in rows if isinstance(r.get("tries"), int) and r["tries"] > 1]
    return {
        "resent": sum(r["tries"] - 1 for r in retried),
        "rows": len(retried),
        "still_error": sum(1 for r in retried if r.get("status") == "error"),
    }
