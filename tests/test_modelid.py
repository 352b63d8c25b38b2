"""Model ids must be date-pinned; floating aliases are refused with a way to pin them."""

from __future__ import annotations

import pytest

from evals.errors import InputError
from evals.providers.modelid import check_pinned, endpoint_name, vendor


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o-mini@2024-07-18", "gpt-4o-2024-08-06", "local/extractive@2026-11-01"]
)
def test_pinned_ids_are_accepted(model: str) -> None:
    assert check_pinned(model) == model


@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o-mini", "x@latest", "m@2024-13-40"])
def test_floating_aliases_are_refused_with_advice(model: str) -> None:
    with pytest.raises(InputError, match="not date-pinned.*YYYY-MM-DD"):
        check_pinned(model)


def test_endpoint_name_strips_date_and_vendor() -> None:
    assert endpoint_name("openai/gpt-4o-mini@2024-07-18") == "gpt-4o-mini"
    assert endpoint_name("gpt-4o-2024-08-06") == "gpt-4o-2024-08-06"


def test_vendor() -> None:
    assert vendor("openai/gpt-4o@2024-08-06") == "openai"
