"""Answers whose verdict is known: the cases' own drafts and a suite's `labelled/*.jsonl`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import Problem
from evals.reply import Claim, Reply
from evals.run.precedents import Precedent, Precedents, answer_sha, case_reply_sha, reply_sha
from evals.suite.case import Case, parse_json_value
from evals.suite.folder import Suite
from evals.suite.schemas import schema_problems

LABELLED_DIR = "labelled"


@dataclass(frozen=True)
class Labelled:
    """One answer to one case and the verdict a correct check set gives it."""

    case: str
    answer: str
    label: str  # pass | fail
    why: str
    # Where it came from: "reference", "known_right[0]", "labelled/run.jsonl:12".
    source: str
    cited: list[str] | None = None
    retrieved: list[str] | None = None
    abstained: bool | None = None
    style: str | None = None
    #: A person's claim-by-claim annotation of the answer (for `claim_support`).
    claims: list[Claim] | None = None
    #: The case's content sha when labelled: set, the label is a precedent for that content.
    case_sha: str | None = None
    run: str | None = None
    by: str | None = None
    at: str | None = None

    def reply(self) -> Reply:
        """The answer as a system's reply, with the refs it reported (None: not reported)."""
        return Reply(
            answer=self.answer,
            cited=self.cited,
            retrieved=self.retrieved,
            abstained=self.abstained,
            claims=self.claims,
        )


def case_answers(case: Case) -> list[Labelled]:
    """The case's `reference` and `known_right` drafts (pass) and `known_wrong` drafts (fail)."""
    out: list[Labelled] = []
    if case.data.get("reference"):
        why = "the case's reference answer"
        out.append(Labelled(case.id, case.data["reference"], "pass", why, "reference"))
    for field, label in (("known_right", "pass"), ("known_wrong", "fail")):
        for i, d in enumerate(case.data.get(field, [])):
            out.append(
                Labelled(
                    case.id,
                    d["draft"],
                    label,
                    d["why"],
                    f"{field}[{i}]",
                    d.get("cited"),
                    d.get("retrieved"),
                    d.get("abstained"),
                    claims=d.get("claims"),
                )
            )
    return out


def labelled_dir(suite: Suite) -> Path:
    return suite.path / LABELLED_DIR


def labelled_files(suite: Suite) -> list[Path]:
    """The suite's `labelled/*.jsonl`, in name order; none when the folder is absent (or is
    a link, which is refused: see `link_problems`)."""
    folder = labelled_dir(suite)
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file() or p.is_symlink())


LINK_REFUSED = (
    "a symbolic link: refused (labelled/ and its files must be real files of the suite, "
    "not links to text elsewhere)"
)


def item_key(item: Labelled, case: Case | None = None) -> tuple[str, str]:
    """(case, the sha of the reply as the checks read it): one answer, labelled once. With
    the case, a label that reported no retrieval reads the case's frozen passages."""
    if case is None:
        return item.case, reply_sha(item.answer, item.cited, item.retrieved, item.abstained)
    return item.case, case_reply_sha(case, item.answer, item.cited, item.retrieved, item.abstained)


def read_labelled(
    suite: Suite,
    case_ids: Collection[str],
    skipped: list[str] | None = None,
    cut: list[str] | None = None,
) -> tuple[list[Labelled], list[Problem]]:
    """Every valid line of the suite's labelled files and every problem, each at `file:line`.

    A line naming no case in `case_ids` is a problem; so is the same answer labelled twice for
    one case, which would count it twice. The same reply labelled both ways decides nothing:
    neither line is read, and both are named. A link (labelled/ or a file in it) is refused,
    never followed. A last line without its newline that is not JSON is what a write cut
    short leaves (a full disk, a killed page): it is skipped and its `file:line` goes to `cut`.
    When the suite has a sealed pile, a line naming no visible case is taken for an answer of
    a sealed case (whose id cannot be read without the key): it is left out, and its
    `file:line` goes to `skipped` for one note instead of a problem per line.
    """
    sealed = (suite.sealed_dir / "MANIFEST.json").is_file()
    folder = labelled_dir(suite)
    if folder.exists() and not folder.is_dir():
        reason = "is a file: labelled answers go in a labelled/ folder of *.jsonl files"
        return [], [Problem(str(folder), "", reason)]
    if folder.is_symlink():
        return [], [Problem(str(folder), "", LINK_REFUSED)]
    known = case_ids  # only looked up: a FileStems lists the folder once, when first asked
    items: list[Labelled] = []
    problems: list[Problem] = []
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    contradicted: set[tuple[str, str]] = set()
    for path in labelled_files(suite):
        if path.is_symlink():
            problems.append(Problem(str(path), "", LINK_REFUSED))
            continue
        try:
            # utf-8-sig: a file saved by a spreadsheet or Notepad often starts with a BOM.
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            problems.append(Problem(str(path), "", f"not UTF-8 (byte {exc.start})"))
            continue
        except OSError as exc:
            problems.append(Problem(str(path), "", f"cannot read: {exc.strerror or exc}"))
            continue
        rel = f"{LABELLED_DIR}/{path.name}"
        # Split on newlines only: a JSON string may hold U+2028, which splitlines() would cut.
        lines = text.split("\n")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            rec, found = _parse_line(line.rstrip("\r"), where)
            if rec is None and n == len(lines):
                (cut if cut is not None else []).append(f"{path.name}:{n}")
                continue
            cid = rec.get("case") if isinstance(rec, dict) else None
            if isinstance(cid, str) and cid not in known:
                if sealed and not found:
                    (skipped if skipped is not None else []).append(f"{path.name}:{n}")
                    continue
                found.append(Problem(where, "/case", f"unknown case {cid!r}: not in cases/"))
            if rec is not None and not found and "answer_sha" in rec:
                # A sha that no longer matches means the answer was edited after labelling.
                sha = answer_sha(rec["answer"])
                if rec["answer_sha"] != sha:
                    msg = f"does not match the answer (its sha is {sha}): was the answer edited?"
                    found.append(Problem(where, "/answer_sha", msg))
            if rec is not None and not found:
                item = _item(rec, f"{rel}:{n}")
                key = item_key(item)
                if key in seen:
                    first, label = seen[key]
                    if label == rec["label"]:
                        msg = f"the same answer to {rec['case']!r} is already labelled at {first}"
                    else:
                        contradicted.add(key)
                        msg = (
                            f"contradicts the label of the same answer to {rec['case']!r} at "
                            f"{first} (there {label}, here {rec['label']}): neither decides"
                        )
                    found.append(Problem(where, "/label", msg))
                else:
                    seen[key] = (f"{path.name}:{n}", rec["label"])
                    items.append(item)
            problems += found
    return [i for i in items if item_key(i) not in contradicted], problems


