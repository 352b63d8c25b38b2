"""The interface every provider implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from evals.reply import ProviderError, Reply
from evals.suite.case import Case

#: How many of a run's first answered requests must all be the same refusal before it stops.
REFUSAL_QUORUM = 3
REFUSED_PREFIX = "the endpoint refused every request: "


class Provider(Protocol):
    """Answers one case. Raises ProviderError when it cannot; never returns a fake answer."""

    #: The id stamped on every row (a pinned model id, or a target's identity string).
    model: str

    def stamp(self) -> dict[str, Any]:
        """What the run header records about this provider: kind and every setting."""
        ...

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        """The system's reply to `case` under system prompt `prompt`."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


@runtime_checkable
class RequestProvider(Protocol):
    """A provider whose answer is a pure function of one request: its answers can be cached.

    `request_for` builds everything that shapes the answer (no secrets); `send` performs it.
    """

    model: str

    def request_for(self, case: Case, prompt: str) -> dict[str, Any]: ...

    async def send(self, request: dict[str, Any]) -> Reply: ...


class EndpointRefused(ProviderError):
    """A failure that every request to this endpoint would meet alike, so retrying is no use.

    A wrong URL (connection refused), a bad key (HTTP 401/403) or an unknown model (404).
    `signature` names the failure ("HTTP 401", "connection refused") so that runs can tell
    one repeated refusal from a mix of failures; `hint` says what to check.
    """

    def __init__(self, reason: str, signature: str, hint: str) -> None:
        super().__init__(reason, signature)
        self.signature = signature
        self.hint = hint


class RefusalWatch:
    """Decides, from a run's first answered requests, whether the endpoint refuses them all.

    A wrong URL, key or model name fails every request the same way; rather than spend
    each case's retries learning that, the run stops once its first `quorum` requests
    (all of them, when fewer are to be made) met the same refusal. Any other outcome
    among them (an answer, a transient error) settles it: the run goes on to the end.
    """

    def __init__(self, quorum: int) -> None:
        self.quorum = quorum
        self.settled = False
        self.seen: list[str] = []

    def undecided(self) -> bool:
        """Refusals came first and nothing has settled the question yet."""
        return not self.settled and bool(self.seen)

    def answered(self) -> None:
        """A request that was not refused: the endpoint works (or fails only at times)."""
        self.settled = True

    def refused(self, signature: str, reason: str, hint: str) -> str | None:
        """Record a refusal; the stop reason once the first `quorum` all were this one."""
        if self.settled:
            return None
        self.seen.append(signature)
        if len(set(self.seen)) > 1:
            self.settled = True
            return None
        if len(self.seen) < self.quorum:
            return None
        self.settled = True
        return f"{REFUSED_PREFIX}{reason} ({hint})"
