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


#: Dated snapshots of models people pin most, for the advice an unpinned id gets.
KNOWN_SNAPSHOTS = {"gpt-4o-mini": "2024-07-18", "gpt-4o": "2024-08-06"}
EXAMPLE_PINNED = "openai/gpt-4o-mini@2024-07-18"
#: Vendors whose `vendor/name@date` names a snapshot the endpoint serves as `name-date`: for
#: these the dated snapshot is requested, so the date pins what runs. Elsewhere (vLLM, Ollama,
#: a gateway) the server knows no dates, and `@date` is a label the user chose.
SNAPSHOT_VENDORS = ("openai",)


def check_pinned(model: str) -> str:
    """Return the id unchanged if it is date-pinned; otherwise raise with how to pin it."""
    m = _AT_DATE.match(model) or _SNAPSHOT.match(model)
    if m and _valid_date(m.group("date")):
        return model
    name = model.split("/")[-1].split("@")[0]
    example = (
        f"openai/{name}@{KNOWN_SNAPSHOTS[name]}" if name in KNOWN_SNAPSHOTS else EXAMPLE_PINNED
    )
    raise InputError(
        f"model {model!r} is not date-pinned: a floating alias can change under you. "
        f"Pin it as 'vendor/model@YYYY-MM-DD' (e.g. {example!r}) "
        "or use a snapshot id that contains -YYYY-MM-DD (e.g. 'gpt-4o-2024-08-06')."
    )


def undated_name(model: str) -> str:
    """The model's name without the `@date` suffix and the `vendor/` prefix."""
    m = _AT_DATE.match(model)
    name = m.group("name") if m else model
    return name.split("/", 1)[1] if "/" in name else name


def endpoint_name(model: str) -> str:
    """The name sent to the endpoint: the dated snapshot for a snapshot vendor
    (`openai/gpt-4o-mini@2024-07-18` -> `gpt-4o-mini-2024-07-18`), else the undated name."""
    m = _AT_DATE.match(model)
    if m and vendor(model) in SNAPSHOT_VENDORS:
        return f"{undated_name(model)}-{m.group('date')}"
    return undated_name(model)


def date_is_label(model: str) -> bool:
    """True when the id's `@date` is not sent to the endpoint: it labels, it does not pin."""
    return bool(_AT_DATE.match(model)) and vendor(model) not in SNAPSHOT_VENDORS


def vendor(model: str) -> str:
    """The vendor part of an id (`openai/...`), or the first word of a snapshot id."""
    if "/" in model:
        return model.split("/", 1)[0]
    return re.split(r"[-@.]", model, maxsplit=1)[0]