def _parse_line(line: str, where: str) -> tuple[Any, list[Problem]]:
    """The line's JSON value (None when it does not parse) and every problem with it."""
    try:
        rec = parse_json_value(line)
    except ValueError as exc:
        # The line is the whole document: its own line number would always be 1.
        msg = str(exc).replace(" at line 1, column ", " at column ")
        return None, [Problem(where, "", msg)]
    return rec, schema_problems(rec, "labelled.schema.json", where)


def _item(rec: dict[str, Any], source: str) -> Labelled:
    return Labelled(
        rec["case"],
        rec["answer"],
        rec["label"],
        rec["why"],
        source,
        rec.get("cited"),
        rec.get("retrieved"),
        rec.get("abstained"),
        rec.get("style"),
        rec.get("claims"),
        rec.get("case_sha"),
        rec.get("run"),
        rec.get("by"),
        rec.get("at"),
    )


def precedents(items: list[Labelled], cases: list[Case]) -> tuple[Precedents, list[Labelled]]:
    """The labels that decide answers to the cases as they are now, and the stale ones: labels
    given to a case's earlier content (the case was edited since), which decide nothing.

    A label written without the case's sha decides too (a person's verdict on that answer
    stands), but unpinned: no edit of the case can void it. A pinned label of the same
    answer wins over it."""
    shas = {c.id: c.sha for c in cases}
    by_id = {c.id: c for c in cases}
    index: dict[tuple[str, str], Precedent] = {}
    split: set[tuple[str, str]] = set()
    stale: list[Labelled] = []
    for item in sorted(items, key=lambda i: i.case_sha is not None):
        current = shas.get(item.case)
        if current is None:
            continue
        if item.case_sha is not None and item.case_sha != current:
            stale.append(item)
            continue
        key = (current, item_key(item, by_id[item.case])[1])
        pinned = item.case_sha is not None
        if key in split:
            continue
        had = index.get(key)
        if had is not None and had.pinned == pinned and had.label != item.label:
            # The same reply read the same way (one label recorded the case's passages, the
            # other left them implied) and labelled both ways: neither decides.
            split.add(key)
            del index[key]
            continue
        index[key] = Precedent(
            item.label, item.by, item.at, item.why, item.source, item.run, pinned=pinned
        )
    return index, stale


def unpinned(items: list[Labelled]) -> dict[str, int]:
    """Labels without a case sha, counted per labelled file."""
    out: dict[str, int] = {}
    for item in items:
        if item.case_sha is None and item.source.startswith(f"{LABELLED_DIR}/"):
            name = item.source.rsplit(":", 1)[0]
            out[name] = out.get(name, 0) + 1
    return out


def sealed_skip_note(skipped: list[str]) -> str | None:
    """One note for the labelled answers left out as answers of sealed cases, or None."""
    if not skipped:
        return None
    where = ", ".join(skipped[:3]) + (", ..." if len(skipped) > 3 else "")
    return (
        f"{len(skipped)} labelled answer(s) name no case in cases/ ({where}): the suite has a "
        "sealed pile, so they are taken for answers of sealed cases and left out. Move them "
        "out of labelled/ to keep the pile held out: they tell what its cases ask."
    )


def cut_note(cut: list[str]) -> str | None:
    """One note for last lines cut short by an interrupted write, or None."""
    if not cut:
        return None
    return (
        f"{len(cut)} labelled line(s) cut short by an interrupted write skipped "
        f"({', '.join(cut)}): the next label written to the file replaces it"
    )
