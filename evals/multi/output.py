"""Where a many-run command's result goes: a page and a file written whole, or the terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from evals.run.files import OutputError, write_whole


def emit(text: str, out: str | None, html: str | None, page: Callable[[], str]) -> bool:
    """Write the page to `html` and the text to `out` (each whole or not at all, saying so on
    stderr), else print the text; False, with the reason on stderr, when a file could not
    be written. `page` is only built when a page is asked for."""
    try:
        if html:
            write_whole(Path(html), page())
            print(f"wrote {html}", file=sys.stderr)
        if out:
            write_whole(Path(out), text)
            print(f"wrote {out}", file=sys.stderr)
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return False
    if not out:
        sys.stdout.write(text)
    return True
