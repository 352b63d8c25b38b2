"""What a system under test said about one case."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


class Claim(TypedDict):
    """One checkable statement of an answer, annotated by a person with the chunks that
    support it (none: the knowledge base does not support it)."""

    claim: str
    support: list[str]


@dataclass
class Reply:
    """One answer plus what the provider reported about it.

    `retrieved` and `cited` are refs; None means the system did not say (then
    checks fall back to the case's frozen retrieval and the citations in the text).
    `claims` are a person's annotations of this answer (saved answers only); None means
    nobody annotated it.
    """

    answer: str
    retrieved: list[str] | None = None
    cited: list[str] | None = None
    abstained: bool | None = None
    usage: dict[str, int] | None = None
    latency_ms: float | None = None
    resolved_model: str | None = None
    cached: bool = False
    claims: list[Claim] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class ProviderError(Exception):
    """The system under test could not produce an answer: the row is an `error`, never a score.

    `kind` names the failure in words of the harness's own ("HTTP 401", "timeout",
    "malformed reply", "target raised ValueError"), never in the provider's: a sealed run
    stores and prints only the kind, since the message itself could quote a sealed case.
    """

    def __init__(
        self, message: str = "", kind: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind or "provider error"
        #: Seconds the endpoint asked to wait before another try (its Retry-After), if any.
        self.retry_after = retry_after
