"""What a sealed run's rows keep: statuses and scores under opaque, pairable ids, and no text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from evals.providers.completion import plain_model_id
from evals.seal.manifest import Pile

WITHHELD = "withheld: sealed run"
CHECK_ERROR = "a check errored (detail withheld: sealed run)"
OTHER_MODEL = "withheld: not the pinned model (sealed run)"
# A provider failure's reason in a sealed row is the runner's own (a kind such as "HTTP 401"
# plus a fixed phrase); anything else is withheld, whatever produced it.
_OWN_REASON = re.compile(r"^[A-Za-z0-9 ._:()-]{1,160}$")
# Row fields that carry no case text; everything else is dropped from a sealed row.
_KEEP = (
    "kind",
    "run_id",
    "epoch",
    "model",
    "prompt_sha",
    "status",
    "score",
    "failed_checks",
    "category",
    "abstained",
    "latency_ms",
    "usage",
    "cost_usd",
    "cached",
)


def make_row_filter(pile: Pile) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A row filter that keeps statuses and scores under opaque, pairable ids, and no text."""

    def strip(row: dict[str, Any]) -> dict[str, Any]:
        out = {k: row.get(k) for k in _KEEP}
        if "review_checks" in row:  # check names only; a provider failure's row has none
            out["review_checks"] = row["review_checks"]
        out["case"] = pile.keys.opaque(pile.pile_id, "id\0" + row["case"])[:24]
        out["case_sha"] = pile.keys.opaque(pile.pile_id, "sha\0" + row["case_sha"])
        # Check details can quote the answer or the expected phrases: only verdicts stay.
        out["checks"] = {
            name: {"status": r["status"], "score": r["score"], "detail": WITHHELD}
            for name, r in (row.get("checks") or {}).items()
        }
        for k in ("cluster", "question", "draft", "retrieved", "cited"):
            out[k] = None
        out["error"] = _sealed_error(row)
        # The endpoint names the model it used; a name other than the pinned one is its text.
        resolved = row.get("resolved_model")
        if resolved is not None and not plain_model_id(row["model"], resolved):
            resolved = OTHER_MODEL
        out["resolved_model"] = resolved
        out["sealed"] = True
        return out

    return strip


def _sealed_error(row: dict[str, Any]) -> str | None:
    """The reason a sealed row may keep: a provider failure's kind (the runner withholds its
    message in sealed runs); a check's error detail can quote the answer, so it never stays."""
    if row["status"] != "error":
        return None
    error = row.get("error") or ""
    if row.get("checks"):
        return CHECK_ERROR
    return error if _OWN_REASON.match(error) else WITHHELD
