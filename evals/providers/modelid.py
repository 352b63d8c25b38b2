"""Date-pinned model ids: `vendor/model@YYYY-MM-DD` or a snapshot id with `-YYYY-MM-DD`."""

from __future__ import annotations

import datetime as dt
import re

from evals.errors import InputError

_AT_DATE = re.compile(r"^(?P<name>[^@\s]+)@(?P<date>\d{4}-\d{2}-\d{2})$")
_SNAPSHOT = re.compile(r"^[^@\s]*-(?P<date>\d{4}-\d{2}-\d{2})(?:[^@\s]*)$")


def _valid_date(s: str) -> bool:
    try:
        dt.date.fromisoformat(s)
    except ValueError:
        return False
    return True


def check_pinned(model: str) -> str:
    """Return the id unchanged if it is date-pinned; otherwise raise with how to pin it."""
    m = _AT_DATE.match(model) or _SNAPSHOT.match(model)
    if m and _valid_date(m.group("date")):
        return model
    raise InputError(
        f"model {model!r} is not date-pinned: a floating alias can change under you. "
        f"Pin it as 'vendor/model@YYYY-MM-DD' (e.g. 'openai/{model.split('/')[-1]}@2024-07-18') "
        "or use a snapshot id that contains -YYYY-MM-DD (e.g. 'gpt-4o-2024-08-06')."
    )


def endpoint_name(model: str) -> str:
    """The name sent to the endpoint: the `@date` suffix and the `vendor/` prefix removed."""
    m = _AT_DATE.match(model)
    name = m.group("name") if m else model
    return name.split("/", 1)[1] if "/" in name else name


def vendor(model: str) -> str:
    """The vendor part of an id (`openai/...`), or the first word of a snapshot id."""
    if "/" in model:
        return model.split("/", 1)[0]
    return re.split(r"[-@.]", model, maxsplit=1)[0]
