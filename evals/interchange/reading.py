"""Reading outside golden-set files as spreadsheets and tools save them: JSONL or a JSON
array, CSV or TSV with any common delimiter, UTF-8 (with or without a BOM) or UTF-16."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.interchange.formats import CSV_COLUMNS

KNOWN_COLUMNS = CSV_COLUMNS | {"chunk_id", "text", "title"} | {"claim", "support_chunk_ids"}


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
        try:
            rec, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(
                    str(path),
                    f"line {exc.lineno}",
                    f"invalid JSON at column {exc.colno}: {exc.msg}",
                )
            )
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
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(str(path), f"line {n}", f"invalid JSON at column {exc.colno}: {exc.msg}")
            )
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
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter(path, text))
    # Known columns match whatever their case ("Question", "CASE_ID"); others keep their name.
    header = [
        h.strip().lower() if h.strip().lower() in KNOWN_COLUMNS else h.strip()
        for h in reader.fieldnames or []
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
    for row in reader:
        # A quoted cell may span lines: a record is named by the line it starts on.
        n, end = end + 1, reader.line_num
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
