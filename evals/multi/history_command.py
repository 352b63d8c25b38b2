"""The `history` command: read the committed baselines, print them, write the chart page."""

from __future__ import annotations

import json

from evals.cli import EXIT_ERROR, EXIT_OK, settings
from evals.compare.baseline import POINTER
from evals.compare.command import guard_internal
from evals.errors import InputError
from evals.multi.history import FORMATS, releases, render_table, to_data
from evals.multi.history_page import render_history_page
from evals.multi.output import emit


def cmd_history(fmt: str = "text", html: str | None = None, out: str | None = None) -> int:
    """Print the committed baselines, oldest first; with --html write the chart page too."""
    return guard_internal("invoke history", lambda: _history(fmt, html, out))


def _history(fmt: str, html: str | None, out: str | None) -> int:
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    cfg = settings()
    items = releases(cfg.root, cfg.runs_path)
    if not items:
        raise InputError(
            f"no commit changed {cfg.runs_path.name}/{POINTER}: there is no committed baseline "
            "yet (`invoke baseline RUN`, then commit both files)"
        )
    text = (
        json.dumps(to_data(items), indent=2) + "\n" if fmt == "json" else render_table(items, fmt)
    )
    if not emit(text, out, html, lambda: render_history_page(items)):
        return EXIT_ERROR
    return EXIT_OK
