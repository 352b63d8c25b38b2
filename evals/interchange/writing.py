"""Writing an import: every file or none.

A new suite is built in a hidden folder beside its place and renamed into it once whole, so a
failure part-way (a full disk, a file that appeared meanwhile) leaves no half-made suite. An
import into an existing suite creates each file exclusively and removes the ones it wrote
when a later one fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.interchange.judge_prompt import JUDGE_PROMPT
from evals.run.files import OutputError, unwritable
from evals.suite.case import canonical_json
from evals.suite.scaffold import FILES


def _create(path: Path, text: str, written: list[Path], *, replace: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w" if replace else "x", encoding="utf-8") as fh:
        written.append(path)
        fh.write(text)


def _answers_text(answers: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in answers)


@contextlib.contextmanager
def _undo_on_failure(written: list[Path], what: Path) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        for path in reversed(written):
            with contextlib.suppress(OSError):
                path.unlink()
        raise OutputError(unwritable(what, exc) + "; nothing was imported") from None


def write_into(
    cases: list[tuple[Path, dict[str, Any]]],
    judge_prompt: Path | None,
    answers: list[dict[str, Any]],
    answers_path: Path | None,
) -> None:
    """Into an existing suite: each file created exclusively, all removed again on a failure."""
    written: list[Path] = []
    with _undo_on_failure(written, answers_path or (cases[0][0] if cases else Path("."))):
        if judge_prompt is not None:
            _create(judge_prompt, JUDGE_PROMPT, written)
        for path, data in cases:
            _create(path, canonical_json(data), written)
        if answers and answers_path is not None:
            _create(answers_path, _answers_text(answers), written)


def write_new_suite(
    target: Path,
    cases: list[tuple[Path, dict[str, Any]]],
    judge_prompt: Path | None,
    answers: list[dict[str, Any]],
    answers_path: Path | None,
) -> None:
    """A new suite at `target` with the cases (and its answers, when they go outside it),
    staged beside it and renamed into place whole."""
    staging = target.with_name(f".{target.name}.importing-{os.getpid()}")

    def staged(path: Path) -> Path:
        return staging / path.relative_to(target) if path.is_relative_to(target) else path

    outside: list[Path] = []  # an --answers-out file beyond the suite
    try:
        with _undo_on_failure(outside, target):
            (staging / "cases").mkdir(parents=True)
            for name, text in FILES.items():  # the starter files `invoke init` writes
                _create(staging / name, text, [])
            if judge_prompt is not None:  # the import's commented prompt replaces the starter
                _create(staged(judge_prompt), JUDGE_PROMPT, [], replace=True)
            for path, data in cases:
                _create(staged(path), canonical_json(data), [])
            if answers and answers_path is not None:
                dest = staged(answers_path)
                _create(dest, _answers_text(answers), outside if dest == answers_path else [])
            if target.is_dir():
                target.rmdir()  # an empty folder given as --suite (anything in it was refused)
            os.rename(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
