"""Text from a run file made safe to print or write, whatever the file holds.

A run file is JSON that anyone (or any endpoint) can put anything into: terminal escape
sequences in a run id or a category name, a lone UTF-16 surrogate (`"\\ud800"`) in an
answer. Printed raw, the first rewrites the reader's terminal; the second cannot be encoded
as UTF-8 at all and would stop the report with a traceback.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from evals.run.files import RunFile

# Every C0/C1 control character but tab and newline (ESC and BEL included).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def no_surrogates(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so it encodes as UTF-8."""
    return _SURROGATE.sub(REPLACEMENT, text)


def terminal_text(text: str) -> str:
    """`text` for a terminal: control characters become `?` (line breaks and tabs stay), a
    lone surrogate becomes U+FFFD."""
    return no_surrogates(_CONTROL.sub("?", text))


def terminal_value(value: Any) -> Any:
    """A JSON value with every string in it (keys included) made terminal-safe."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, dict):
        return {terminal_value(k): terminal_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [terminal_value(v) for v in value]
    return value


def terminal_run(run: RunFile) -> RunFile:
    """The run file with every string in its records made terminal-safe."""
    return dataclasses.replace(
        run,
        header=terminal_value(run.header),
        rows=terminal_value(run.rows),
        summary=terminal_value(run.summary),
        warnings=terminal_value(run.warnings),
        batches=terminal_value(run.batches),
    )
