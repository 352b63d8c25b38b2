"""The interface every provider implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from evals.case import Case
from evals.reply import Reply


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
