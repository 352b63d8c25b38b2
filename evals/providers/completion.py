"""A chat completion body: its text, usage, model and finish reason, and whether the model
it reports is the pinned one."""

from __future__ import annotations

import json
import re

from evals.providers.modelid import endpoint_name, undated_name
from evals.reply import ProviderError

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def same_model(pinned: str, resolved: str) -> bool:
    """Whether the endpoint's reported model is the pinned one.

    `openai/gpt-4o-mini@2024-07-18` matches `gpt-4o-mini` and `gpt-4o-mini-2024-07-18`,
    not `gpt-4o-mini-2024-09-01`; vendor prefixes on either side are ignored.
    """
    want = undated_name(pinned).casefold()
    got = resolved.casefold()
    got_tail = got.split("/", 1)[1] if "/" in got and not want.count("/") else got
    if got_tail == want:
        return True
    pin_date = pinned.rsplit("@", 1)[1] if "@" in pinned else None
    if got_tail.startswith(want + "-"):
        dates = _DATE.findall(got_tail[len(want) :])
        return not dates or dates == [pin_date]
    return False


MALFORMED = "malformed reply"


def plain_model_id(pinned: str, resolved: str) -> bool:
    """Whether the endpoint reports exactly the pinned model, in one of the forms endpoints
    use (`gpt-4o-mini`, `gpt-4o-mini-2024-07-18`, each with or without a vendor prefix).

    Stricter than `same_model`: a name that only begins like the pinned one could carry
    any text after it.
    """
    name = endpoint_name(pinned)
    forms = {name}
    if "@" in pinned:
        forms.add(f"{name}-{pinned.rsplit('@', 1)[1]}")
    vendor = pinned.split("/", 1)[0] if "/" in pinned else None
    if vendor:
        forms |= {f"{vendor}/{f}" for f in forms}
    return resolved in forms


class MalformedBody(ProviderError):
    """A body that is not a chat completion at all (garbage, no choices): worth asking again."""


def parse_completion(raw: bytes) -> tuple[str, dict[str, int] | None, str | None, str | None]:
    """Content, usage, reported model and finish reason; ProviderError when malformed."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        snippet = raw[:80].decode("utf-8", "replace")
        raise MalformedBody(
            f"malformed reply: the body is not JSON ({snippet!r})", MALFORMED
        ) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise MalformedBody("malformed reply: no choices in the response", MALFORMED)
    first = choices[0] if isinstance(choices[0], dict) else {}
    message = first.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        # Some gateways return content as parts: [{"type": "text", "text": "..."}].
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        content = "".join(t for t in texts if isinstance(t, str)) if texts else None
    finish = first.get("finish_reason")
    finish = finish if isinstance(finish, str) else None
    if not isinstance(content, str):
        why = f" (finish_reason: {finish})" if finish else ""
        raise ProviderError(
            f"malformed reply: the first choice has no text content{why}", MALFORMED
        )
    u = data.get("usage")
    usage = None
    if isinstance(u, dict):
        usage = {
            k: u[k]
            for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            # true/false and negative counts are not token counts (a cost is never made up)
            if isinstance(u.get(k), int) and not isinstance(u[k], bool) and u[k] >= 0
        }
    model = data.get("model")
    return content, usage or None, model if isinstance(model, str) else None, finish
