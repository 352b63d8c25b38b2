"""The run-file format: a header line, one line per case, a summary line; append-only JSONL."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

from evals.errors import InputError, Problem, pointer
from evals.providers.masking import printable
from evals.run.repeats import repeated_rows
from evals.run.slim import slimmer
from evals.suite.compiled_schema import Check, compile_schema
from evals.suite.jsonl import parse_record
from evals.suite.schemas import schema


def utc_now() -> dt.datetime:
    """The current time, timezone-aware, in UTC."""
    return dt.datetime.now(dt.UTC)


def iso_z(when: dt.datetime | None = None) -> str:
    """A UTC time (default: now) as ISO 8601 with a `Z`, as run files and the ledger stamp it."""
    return (when or utc_now()).isoformat().replace("+00:00", "Z")


_STAMPED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}")


def run_file_name(created: dt.datetime, prompt_sha: str, label: str | None = None) -> str:
    """`<UTC timestamp>_<prompt sha 7>[_<label>].jsonl`."""
    stamp = created.strftime("%Y-%m-%dT%H-%M-%S-%fZ")
    name = f"{stamp}_{prompt_sha[:7]}"
    if label:
        name += "_" + re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-")[:60]
    return name + ".jsonl"


def record_line(record: dict[str, Any]) -> str:
    """One JSONL line. Text that UTF-8 cannot hold (a lone surrogate from a model or an app)
    is written as a JSON escape instead of crashing the run and losing the row.

    Raises ValueError for a record that is not JSON (NaN or infinity, which `json` would
    write as the non-JSON `NaN`; a value of no JSON type; a circular reference): such a
    line would make the whole file unreadable.
    """
    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        if "Circular" in str(exc):
            raise ValueError("the record refers to itself (not JSON)") from None
        raise ValueError("the record holds a number that is not finite (NaN or infinity)") from None
    except TypeError as exc:
        raise ValueError(f"the record holds a value of no JSON type ({exc})") from None
    except RecursionError:
        raise ValueError("the record is nested too deeply to write") from None
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return line + "\n"


def unwritable(path: Path | str, exc: OSError) -> str:
    """`could not write PATH: reason` for an OSError (a full disk, a folder in the way)."""
    return f"could not write {path}: {exc.strerror or exc}"


class OutputError(Exception):
    """An output file could not be written (exit 3): the message says which and why."""


def write_whole(path: Path, text: str) -> None:
    """Write beside the file, then rename over it: never half a file; OutputError when it
    cannot be written (nothing is left behind then)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise OutputError(unwritable(path, exc)) from None


