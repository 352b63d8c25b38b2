"""The files of an offline RAG evaluation beside its cases: the chunks (the passages a case
retrieves) and the claim annotations of the saved answers."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from evals.errors import InputError, Problem
from evals.interchange.formats import Mapped
from evals.interchange.reading import read_csv, read_text
from evals.reply import Claim


def read_chunks(path: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    """chunk_id -> retrieved passage {ref, text[, title]}, and remarks on columns left out."""
    problems: list[Problem] = []
    header, rows = read_csv(path, read_text(path), problems)
    for col in ("chunk_id", "text"):
        if header and col not in header:
            problems.append(Problem(str(path), "line 1", f"missing column {col!r}"))
    chunks: dict[str, dict[str, str]] = {}
    for n, row in rows if not problems else []:
        cid, text = row["chunk_id"].strip(), row["text"].strip()
        if not cid or not text:
            problems.append(Problem(str(path), f"line {n}", "chunk_id and text must not be empty"))
        elif cid in chunks:
            problems.append(Problem(str(path), f"line {n}", f"duplicate chunk_id {cid!r}"))
        else:
            chunks[cid] = {"ref": cid, "text": text} | (
                {"title": row["title"]} if row.get("title") else {}
            )
    if problems:
        raise InputError(problems)
    ignored = [h for h in header if h not in ("chunk_id", "text", "title")]
    remarks = (
        [f"{path}: column(s) with no case field, not imported: {', '.join(ignored)}"]
        if ignored
        else []
    )
    return chunks, remarks


def read_claims(
    path: Path, chunks: dict[str, dict[str, str]] | None
) -> tuple[dict[str, list[Claim]], list[Problem]]:
    """`case_id, claim, support_chunk_ids`: each saved answer's claims, annotated by a person
    with the chunks that support them (an empty cell: the knowledge base does not)."""
    problems: list[Problem] = []
    header, rows = read_csv(path, read_text(path), problems)
    for col in ("case_id", "claim", "support_chunk_ids"):
        if header and col not in header:
            problems.append(Problem(str(path), "line 1", f"missing column {col!r}"))
    out: dict[str, list[Claim]] = defaultdict(list)
    for n, row in rows if not problems else []:
        cid, claim = row["case_id"].strip(), row["claim"].strip()
        support = [c for c in re.split(r"[|,;\s]+", row["support_chunk_ids"]) if c]
        if not cid or not claim:
            problems.append(Problem(str(path), f"line {n}", "case_id and claim must not be empty"))
            continue
        unknown = [c for c in support if chunks is not None and c not in chunks]
        if unknown:
            problems.append(
                Problem(
                    str(path),
                    f"line {n}/support_chunk_ids",
                    f"not in the chunks file: {', '.join(unknown)}",
                )
            )
        out[cid].append({"claim": claim, "support": support})
    return dict(out), problems


def attach_claims(
    path: Path, claims: dict[str, list[Claim]], mapped: list[Mapped], problems: list[Problem]
) -> None:
    """Claims go with the saved answer they annotate; every imported case is graded on claim
    support, so an answerable one whose answer nobody annotated scores 0, as it should."""
    by_id = {m.raw_id: m for m in mapped if m.raw_id is not None}
    for cid in claims:
        m = by_id.get(cid)
        if m is None:
            problems.append(Problem(str(path), "", f"claims for case_id {cid!r}: no such case"))
        elif m.answer is None:
            problems.append(
                Problem(str(path), "", f"claims for case_id {cid!r}, which has no saved answer")
            )
    for m in mapped:
        m.data.setdefault("expect", {})["claim_support"] = True
        if m.answer is not None and m.raw_id in claims:
            m.answer["claims"] = claims[m.raw_id]
