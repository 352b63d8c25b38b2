"""Reading outside golden-set files as spreadsheets and tools save them: JSONL or a JSON
array, CSV or TSV with any common delimiter, UTF-8 (with or without a BOM) or UTF-16."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem, pointer
from evals.interchange.formats import CSV_COLUMNS

KNOWN_COLUMNS = CSV_COLUMNS | {"chunk_id", "text", "title"} | {"claim", "support_chunk_ids"}

#: A record nested deeper than this is refused before it is parsed (as run files are): a
#: case is a few levels deep, and parsing thousands of levels exhausts the recursion.
MAX_DEPTH = 64
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONProblem(ValueError):
    """Why a piece of JSON cannot be imported, in one line."""


def too_deep(text: str, start: int = 0) -> int | None:
    """The offset where `text` (from `start`) nests deeper than MAX_DEPTH, or None."""
    depth = 0
    for m in _STRUCTURE.finditer(text, start):
        token = m.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif token in ("]", "}"):
            depth -= 1
    return None


def surrogate_at(value: Any, path: tuple[Any, ...] = ()) -> str | None:
    """The JSON pointer of the first string (or key) holding a lone UTF-16 surrogate."""
    if isinstance(value, str):
        return pointer(path) if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = surrogate_at(k, path) or surrogate_at(v, (*path, k))
            if found:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = surrogate_at(v, (*path, i))
            if found:
                return found
    return None


def _checked(rec: Any) -> Any:
    where = surrogate_at(rec)
    if where is not None:
        # "\ud800" alone is valid JSON but no text: it cannot be written as UTF-8.
        raise JSONProblem(f"a lone UTF-16 surrogate (not text) at {where}")
    return rec


def parse_json(text: str) -> Any:
    """One JSON value, or JSONProblem saying why not (bad syntax, too deep, a number too
    long to read, a lone surrogate)."""
    if too_deep(text) is not None:
        raise JSONProblem(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return _checked(json.loads(text))
    except json.JSONDecodeError as exc:
        raise JSONProblem(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
    except JSONProblem:
        raise
    except (RecursionError, ValueError) as exc:
        raise JSONProblem(parse_failure(exc)) from None


def parse_failure(exc: BaseException) -> str:
    """What went wrong reading JSON that the decoder refused with other than a syntax error."""
    if isinstance(exc, RecursionError):
        return f"nested deeper than {MAX_DEPTH} levels"
    # Python refuses to read an integer of more than 4,300 digits (a denial-of-service guard).
    return f"a number too long to read (more than {sys.get_int_max_str_digits():,} digits)"


def read_json_array(
    path: Path, text: str, problems: list[Problem]
) -> list[tuple[int, dict[str, Any]]]:
    """A JSON file holding one array of records, each named by the line it starts on."""
    decoder = json.JSONDecoder()
    out: list[tuple[int, dict[str, Any]]] = []
    pos = text.index("[") + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        line = text.count("\n", 0, pos) + 1
        deep = too_deep(text, pos)
        try:
            if deep is not None:
                line = text.count("\n", 0, deep) + 1
                raise JSONProblem(f"nested deeper than {MAX_DEPTH} levels")
            rec, pos = decoder.raw_decode(text, pos)
            _checked(rec)
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(
                    str(path),
                    f"line {exc.lineno}",
                    f"invalid JSON at column {exc.colno}: {exc.msg}",
                )
            )
            break
        except (JSONProblem, RecursionError, ValueError) as exc:
            why = str(exc) if isinstance(exc, JSONProblem) else parse_failure(exc)
            problems.append(Problem(str(path), f"line {line}", why))
            break
        if isinstance(rec, dict):
            out.append((line, rec))
        else:
            problems.append(Problem(str(path), f"line {line}", "not a JSON object"))
    return out


def read_jsonl(path: Path, text: str, problems: list[Problem]) -> list[tuple[int, dict[str, Any]]]:
    """One JSON object per line; a file that is one JSON array of objects is read too."""
    if text.lstrip().startswith("["):
        return read_json_array(path, text, problems)
    out = []
    # Only \n ends a JSONL line: a string may hold U+2028 raw, which splitlines() would cut.
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rec = parse_json(line)
        except JSONProblem as exc:
            problems.append(Problem(str(path), f"line {n}", str(exc)))
            continue
        if not isinstance(rec, dict):
            problems.append(Problem(str(path), f"line {n}", "not a JSON object"))
            continue
        out.append((n, rec))
    return out


def read_csv(
    path: Path, text: str, problems: list[Problem]
) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """Rows keyed by header; a duplicate header or a row with extra cells is a problem."""
    # strict: a quote left open is an error at the end of the file, not a silent cell that
    # swallows every row after it.
    reader = csv.DictReader(
        io.StringIO(text, newline=""), delimiter=delimiter(path, text), strict=True
    )
    try:
        fieldnames = reader.fieldnames or []
    except csv.Error as exc:
        problems.append(Problem(str(path), "line 1", csv_problem(exc, 1)))
        return [], []
    # Known columns match whatever their case ("Question", "CASE_ID"); others keep their name.
    header = [
        h.strip().lower() if h.strip().lower() in KNOWN_COLUMNS else h.strip() for h in fieldnames
    ]
    if not header:
        problems.append(Problem(str(path), "line 1", "no header row"))
        return [], []
    reader.fieldnames = header
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        problems.append(Problem(str(path), "line 1", f"duplicate column(s): {', '.join(dupes)}"))
    rows = []
    end = reader.line_num
    while True:
        # A quoted cell may span lines: a record is named by the line it starts on.
        n = end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(str(path), f"line {n}", csv_problem(exc, n)))
            break
        end = reader.line_num
        if None in row:
            problems.append(
                Problem(str(path), f"line {n}", f"{len(row[None])} cell(s) beyond the header")
            )
            continue
        if all(v in (None, "") for v in row.values()):
            continue
        # Line breaks inside a cell read the same whichever system wrote the file.
        rows.append((n, {k: _lf("" if v is None else v) for k, v in row.items()}))
    return header, rows


def csv_problem(exc: csv.Error, line: int) -> str:
    """A CSV reader's complaint about the record starting at `line`, in the reader's words."""
    why = str(exc)
    if "unexpected end of data" in why:
        return f"unterminated quote at line {line}: the cell is never closed (nothing after it was read)"
    if "field larger than field limit" in why:
        return (
            f"a cell longer than {csv.field_size_limit():,} characters "
            "(a quote left open swallows the rows after it)"
        )
    return f"not readable as CSV: {why}"


def _lf(cell: str) -> str:
    return cell.replace("\r\n", "\n").replace("\r", "\n")


def delimiter(path: Path, text: str) -> str:
    """Tab for .tsv; else whichever of , ; tab the header line uses most (spreadsheet exports)."""
    if path.suffix.lower() == ".tsv":
        return "\t"
    first = text.split("\n", 1)[0]
    return max((",", ";", "\t"), key=first.count) if first.count(",") == 0 else ","


def read_text(path: Path) -> str:
    """UTF-8 (a BOM is dropped), or UTF-16 with its BOM, as spreadsheets' "Unicode text" saves."""
    if not path.is_file():
        what = "is a directory, not a file" if path.is_dir() else "file does not exist"
        raise InputError([Problem(str(path), "", what)])
    raw = path.read_bytes()
    try:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return raw.decode("utf-16")
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), "", f"not UTF-8 (byte {exc.start})")]) from None