class RunWriter:
    """Appends records and fsyncs each one, so an interrupted run leaves a readable file.

    A record is written whole or not at all: when a write fails part-way (a full disk, a
    file size limit), the file is cut back to the end of the last whole record and the
    writer refuses every later record, so the rows written stay readable and resumable.
    The OSError is raised for the run to stop on.
    """

    def __init__(self, path: Path, *, resume: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # "x" refuses to overwrite an existing run file; resume appends to one. Unbuffered,
        # so no failed bytes can linger in a buffer and reach the file later.
        self._fh: IO[bytes] = open(path, "ab" if resume else "xb", buffering=0)  # noqa: SIM115
        self._good = os.fstat(self._fh.fileno()).st_size
        #: The failure that stopped this writer, if any.
        self.failed: OSError | None = None

    def _append(self, record: dict[str, Any]) -> None:
        data = record_line(record).encode("utf-8")  # ValueError before the file is touched
        if self.failed is not None:
            raise self.failed
        view = memoryview(data)
        try:
            while view:
                view = view[self._fh.write(view) or 0 :]
        except OSError as exc:
            self.failed = exc
            with contextlib.suppress(OSError):  # cutting back frees space: it can succeed
                os.ftruncate(self._fh.fileno(), self._good)
            raise
        self._good += len(data)

    def write(self, record: dict[str, Any]) -> None:
        self._append(record)
        self.sync()

    def sync(self) -> None:
        try:
            os.fsync(self._fh.fileno())
        except OSError as exc:
            self.failed = exc
            raise

    def close(self) -> None:
        """Close; the last fsync is skipped once a write failed (there is nothing to save)."""
        if self._fh.closed:
            return
        try:
            if self.failed is None:
                self.sync()
        finally:
            self._fh.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class RunFile:
    """A parsed run file. `truncated` is set when the last line was cut off mid-write."""

    path: Path
    header: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    truncated: bool = False
    warnings: list[str] = field(default_factory=list)
    #: `batch` records of a batch run: input files uploaded, batches created and ended.
    batches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.header.get("run_id", self.path.stem)

    @property
    def complete(self) -> bool:
        return bool(self.summary and self.summary.get("completed"))


#: The run-file format this harness writes and reads (the header's `format`).
FORMAT_VERSION = 1
_DEFS = {"run": "header", "case": "row", "summary": "summary", "batch": "batch"}


def _header_problems(where: str, n: int, header: dict[str, Any]) -> list[Problem]:
    """What the schema cannot say of a header: a format this harness does not read."""
    fmt = header.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        return [
            Problem(
                where,
                f"line {n}/format",
                f"run-file format {fmt}, but this version of evals reads format "
                f"{FORMAT_VERSION} only",
            )
        ]
    return []


@cache
def record_checks() -> dict[str, Check]:
    """The compiled run-file schema for each record kind (header, case row, summary)."""
    run_schema = schema("run.schema.json")
    return {kind: compile_schema(run_schema, f"#/$defs/{d}") for kind, d in _DEFS.items()}


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line with its newline) of a text file, from 1; only `\n` ends a line
    (U+2028 or a lone `\r` may sit raw inside a JSON string)."""
    with open(path, encoding="utf-8", newline="\n") as fh:
        yield from enumerate(fh, 1)


def _json_kind(value: Any) -> str:
    """What a JSON value that is not an object is, in JSON's own words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "array"


def read_run(
    path: Path,
    *,
    slim: bool = False,
    keep: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
) -> RunFile:
    """Read a run file; a truncated last line is reported, any other damage is an error.

    Every record is checked against schemas/run.schema.json (compiled), so the commands
    reading it meet only the shapes the schema promises: a damaged or hand-edited file is
    one problem per bad line (file, line and JSON pointer), exit 2, never a traceback.
    The file is read line by line (only the rows are kept); with `slim`, each row as a
    comparison reads it (`run/slim.py`); with `keep`, what it returns for each valid row (None:
    the row is not kept), so a reader can keep counts instead of rows.
    """
    if not path.is_file():
        raise InputError([Problem(str(path), "", "run file does not exist")])
    try:
        return _read_run(path, keep or (slimmer() if slim else None))
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), "", f"not UTF-8: {exc}")]) from None


