"""Shared plumbing for the invoke tasks: settings, suites, and turning errors into exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from evals.config import Settings, load_settings
from evals.errors import InputError
from evals.suite.folder import Suite, open_suite

# Stable exit codes: CI depends on them (see README).
EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_ERROR = 3

T = TypeVar("T")


def settings() -> Settings:
    """The [tool.evals] settings of the project around the working directory."""
    return load_settings(Path.cwd())


def suite_at(path: str | None) -> Suite:
    """The suite given by --suite, else the configured default."""
    s = settings()
    return open_suite(path or (s.root / s.suite))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with what to do next (e.g. the exact `invoke run --resume` command)."""

    def __init__(self, hint: str) -> None:
        super().__init__(hint)
        self.hint = hint


def guarded(fn: Callable[[], int]) -> int:
    """Run a command body; bad input prints its problems (no traceback) and gives exit 2."""
    try:
        return fn()
    except InputError as exc:
        for line in exc.lines():
            print(line, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        hint = exc.hint if isinstance(exc, Interrupted) else ""
        print(f"interrupted; {hint}" if hint else "interrupted", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, with the code a shell gives SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
