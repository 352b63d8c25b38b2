"""The judge's verdict cache: valid verdicts only, in a table of the harness's SQLite file."""

from __future__ import annotations

import json
import sqlite3
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import evals
from evals.run.cache import BUSY_TIMEOUT_S, is_locked, open_cache_db


class VerdictCache:
    """Valid verdicts in a table of the harness's SQLite cache file; invalid replies never enter."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Set when another process holds the file locked: the judge goes on without it.
        self.locked = False
        self._db = open_cache_db(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS judge_verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)"
        )

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached verdict, or None (a damaged entry is a miss: the judge is asked again)."""
        if self.locked:
            return None
        try:
            row = self._db.execute(
                "SELECT verdict FROM judge_verdicts WHERE key = ?", (key,)
            ).fetchone()
            hit = json.loads(row[0]) if row else None
        except sqlite3.Error as exc:
            self._lock_out(exc)
            return None
        except (ValueError, TypeError):
            return None
        return hit if isinstance(hit, dict) else None

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Store a valid verdict; a failed write only costs a request next time."""
        if self.locked:
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO judge_verdicts (key, verdict) VALUES (?, ?)",
                (key, json.dumps(verdict, ensure_ascii=False)),
            )
        except sqlite3.Error as exc:
            self._lock_out(exc)

    def _lock_out(self, exc: sqlite3.Error) -> None:
        # Each write would wait for the lock again: after one wait, the cache is left alone.
        if is_locked(exc) and not self.locked:
            self.locked = True
            print(
                f"warning: the judge's cache {self.path} is locked by another process after "
                f"{BUSY_TIMEOUT_S:g} s; the judge goes on without it (verdicts are not stored)",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        self._db.close()


def package_version() -> str:
    """The harness's version (part of every verdict's cache key)."""
    # Falls back to the installed metadata when `evals` was imported as a bare namespace.
    return getattr(evals, "__version__", None) or metadata.version("evals")
