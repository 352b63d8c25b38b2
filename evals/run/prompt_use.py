"""Which systems under test read the suite's prompt.txt, and the note when one does not.

The first loop a newcomer tries is: edit the prompt, run, diff. With the offline model (or
saved answers, or a --target app, which is not sent the prompt) that loop shows no change
however the prompt changed; the run and the diff say so instead of letting "all the same"
pass for "the prompt made no difference".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: How to see a prompt change without a paid key (the README section of that name).
LOCAL_SERVER = (
    "to see a prompt change without a paid key, run against a local OpenAI-compatible server "
    "(llama.cpp's llama-server, Ollama): README, 'Trying a prompt change without a paid key'"
)

#: Provider kinds (the run header's `provider`) whose answers do not depend on prompt.txt.
UNSEEN = {
    "local": "the offline model (local/extractive) does not read prompt.txt",
    "replay": "saved answers (--answers) were written without this prompt.txt",
    "target": "a --target app is not sent prompt.txt",
}


def run_note(provider: str) -> str | None:
    """The run's closing note when its answers cannot reflect prompt.txt, or None."""
    why = UNSEEN.get(provider)
    return (
        f"note: {why}: editing it changes the prompt sha, not these answers; {LOCAL_SERVER}"
        if why
        else None
    )


def diff_note(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The diff's note when the prompt changed between run headers `a` and `b` but B's
    answers cannot have seen it, or None."""
    sha_a, sha_b = a.get("prompt_sha"), b.get("prompt_sha")
    why = UNSEEN.get(str(b.get("provider")))
    if not why or not sha_a or not sha_b or sha_a == sha_b:
        return None
    return (
        f"note: prompt.txt changed between the runs ({str(sha_a)[:7]} -> {str(sha_b)[:7]}), but "
        f"{why}: the difference below cannot come from the prompt; {LOCAL_SERVER}"
    )


def read_header(path: Path) -> dict[str, Any]:
    """A run file's header record (its first line), or {} when it cannot be read."""
    try:
        with path.open("rb") as fh:
            header = json.loads(fh.readline(1 << 20))
    except (OSError, ValueError, RecursionError):
        return {}
    return header if isinstance(header, dict) else {}
