"""The ledger against its own git history: committed entries can be added to, never taken away.

The hash chain catches an edited or removed line in the middle, but not a ledger emptied
(or cut back) as a whole, together with the sealed run files: that resets the budget. Git
remembers what was committed, so every committed version of the ledger must still be
there, line for line, at the start of the pile's entries in the working copy.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from evals.errors import Problem
from evals.run.files import parse_record

_TIMEOUT_S = 30


@dataclass
class HistoryCheck:
    """Problems (a committed entry missing) and a note when git cannot vouch at all."""

    problems: list[Problem] = field(default_factory=list)
    note: str | None = None
    #: The problem is that git could not be asked, not that the ledger was altered.
    unverifiable: bool = False


def _clean_env() -> dict[str, str]:
    """The environment without git's own variables: `GIT_DIR=/nonexistent` (or a work tree,
    index or object store set elsewhere) must not point the check at another repository."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def _run_git(args: list[str], cwd: Path, stdin: bytes | None = None) -> tuple[bytes | None, str]:
    """(stdout, "") when git ran and succeeded, else (None, why)."""
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            timeout=_TIMEOUT_S,
            check=True,
            env=_clean_env(),
        )
    except subprocess.CalledProcessError as exc:
        said = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, said[0][:200] if said else f"git exited with {exc.returncode}"
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"git could not be run ({type(exc).__name__}: {exc})"[:200]
    return out.stdout, ""


def _git(args: list[str], cwd: Path, stdin: bytes | None = None) -> bytes | None:
    return _run_git(args, cwd, stdin)[0]


def repository_above(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding a `.git` (a folder, or a worktree's file)."""
    for folder in [path.resolve(), *path.resolve().parents]:
        if (folder / ".git").exists():
            return folder
    return None


def pile_lines(text: str, pile_id: str) -> list[str]:
    """The ledger's lines for one pile, as written (line ends aside)."""
    out = []
    for line in text.split("\n"):  # only \n ends a line: an entry may hold U+2028 raw
        line = line.rstrip("\r")
        try:
            rec = parse_record(line)
        except ValueError:
            continue  # the chain check reports it
        if isinstance(rec, dict) and rec.get("pile_id") == pile_id:
            out.append(line)
    return out


def _versions(top: Path, rel: str) -> list[tuple[str, str]] | None:
    """(commit, ledger text) for every commit in HEAD's history that touched the ledger,
    newest first; None when git cannot say."""
    log = _git(["log", "--format=%H", "HEAD", "--", rel], top)
    if log is None:
        return None
    commits = log.decode().split()
    if not commits:
        return []
    # One `cat-file --batch` for all versions rather than one `git show` per commit.
    request = "".join(f"{c}:{rel}\n" for c in commits).encode()
    raw = _git(["cat-file", "--batch"], top, request)
    if raw is None:
        return None
    out, pos = [], 0
    for c in commits:
        end = raw.index(b"\n", pos)
        head = raw[pos:end].split()
        pos = end + 1
        if len(head) == 2 and head[1] == b"missing":
            out.append((c, ""))  # the commit that deleted it: nothing committed there
            continue
        size = int(head[2])
        out.append((c, raw[pos : pos + size].decode("utf-8", "replace")))
        pos += size + 1
    return out


def check_history(ledger: Path, pile_id: str) -> HistoryCheck:
    """Whether every entry of this pile committed in the ledger is still in the working copy."""
    where = str(ledger)
    top_out, why = _run_git(["rev-parse", "--show-toplevel"], ledger.parent)
    if top_out is None:
        repo = repository_above(ledger.parent)
        if repo is not None:
            # Git missing from PATH, or made to look elsewhere, must not turn the refusal of
            # an emptied committed ledger into a note: the repository is right there.
            return HistoryCheck(
                problems=[
                    Problem(
                        where,
                        "",
                        f"the suite is in the git repository {repo}, but git could not read it "
                        f"({why}), so the ledger's committed history cannot be checked: "
                        "refused; make `git` runnable here and try again",
                    )
                ],
                unverifiable=True,
            )
        return HistoryCheck(
            note=f"note: {where}: no git repository, so its history cannot be checked"
        )
    top = Path(top_out.decode().strip()).resolve()
    rel = ledger.resolve().relative_to(top).as_posix()
    versions = _versions(top, rel)
    if versions is None:
        return HistoryCheck(note=f"note: {where}: git could not read the ledger's history")
    if not any(pile_lines(text, pile_id) for _, text in versions):
        return HistoryCheck(
            note=f"note: {where}: no entry of this pile was ever committed, so git cannot vouch "
            "for it (commit the ledger after sealed runs)"
        )
    try:
        current = pile_lines(ledger.read_text("utf-8"), pile_id) if ledger.is_file() else []
    except (OSError, UnicodeDecodeError):
        current = []
    for commit, text in versions:
        committed = pile_lines(text, pile_id)
        if committed != current[: len(committed)]:
            missing = sum(1 for line in committed if line not in current)
            what = f"{missing} committed entr{'y is' if missing == 1 else 'ies are'} missing"
            if not missing:
                what = "committed entries were changed or reordered"
            return HistoryCheck(
                problems=[
                    Problem(
                        where,
                        "",
                        f"ledger rewritten: {what} since commit {commit[:10]}, which resets the "
                        f"pile's budget; restore it with `git checkout {commit[:10]} -- {rel}` "
                        "and keep appending",
                    )
                ]
            )
    return HistoryCheck()
