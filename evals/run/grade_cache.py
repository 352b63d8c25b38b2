"""Stored check results: a re-run does not grade again a reply whose inputs are unchanged.

A result set is reused only under a key over everything that shapes it: the case's content
sha, every field of the reply a check can read, the suite's settings (suite.toml and
synonyms.toml, as loaded) and a digest of the checks' code (the harness's source, the
files that define every registered check, the function and arguments of one registered
through `functools.partial`, the harness version and the language libraries' installed
files). A suite with its own checks.py adds every file of its folder but its cases, sealed
pile and labels: a module checks.py imports or a word list it reads is code too. Editing any
of them grades again.
A set holding an `error` is never stored: a broken check is asked again, not replayed.
The results live beside the answers in the answer cache's SQLite file.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import sqlite3
import sys
import time
from functools import cache
from pathlib import Path

import evals
from evals.checks import CheckResult
from evals.checks.base import REGISTRY
from evals.checks.grading import grade
from evals.reply import Reply
from evals.suite.case import Case, whole_case_sha
from evals.suite.folder import SuiteSettings

_SCHEMA = """
CREATE TABLE IF NOT EXISTS grades (
    key TEXT PRIMARY KEY,
    created REAL NOT NULL,
    results TEXT NOT NULL
)
"""

#: What a check may read of a reply; `cached` is left out: it says where the reply came
#: from, not what it says, and a re-run's replies all come from the cache.
REPLY_FIELDS = (
    "answer",
    "retrieved",
    "cited",
    "abstained",
    "usage",
    "latency_ms",
    "resolved_model",
    "claims",
    "extra",
)

#: The harness code a check can reach: the checks themselves and the layers beneath them.
_HARNESS_DIRS = ("checks", "suite")
#: Libraries whose behaviour shapes a verdict (stems, stop words, numbers, month names).
_LIBRARIES = ("regex", "snowballstemmer", "Stemmer", "stop_words", "text_to_num", "babel")


@cache
def _harness_files() -> tuple[Path, ...]:
    base = Path(evals.__file__).resolve().parent
    files = sorted(base.glob("*.py"))
    for sub in _HARNESS_DIRS:
        files += sorted((base / sub).glob("*.py"))
    # The language data shipped beside the checks (CLDR's month names) shapes verdicts too.
    files += sorted((base / "checks").glob("*.json"))
    files += sorted((base / "checks" / "languages").glob("*.toml"))
    return tuple(files)


@cache
def _library_stamps() -> str:
    """Each library's installed package file, its size and modification time: an upgrade
    rewrites them. (importlib.metadata's versions cost 13 ms each, more than a re-run may.)"""
    out = []
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        try:
            st = os.stat(origin) if origin else None
        except OSError:
            st = None
        out.append(f"{name}:{origin}:{st.st_size if st else ''}:{st.st_mtime_ns if st else ''}")
    return "\n".join(out)


def _file_digest(path: Path) -> bytes:
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return b"unreadable"


@cache
def _harness_digest() -> bytes:
    h = hashlib.sha256()
    for f in _harness_files():
        h.update(f.name.encode() + _file_digest(f))
    return h.digest()


def _unwrapped(fn: object) -> tuple[object, str]:
    """The function a `functools.partial` (or a partial of one) calls, and its bound
    arguments as text: `check("max_3")(partial(at_most, n=3))` grades by both."""
    bound = []
    while isinstance(fn, functools.partial):
        bound.append(f"{fn.args!r}{sorted(fn.keywords.items())!r}")
        fn = fn.func
    return fn, "".join(bound)


def code_digest(suite_dir: Path | None = None) -> str:
    """A digest of the code that grades: the harness, every registered check's file (read
    now, so an edited checks.py counts), the registry's names, the version, the libraries,
    and, for a suite with its own checks.py, every file of `suite_dir` that code may read."""
    h = hashlib.sha256(_harness_digest())
    h.update(f"{evals.__version__}\n{sys.version}\n{_library_stamps()}".encode())
    known = set(_harness_files())
    for name in sorted(REGISTRY):
        fn, bound = _unwrapped(REGISTRY[name].fn)
        code = getattr(fn, "__code__", None)
        where = Path(code.co_filename) if code is not None else None
        module = getattr(fn, "__module__", "?")
        h.update(f"\n{name}={module}.{getattr(fn, '__qualname__', '?')}{bound}".encode())
        if where is not None and where.resolve() not in known:
            h.update(_file_digest(where))
    if suite_dir is not None and (suite_dir / "checks.py").is_file():
        h.update(suite_files_digest(suite_dir))
    return h.hexdigest()


#: Folders of a suite that hold no code a check runs: the cases (each keyed by its own sha),
#: the sealed pile, the labels (they decide answers after grading), caches.
_NOT_CODE = frozenset({"cases", "sealed", "labelled", "__pycache__"})


def suite_files_digest(suite_dir: Path) -> bytes:
    """A digest of every file in the suite folder outside `_NOT_CODE` (and hidden ones):
    the modules checks.py imports and the data files it reads, by relative path."""
    h = hashlib.sha256()
    for top, dirs, files in os.walk(suite_dir):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_CODE and not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or name.endswith(".pyc"):
                continue
            path = Path(top) / name
            h.update(path.relative_to(suite_dir).as_posix().encode() + b"\0")
            h.update(_file_digest(path))
    return h.digest()


def settings_digest(settings: SuiteSettings) -> str:
    """A digest of every suite setting, synonyms and the suite's own tables included."""
    blob = json.dumps(
        dataclasses.asdict(settings), sort_keys=True, ensure_ascii=False, default=repr
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def grade_key(context: str, case: Case, reply: Reply, whole: bool = False) -> str:
    """The key of one reply's check results to one case, under a run's `context`: by the
    case's content sha, or with `whole` (a suite with its own checks, which may read any
    field, `tags` included) by every field of the case."""
    seen = {k: getattr(reply, k) for k in REPLY_FIELDS}
    sha = whole_case_sha(case.data) if whole else case.sha
    blob = json.dumps([context, sha, seen], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def encode(results: dict[str, CheckResult]) -> str:
    """Check results as stored: in their order, each with status, score and detail."""
    return json.dumps([[n, r.status, r.score, r.detail] for n, r in results.items()])


def decode(text: str) -> dict[str, CheckResult] | None:
    """Stored check results, or None when the entry is damaged (then the reply is graded)."""
    try:
        items = json.loads(text)
        out = {}
        for name, status, score, detail in items:
            ok = isinstance(name, str) and isinstance(detail, str)
            ok = ok and status in ("pass", "fail", "review", "skip")
            ok = ok and (score is None or (isinstance(score, float | int) and 0 <= score <= 1))
            if not ok:
                return None
            out[name] = CheckResult(status, score, detail)
    except (ValueError, TypeError):
        return None
    return out


class GradeCache:
    """The check results of earlier runs, read in one query; new ones written at close."""

    def __init__(
        self, db: sqlite3.Connection, settings: SuiteSettings, suite_dir: Path | None = None
    ) -> None:
        self._db = db
        self.context = f"{code_digest(suite_dir)}:{settings_digest(settings)}"
        self.whole = suite_dir is not None and (suite_dir / "checks.py").is_file()
        self._found: dict[str, str] = {}
        # Keys `prefetch` computed, by the reply object they were computed for: the run grades
        # that same object (the answer cache hands it out again), so its key is not hashed twice.
        self._keys: dict[tuple[str, int], tuple[Reply, str]] = {}
        self._pending: dict[str, tuple[str, float, str]] = {}
        self.broken = False
        try:
            db.execute(_SCHEMA)
        except sqlite3.Error:
            self.broken = True  # unreadable: every reply is graded, nothing is stored

    def prefetch(self, pairs: list[tuple[Case, Reply]]) -> None:
        """Read the stored results of every (case, reply) in one query."""
        if self.broken or not pairs:
            return
        keys = [grade_key(self.context, c, r, self.whole) for c, r in pairs]
        # The reply is kept with its key, so its id cannot be reused by another object.
        # Two identical requests share one reply object: the case is part of the memo's key.
        self._keys.update(((c.sha, id(r)), (r, k)) for (c, r), k in zip(pairs, keys, strict=True))
        try:
            found = self._db.execute(
                "SELECT key, results FROM grades WHERE key IN (SELECT value FROM json_each(?))",
                (json.dumps(keys),),
            ).fetchall()
        except sqlite3.Error:
            return
        self._found.update(found)

    @property
    def n_found(self) -> int:
        """Stored results `prefetch` found."""
        return len(self._found)

    def lookup(self, case: Case, reply: Reply) -> tuple[str, dict[str, CheckResult] | None]:
        """The key of these inputs and their stored results, if any."""
        known = self._keys.pop((case.sha, id(reply)), None)
        if known and known[0] is reply:
            key = known[1]
        else:
            key = grade_key(self.context, case, reply, self.whole)
        stored = self._found.get(key)
        return key, decode(stored) if stored is not None else None

    def keep(self, key: str, results: dict[str, CheckResult]) -> None:
        """Store new results at close; a set holding an error is never stored."""
        if all(r.status != "error" for r in results.values()):
            self._pending[key] = (key, time.time(), encode(results))

    def grade(self, case: Case, reply: Reply, settings: SuiteSettings) -> dict[str, CheckResult]:
        """The stored results for these exact inputs, else the checks run (and are stored)."""
        key, results = self.lookup(case, reply)
        if results is not None:
            return results
        results = grade(case, reply, settings)
        self.keep(key, results)
        return results

    def flush(self) -> None:
        """Write the new results; a failed write only costs grading next time."""
        if self._pending and not self.broken:
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany(
                        "INSERT OR REPLACE INTO grades (key, created, results) VALUES (?,?,?)",
                        list(self._pending.values()),
                    )
            except sqlite3.Error:
                self.broken = True
        self._pending.clear()


def grade_results(
    cache: GradeCache | None, case: Case, reply: Reply, settings: SuiteSettings
) -> dict[str, CheckResult]:
    """Every deterministic check of the case on this reply, reused from `cache` when stored."""
    return cache.grade(case, reply, settings) if cache is not None else grade(case, reply, settings)
