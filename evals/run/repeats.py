"""Rows of a run file that repeat an earlier row's case and epoch, named by line.

The reader remembers a hash of each row's (case, epoch) in an array: 100,000 rows' keys held
as tuples in a dict took 25 MB. Only when two hashes agree is the file read again here.
"""

from __future__ import annotations

from array import array
from pathlib import Path

from evals.providers.masking import printable
from evals.suite.jsonl import parse_record


def repeated_rows(path: Path, seen: array[int]) -> list[tuple[int, str]]:
    """(line, warning) for each row that repeats an earlier row's case and epoch.

    `seen` holds a hash of every row's (case, epoch) in file order; the file (already found
    valid) is read again only when two hashes agree, to name the exact pairs."""
    ordered = sorted(seen)
    alike = {h for h, nxt in zip(ordered, ordered[1:], strict=False) if h == nxt}
    del ordered
    if not alike:
        return []
    out: list[tuple[int, str]] = []
    row_at: dict[tuple[str, int], int] = {}
    with open(path, encoding="utf-8", newline="\n") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rec = parse_record(line)
            except ValueError:
                continue  # a truncated last line: warned of already
            if not isinstance(rec, dict) or rec.get("kind") != "case":
                continue
            pair = (rec["case"], rec.get("epoch", 0))
            if hash(pair) not in alike:
                continue
            if pair in row_at:
                # Hand-assembled files may repeat a case on purpose; a count must not hide it.
                out.append(
                    (
                        n,
                        f"{path}: line {n}: a second row for case "
                        f"{printable(str(pair[0]), one_line=True)[:80]!r}, epoch {pair[1]} "
                        f"(the first is line {row_at[pair]}); both are read",
                    )
                )
            row_at[pair] = n
    return out