def _read_run(path: Path, keep: Callable[[dict[str, Any]], Any] | None) -> RunFile:
    lines = iter_lines(path)
    header: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = []
    batches: list[dict[str, Any]] = []
    # A hash per (case, epoch), not a dict of them: 100,000 rows' keys held as tuples took
    # 25 MB. Only when two hashes agree is the file read again for the exact pairs.
    seen = array("q")
    summary = None
    truncated = False
    warnings: list[tuple[int, str]] = []
    problems: list[Problem] = []
    checks = record_checks()
    for n, line in lines:
        if not line.strip():
            continue
        if len(problems) >= 20:
            problems.append(Problem(str(path), "", "more problems not shown"))
            break
        try:
            rec = parse_record(line)
        except ValueError as exc:
            deep = str(exc).startswith("nested")
            # Only the last line of a file can lack its newline.
            if not line.endswith("\n") and not deep:
                truncated = True
                warnings.append(
                    (n, f"{path}: line {n}: truncated last line ignored (interrupted run)")
                )
                continue
            if header is None:
                # Not a run file at all (a README, a CSV): one line says so, not one per line.
                why = str(exc) if deep else "not a run file (no JSON run header)"
                raise InputError([Problem(str(path), f"line {n}", why)]) from None
            problems.append(Problem(str(path), f"line {n}", str(exc)))
            continue
        if header is not None and not isinstance(rec, dict):
            # `null`, `5`, `[1]` are JSON but no record: every reader below expects an object.
            shown = printable(line.strip(), one_line=True)[:40]
            problems.append(
                Problem(
                    str(path),
                    f"line {n}",
                    f"{shown}: a JSON {_json_kind(rec)}, not a record (a JSON object)",
                )
            )
            continue
        kind = rec.get("kind") if isinstance(rec, dict) else None
        if header is None and kind != "run":
            raise InputError(
                [
                    Problem(
                        str(path), f"line {n}", "not a run file (its first record is no run header)"
                    )
                ]
            )
        check = checks.get(kind) if isinstance(kind, str) else None
        failure = check(rec) if check is not None else None
        if failure is not None:
            where, message = failure
            at = f"line {n}{pointer(list(where))}" if where else f"line {n}"
            problems.append(Problem(str(path), at, message))
            if kind == "run" and header is None:
                header = rec  # the rest is still read, so every bad line is named at once
            continue
        if kind == "run":
            if header is not None:
                problems.append(Problem(str(path), f"line {n}", "second header record"))
            header = rec
            problems += _header_problems(str(path), n, rec)
            continue
        if header is not None and rec.get("run_id", header.get("run_id")) != header.get("run_id"):
            # A line pasted in from another run is counted as this run's: say so.
            other, own = printable(str(rec["run_id"]), one_line=True)[:80], header.get("run_id")
            warnings.append(
                (
                    n,
                    f"{path}: line {n}: a {kind} record of run {other!r}, not of this run "
                    f"({printable(str(own), one_line=True)[:80]!r}); read as this run's",
                )
            )
        if kind == "case":
            seen.append(hash((rec["case"], rec.get("epoch", 0))))
            kept = keep(rec) if keep is not None else rec
            if kept is not None:
                rows.append(kept)
        elif kind == "summary":
            if summary is not None:
                problems.append(Problem(str(path), f"line {n}", "second summary record"))
            summary = rec
        elif kind == "batch":
            batches.append(rec)
        else:
            problems.append(Problem(str(path), f"line {n}", f"unknown record kind {kind!r}"))
    if header is None:
        problems.append(Problem(str(path), "line 1", "no run header record"))
    if problems:
        raise InputError(problems)
    assert header is not None
    warnings += repeated_rows(path, seen)
    warnings.sort(key=lambda w: w[0])  # stable: a line's own warnings keep their order
    return RunFile(path, header, rows, summary, truncated, [w for _, w in warnings], batches)


def run_headers(runs_dir: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """(header, path) of every run file in runs_dir by name; files whose first line is not a
    JSON object are passed over, so a stray or half-written file does not stop a scan."""
    for path in sorted(runs_dir.glob("*.jsonl")) if runs_dir.is_dir() else []:
        try:
            with open(path, encoding="utf-8") as fh:
                header = parse_record(fh.readline())
        except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
            continue
        if isinstance(header, dict):
            yield header, path


def resolve_run(ref: str, runs_dir: Path) -> Path:
    """A run file from a path, a run id, `latest` or `baseline`."""
    p = Path(ref)
    if p.is_file():
        return p
    if ref == "latest":
        files = sorted(runs_dir.glob("*.jsonl"))
        if not files:
            raise InputError(f"no run files in {runs_dir}")
        # Run files are named by their UTC start; a hand-named file (merged.jsonl) must not
        # shadow them just because its name sorts last.
        stamped = [f for f in files if _STAMPED.match(f.name)]
        return (stamped or files)[-1]
    if ref == "baseline":
        pointer_file = runs_dir / "BASELINE"
        if not pointer_file.is_file():
            raise InputError(f"no baseline set: {pointer_file} is missing (see `invoke baseline`)")
        target = pointer_file.read_text("utf-8").strip()
        for candidate in (Path(target), runs_dir / target):
            if target and candidate.is_file():
                return candidate
        raise InputError(
            f"{pointer_file} points at {target!r}, which does not exist "
            "(restore that run file or set another with `invoke baseline RUN`)"
        )
    candidate = runs_dir / (ref if ref.endswith(".jsonl") else ref + ".jsonl")
    if candidate.is_file():
        return candidate
    raise InputError(
        f"no run file {ref!r} (not a path, a run id in {runs_dir}, 'latest' or 'baseline')"
    )
