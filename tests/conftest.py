"""Shared fixtures: the loopback OpenAI-compatible server (see tests/openai_server.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The tests import this checkout's package (the editable install can resolve `evals` as a
# namespace package without its __init__), and the helpers next to this file.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from openai_server import OpenAIServer  # noqa: E402


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A fresh server on 127.0.0.1 with no latency; stopped after the test."""
    with OpenAIServer() as srv:
        yield srv
