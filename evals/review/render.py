"""The Markdown of `invoke review`: weakened expectations first, then everything else."""

from __future__ import annotations

import difflib
import re
from typing import Any

from evals.review.changes import FileChange, Review
from evals.review.fields import CaseChange, FieldChange, q

LONG = 160  # characters of a quoted value shown before the middle is elided
STATUS = {"A": "added", "M": "modified", "D": "deleted"}


def code(text: str) -> str:
    """An inline code span that survives backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _shorten(text: str) -> str:
    return text if len(text) <= LONG else text[: LONG - 40] + " … " + text[-30:]


def _pair(old: str, new: str) -> tuple[str, str]:
    """Two long strings trimmed to where they differ, with a little context."""
    if len(old) <= LONG and len(new) <= LONG:
        return old, new
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    lo = max(start - 30, 0)

    def cut(s: str) -> str:
        middle = s[lo : len(s) - max(end - 30, 0)]
        return ("…" if lo else "") + _shorten(middle) + ("…" if end > 30 else "")

    return cut(old), cut(new)


def field_line(change: FieldChange) -> str:
    """`expect.facts: - "30 days" + "14 days"`."""
    removed: list[Any] = list(change.removed)
    added: list[Any] = list(change.added)
    if (
        len(removed) == len(added) == 1
        and isinstance(removed[0], str)
        and isinstance(added[0], str)
    ):
        a, b = _pair(q(removed[0]), q(added[0]))
        parts = [f"- {a}", f"+ {b}"]
    else:
        parts = [f"- {_shorten(q(x))}" for x in removed] + [f"+ {_shorten(q(x))}" for x in added]
    note = f" ({change.note})" if change.note else ""
    return f"{change.field}: {' '.join(parts)}{note}"


def _ids(changes: list[CaseChange]) -> str:
    return ", ".join(code(c.id) + (f" ({c.note})" if c.note else "") for c in changes)


def _line_counts(old: bytes | None, new: bytes | None) -> str:
    a = (old or b"").decode("utf-8", "replace").splitlines()
    b = (new or b"").decode("utf-8", "replace").splitlines()
    plus = minus = 0
    for line in difflib.unified_diff(a, b, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return f"+{plus} −{minus} lines"


def _sha(fc_sha: str | None) -> str:
    return code(fc_sha[:12]) if fc_sha else "(none)"


def _file_line(fc: FileChange, with_sha: bool = False) -> str:
    line = f"- {code(fc.path)} {STATUS.get(fc.status, fc.status)}"
    if with_sha:
        line += f": {_sha(fc.old_sha)} → {_sha(fc.new_sha)} ({_line_counts(fc.old, fc.new)})"
    return line


def _ledger_note(fc: FileChange) -> str:
    """The query ledger is append-only: appended runs are expected, anything else resets it."""
    if not fc.path.endswith("/LEDGER.jsonl") and fc.path != "LEDGER.jsonl":
        return ""
    old, new = fc.old or b"", fc.new or b""
    if new.startswith(old):
        n = new[len(old) :].count(b"\n")
        return f": {n} sealed run(s) recorded (appended)"
    return ": **ledger records removed or rewritten: the pile's query budget was reset**"


def _case_section(review: Review) -> list[str]:
    out = ["### Cases", ""]
    added, removed = review.of_kind("added"), review.of_kind("removed")
    renamed, changed = review.of_kind("renamed"), review.of_kind("changed")
    reformatted = review.of_kind("reformatted")
    if not (added or removed or renamed or changed or reformatted):
        return out + ["No case file changed.", ""]
    if added:
        out.append(f"- **Added ({len(added)})**: {_ids(added)}")
    if removed:
        out.append(f"- **Removed ({len(removed)})**: {_ids(removed)}")
    if renamed:
        out += ["", f"**Renamed ({len(renamed)})**:"]
        for c in renamed:
            same = "same content" if not c.fields else f"and changed ({len(c.fields)} field(s))"
            out.append(f"- {code(c.old_id or '')} → {code(c.id)}: {same}")
            out += [f"  - {code(field_line(f))}" for f in c.fields]
    if changed:
        out += ["", f"**Changed ({len(changed)})**:"]
        for c in changed:
            out.append(f"- {code(c.id)}" + (f": {c.note}" if c.note else ""))
            out += [f"  - {code(field_line(f))}" for f in c.fields]
    if reformatted:
        out += ["", f"**Reformatted only, same content ({len(reformatted)})**: {_ids(reformatted)}"]
    return out + [""]


def render_markdown(review: Review) -> str:
    """The whole review, ready to paste into a pull request."""
    b = review.base
    counts = {k: len(review.of_kind(k)) for k in ("added", "removed", "renamed", "changed")}
    out = [
        "## Eval review",
        "",
        f"Base: {code(b.label)} at {code(b.commit[:12])} ({b.how}); suite {code(review.suite)}; "
        "compared with the working tree.",
        "",
        ", ".join(f"{n} {k}" for k, n in counts.items())
        + f" case(s); **{len(review.weakened)} weakened expectation(s)**"
        + ("; **sealed pile CHANGED**" if review.sealed else ""),
        "",
        f"### WEAKENED expectations ({len(review.weakened)})",
        "",
    ]
    if review.weakened:
        out.append("Each of these lets through answers the base rejected. A golden set is never")
        out.append("loosened to make a run pass: every line needs its reason in the PR.")
        out.append("")
        out += [f"- {code(cid)}: {code(what)}" for cid, what in review.weakened]
    else:
        out.append("None.")
    out.append("")
    if review.sealed:
        out += [f"### ALARM: the sealed pile changed ({len(review.sealed)} file(s))", ""]
        out.append("Sealed cases are held out; nobody edits them by hand or tunes against them.")
        out.append("")
        out += [_file_line(fc, with_sha=True) + _ledger_note(fc) for fc in review.sealed]
        out.append("")
    out += _case_section(review)
    if review.prompts:
        out += ["### Prompts", ""] + [_file_line(fc, with_sha=True) for fc in review.prompts] + [""]
    if review.grading:
        out += ["### Suite settings and checks", ""]
        out += [_file_line(fc, with_sha=True) for fc in review.grading] + [""]
    if review.schemas:
        out += ["### Schemas", ""] + [_file_line(fc, with_sha=True) for fc in review.schemas] + [""]
    if review.runs or review.baseline:
        out += ["### Run files", ""]
        out += [_file_line(fc) for fc in review.runs]
        rewritten = [fc for fc in review.runs if fc.status != "A"]
        if rewritten:
            out.append("")
            out.append(
                f"Warning: {len(rewritten)} committed run file(s) modified or deleted; "
                "run files are history and are only ever added."
            )
        if review.baseline:
            old = (review.baseline.old or b"").decode("utf-8", "replace").strip() or "(none)"
            new = (review.baseline.new or b"").decode("utf-8", "replace").strip() or "(none)"
            out.append(
                f"- baseline pointer {code(review.baseline.path)}: {code(old)} → {code(new)}"
            )
        out.append("")
    out += [f"### Validation problems in changed files ({len(review.problems)})", ""]
    out += [f"- {code(str(p))}" for p in review.problems] or ["None."]
    return "\n".join(out) + "\n"
