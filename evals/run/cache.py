"""A local answer cache (SQLite, git-ignored): the same request is never paid for twice.

The key is a SHA-256 over everything that shapes the answer: the endpoint, the pinned
model, the full messages, every generation setting and the epoch. Only successful
replies are stored; an error is never cached. API keys are never part of a key or a value.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from evals.reply import Reply
from evals.run.grade_cache import GradeCache
from evals.suite.folder import SuiteSettings

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    reply TEXT NOT NULL
)
"""


def cache_key(material: dict[str, Any], epoch: int) -> str:
    """The cache key of one request: canonical JSON of its material plus the epoch, hashed."""
    blob = json.dumps({"request": material, "epoch": epoch}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


_FIELDS = ("answer", "retrieved", "cited", "abstained", "usage", "latency_ms", "resolved_model")


def _reply_json(reply: Reply) -> str:
    return json.dumps({k: getattr(reply, k) for k in _FIELDS}, ensure_ascii=False)


def _decode(value: str) -> Reply | None:
    """A stored reply, or None when the entry is damaged."""
    try:
        data = json.loads(value)
        reply = Reply(cached=True, **{k: data.get(k) for k in _FIELDS})
    except (ValueError, TypeError, AttributeError):
        return None
    return reply if isinstance(reply.answer, str) else None


#: How long a read or write waits for another process's lock on the cache file. The cache
#: only saves requests: a run does better to go on without it than to wait (sqlite's 30 s
#: per write made a 2-case run take a minute behind a held lock).
BUSY_TIMEOUT_S = 2.0


def is_locked(exc: sqlite3.Error) -> bool:
    """Whether sqlite gave up waiting for another connection's lock."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def open_cache_db(path: Path) -> sqlite3.Connection:
    """The harness's SQLite cache file in WAL mode, its folder created and git-ignored;
    waits at most BUSY_TIMEOUT_S for a lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A .gitignore inside the folder keeps it out of git even in a project that forgot to.
    ignore = path.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


class AnswerCache:
    """Reads go straight to SQLite; writes are batched and committed every second or at close."""

    def __init__(self, path: Path, *, batch_s: float = 1.0) -> None:
        self.path = path
        self._db = open_cache_db(path)
        self._db.execute(_SCHEMA)
        # Keyed, so a miss is one lookup however many replies wait for the next write.
        self._pending: dict[str, tuple[str, str, float, str]] = {}
        self._last_flush = time.monotonic()
        self._batch_s = batch_s
        self.hits = 0
        self.stores = 0
        self.write_failed = False
        #: Set when another process holds the file locked: no more reads or writes this run.
        self.locked = False
        self._prefetched: dict[str, str] = {}
        self._prefetched_keys: frozenset[str] = frozenset()
        # Replies `prefetched` decoded, handed out again by `get`: one decode per reply.
        self._decoded: dict[str, Reply] = {}
        self._grades: GradeCache | None = None

    def grade_cache(self, settings: SuiteSettings, suite_dir: Path | None = None) -> GradeCache:
        """The check results stored beside the answers, written when this cache closes."""
        if self._grades is None:
            self._grades = GradeCache(self._db, settings, suite_dir)
            self._grades.broken = self._grades.broken or self.locked
        return self._grades

    def prefetch(self, keys: list[str]) -> None:
        """Read the stored replies of all `keys` in one query; `get` then answers from them.

        A cached re-run of thousands of cases makes one round trip to SQLite, not one per case.
        """
        try:
            found = self._db.execute(
                "SELECT key, reply FROM answers WHERE key IN (SELECT value FROM json_each(?))",
                (json.dumps(keys),),
            ).fetchall()
        except sqlite3.Error as exc:
            if is_locked(exc):
                self._lock_out(exc)
            return  # an unreadable store: every key is asked for (and missed) one by one
        self._prefetched = dict(found)
        self._prefetched_keys = frozenset(keys)

    def prefetched(self, key: str) -> Reply | None:
        """The reply `prefetch` read for `key`, or None (not counted as a hit); `get` later
        returns this same object."""
        if key in self._decoded:
            return self._decoded[key]
        value = self._prefetched.get(key)
        reply = _decode(value) if value is not None else None
        if reply is not None:
            self._decoded[key] = reply
        return reply

    def get(self, key: str) -> Reply | None:
        """The cached reply, or None; a damaged entry or an unreadable store is a miss."""
        if key in self._decoded:
            self.hits += 1
            return self._decoded[key]
        if self.locked:
            row = None
        elif key in self._prefetched_keys:
            # Read by `prefetch`; a key it did not find can only be among the pending writes.
            value = self._prefetched.get(key)
            row = (value,) if value is not None else None
        else:
            try:
                row = self._db.execute("SELECT reply FROM answers WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                if is_locked(exc):
                    self._lock_out(exc)
                row = None
        if row is None and key in self._pending:
            row = (self._pending[key][3],)
        reply = _decode(row[0]) if row is not None else None
        if reply is not None:
            self.hits += 1
        return reply

    def _lock_out(self, exc: sqlite3.Error) -> None:
        """Another process holds the file: say so once, then go on without the cache."""
        if not self.locked:
            print(
                f"warning: the cache {self.path} is locked by another process ({exc}) after "
                f"{BUSY_TIMEOUT_S:g} s; this run goes on without it: nothing more is read "
                "from it or stored in it",
                file=sys.stderr,
                flush=True,
            )
        self.locked = True
        self._pending.clear()
        if self._grades is not None:
            self._grades.broken = True

    def put(self, key: str, model: str, reply: Reply) -> None:
        """Store a successful reply (the caller never passes an error)."""
        if self.locked:
            return
        self._pending[key] = (key, model, time.time(), _reply_json(reply))
        self.stores += 1
        if time.monotonic() - self._last_flush >= self._batch_s:
            self.flush()

    def flush(self) -> None:
        """Write the pending replies; a failed write (locked, disk full) only costs requests."""
        if self._pending:
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany(
                        "INSERT OR REPLACE INTO answers (key, model, created, reply) "
                        "VALUES (?,?,?,?)",
                        list(self._pending.values()),
                    )
            except sqlite3.Error as exc:
                if is_locked(exc):
                    self._lock_out(exc)
                elif not self.write_failed:
                    print(
                        f"warning: answer cache not written ({self.path}: {exc})", file=sys.stderr
                    )
                self.write_failed = True
            self._pending.clear()
        self._last_flush = time.monotonic()

    def close(self) -> None:
        self.flush()
        if self._grades is not None:
            self._grades.flush()
        self._db.close()
