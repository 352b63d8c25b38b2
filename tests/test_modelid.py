"""Model ids must be date-pinned; floating aliases are refused with a way to pin them."""

from __future__ import annotations

import pytest

from evals.errors import InputError
from evals.providers.modelid import check_pinned, date_is_label, endpoint_name, vendor


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o-mini@2024-07-18", "gpt-4o-2024-08-06", "local/extractive@2026-11-01"]
)
def test_pinned_ids_are_accepted(model: str) -> None:
    assert check_pinned(model) == model


@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o-mini", "x@latest", "m@2024-13-40"])
def test_floating_aliases_are_refused_with_advice(model: str) -> None:
    with pytest.raises(InputError, match="not date-pinned.*YYYY-MM-DD"):
        check_pinned(model)


def test_endpoint_name_is_the_dated_snapshot_where_the_vendor_has_one() -> None:
    assert endpoint_name("openai/gpt-4o-mini@2024-07-18") == "gpt-4o-mini-2024-07-18"
    assert endpoint_name("gpt-4o-2024-08-06") == "gpt-4o-2024-08-06"
    # vLLM, Ollama, a gateway: the server knows the name only; the date is a label.
    assert endpoint_name("vllm/meta-llama/Llama-3.1-8B-Instruct@2024-07-23") == (
        "meta-llama/Llama-3.1-8B-Instruct"
    )
    assert endpoint_name("ollama/llama3.1:8b@2024-07-23") == "llama3.1:8b"


def test_the_date_is_a_label_only_where_it_is_not_sent() -> None:
    assert date_is_label("acme/chat-small@2024-07-18") is True
    assert date_is_label("openai/gpt-4o-mini@2024-07-18") is False
    assert date_is_label("gpt-4o-2024-08-06") is False


@pytest.mark.parametrize(
    "model,example",
    [
        ("gpt-4o", "openai/gpt-4o@2024-08-06"),
        ("openai/gpt-4o-mini", "openai/gpt-4o-mini@2024-07-18"),
        ("claude-x", "openai/gpt-4o-mini@2024-07-18"),
    ],
)
def test_the_advice_for_an_unpinned_id_names_a_real_snapshot(model: str, example: str) -> None:
    with pytest.raises(InputError) as err:
        check_pinned(model)
    assert f"(e.g. '{example}')" in str(err.value)


def test_vendor() -> None:
    assert vendor("openai/gpt-4o@2024-08-06") == "openai"
