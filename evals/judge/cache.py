"""The judge's verdict cache: valid verdicts only, in a table of the harness's SQLite file."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from importlib import metadata
from pathlib import Path
from typing import Any

import evals
from evals.run.cache import open_cache_db


class VerdictCache:
    """Valid verdicts in a table of the harness's SQLite cache file; invalid replies never enter."""

    def __init__(self, path: Path) -> None:
        self._db = open_cache_db(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS judge_verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)"
        )

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached verdict, or None (a damaged entry is a miss: the judge is asked again)."""
        try:
            row = self._db.execute(
                "SELECT verdict FROM judge_verdicts WHERE key = ?", (key,)
            ).fetchone()
            hit = json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError, TypeError):
            return None
        return hit if isinstance(hit, dict) else None

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Store a valid verdict; a failed write only costs a request next time."""
        with contextlib.suppress(sqlite3.Error):
            self._db.execute(
                "INSERT OR REPLACE INTO judge_verdicts (key, verdict) VALUES (?, ?)",
                (key, json.dumps(verdict, ensure_ascii=False)),
            )

    def close(self) -> None:
        self._db.close()


def package_version() -> str:
    """The harness's version (part of every verdict's cache key)."""
    # Falls back to the installed metadata when `evals` was imported as a bare namespace.
    return getattr(evals, "__version__", None) or metadata.version("evals")
