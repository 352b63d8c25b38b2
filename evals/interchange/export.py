"""`invoke export`: the suite's cases as one JSONL file of canonical case objects."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evals.checks.loading import load_cases
from evals.errors import InputError, Problem
from evals.run.files import OutputError, write_whole
from evals.suite.case import canonical_data

EXPORT_FORMATS = ("jsonl",)


def export_lines(suite_dir: str | None) -> list[str]:
    """One compact JSON line per valid case, in id order; any invalid case stops the export."""
    from evals.cli import suite_at

    cases, _ = load_cases(suite_at(suite_dir), strict=True)
    return [
        json.dumps(canonical_data(c.data), ensure_ascii=False) + "\n"
        for c in sorted(cases, key=lambda c: c.id)
    ]


def cmd_export(fmt: str, out: str | None, suite_dir: str | None, force: bool) -> int:
    """Write to --out (never over an existing file unless --force), else to stdout."""
    from evals.cli import EXIT_ERROR, EXIT_OK

    if fmt not in EXPORT_FORMATS:
        raise InputError(f"--format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")
    lines = export_lines(suite_dir)
    if out in (None, "-"):
        sys.stdout.writelines(lines)
        return EXIT_OK
    path = Path(out)
    if path.is_dir():
        print(f"could not write {path}: it is a folder", file=sys.stderr)
        return EXIT_ERROR
    if path.exists() and not force:
        raise InputError([Problem(str(path), "", "already exists; not overwritten (use --force)")])
    try:  # whole or not at all: no half-written file, no .tmp left behind
        write_whole(path, "".join(lines))
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_ERROR
    print(f"exported {len(lines)} case(s) to {path}", file=sys.stderr)
    return EXIT_OK
