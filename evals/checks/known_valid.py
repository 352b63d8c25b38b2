"""Case files already found valid, remembered by a hash of their bytes (SQLite, git-ignored).

A re-run of an unchanged suite reads each case file, hashes its bytes and, when the hash
is known, takes the case's content sha from here instead of validating it again and
computing it: a thousand unchanged cases load in milliseconds.

A hash is only as good as what validated the file, so every key also covers the rules it
was checked against: the case schema, the source of the code that validates a case (the
`suite` and `checks` packages), the suite's `suite.toml` and `checks.py`, the names of the
checks then registered, and the Python and `regex` versions. Change any of them and every
file is validated again. Only files with no problem at all are remembered.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

import regex

from evals.suite.folder import Suite
from evals.suite.schemas import SCHEMA_DIR

#: The store's file name, beside the answer cache.
KNOWN_VALID = "valid-cases.sqlite"
_PACKAGE = Path(__file__).resolve().parent.parent
# The code whose verdict a remembered hash stands for.
_RULES = ("suite", "checks")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS valid_cases (
    key TEXT PRIMARY KEY,
    sha TEXT NOT NULL
)
"""


def rules_digest(suite: Suite, check_names: set[str]) -> str:
    """A digest of everything that decides whether a case file is valid, besides its bytes."""
    h = hashlib.sha256()
    h.update(f"{sys.version}\0{regex.__version__}\0".encode())
    h.update("\0".join(sorted(check_names)).encode())
    files = [SCHEMA_DIR / "case.schema.json", suite.path / "suite.toml", suite.path / "checks.py"]
    for folder in _RULES:
        files += sorted((_PACKAGE / folder).glob("*.py"))
    for file in files:
        h.update(f"\0{file.name}\0".encode())
        try:
            h.update(file.read_bytes())
        except OSError:
            h.update(b"\0absent")
    return h.hexdigest()


def file_key(rules: str, name: str, raw: bytes) -> str:
    """The key of one case file: its name (the id must match it), its bytes and the rules."""
    return hashlib.sha256(f"{rules}\0{name}\0".encode() + raw).hexdigest()


class KnownValid:
    """The remembered valid case files: read once for a whole suite, written once after."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.found: dict[str, str] = {}
        self.new: dict[str, str] = {}

    def read(self, keys: list[str]) -> None:
        """Look up every key in one query; an unreadable store only means validating again."""
        if not self.path.is_file():
            return
        try:
            db = sqlite3.connect(self.path, timeout=5)
            try:
                self.found = dict(
                    db.execute(
                        "SELECT key, sha FROM valid_cases "
                        "WHERE key IN (SELECT value FROM json_each(?))",
                        (json.dumps(keys),),
                    ).fetchall()
                )
            finally:
                db.close()
        except sqlite3.Error:
            self.found = {}

    def sha(self, key: str) -> str | None:
        """The content sha of a case file known to be valid, else None."""
        return self.found.get(key)

    def remember(self, key: str, sha: str) -> None:
        self.new[key] = sha

    def write(self) -> None:
        """Store the newly validated files; a store that cannot be written costs only time."""
        if not self.new:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
            db = sqlite3.connect(self.path, timeout=5, isolation_level=None)
            try:
                db.execute(_SCHEMA)
                with db:
                    db.execute("BEGIN")
                    db.executemany(
                        "INSERT OR REPLACE INTO valid_cases (key, sha) VALUES (?, ?)",
                        self.new.items(),
                    )
            finally:
                db.close()
        except (OSError, sqlite3.Error):
            pass
        self.new = {}
