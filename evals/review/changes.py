"""What changed in a suite between two git revisions: files and cases, read from git."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from evals.errors import InputError, Problem
from evals.review.fields import CaseChange, compare_cases
from evals.suite.folder import link_problem

# Branches tried, in order, for the default base (the merge base with HEAD).
DEFAULT_BASES = ("main", "origin/main")


@dataclass(frozen=True)
class Base:
    """The commit the change is compared with, and how it was found."""

    label: str
    commit: str
    how: str


@dataclass(frozen=True)
class FileChange:
    """A non-case file changed between the base and the working tree."""

    path: str
    status: str  # A | M | D
    old: bytes | None
    new: bytes | None

    @property
    def old_sha(self) -> str | None:
        return hashlib.sha256(self.old).hexdigest() if self.old is not None else None

    @property
    def new_sha(self) -> str | None:
        return hashlib.sha256(self.new).hexdigest() if self.new is not None else None


@dataclass
class Review:
    """Everything `invoke review` reports, grouped the way a reviewer reads it."""

    base: Base
    suite: str
    cases: list[CaseChange] = field(default_factory=list)
    weakened: list[tuple[str, str]] = field(default_factory=list)  # (case id, what)
    prompts: list[FileChange] = field(default_factory=list)
    grading: list[FileChange] = field(default_factory=list)
    schemas: list[FileChange] = field(default_factory=list)
    runs: list[FileChange] = field(default_factory=list)
    baseline: FileChange | None = None
    sealed: list[FileChange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[CaseChange]:
        return [c for c in self.cases if c.kind == kind]


# --- git, read-only -------------------------------------------------------------------


def git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run git without taking optional locks, so a review never touches the index."""
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args], cwd=cwd, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise InputError("git is not installed or not on PATH; `invoke review` needs it") from None


def toplevel(start: Path) -> Path:
    """The top of the git work tree holding `start`; bad input outside one."""
    proc = git(["rev-parse", "--show-toplevel"], start)
    if proc.returncode:
        raise InputError(f"{start}: not inside a git repository; `invoke review` reads git history")
    return Path(proc.stdout.decode().strip())


def rev_parse(ref: str, top: Path) -> str | None:
    """The commit a ref names, or None when it names none."""
    proc = git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def merge_base(a: str, b: str, top: Path) -> str | None:
    """The best common ancestor of two commits, or None."""
    proc = git(["merge-base", a, b], top)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def resolve_base(ref: str | None, top: Path) -> Base:
    """The merge base of HEAD with REF (or main, origin/main), else REF itself, else HEAD~1."""
    if ref:
        commit = rev_parse(ref, top)
        if commit is not None and commit.startswith(ref) and len(ref) >= 12:
            ref = ref[:12]  # a commit id: the short form reads better
        if commit is None:
            raise InputError(
                f"unknown ref {ref!r}: not a commit in this repository "
                "(in a shallow CI checkout, fetch it first: "
                "git fetch --depth 1 origin BRANCH:refs/remotes/origin/BRANCH)"
            )
        head = rev_parse("HEAD", top)
        mb = merge_base("HEAD", commit, top) if head else None
        if mb:
            return Base(ref, mb, f"merge base of HEAD and {ref}")
        # A shallow clone may not hold the common ancestor: compare with REF itself.
        return Base(ref, commit, f"{ref} itself (no merge base with HEAD: shallow history?)")
    for name in DEFAULT_BASES:
        if rev_parse(name, top) and (mb := merge_base("HEAD", name, top)):
            return Base(name, mb, f"merge base of HEAD and {name}")
    parent = rev_parse("HEAD~1", top)
    if parent:
        return Base("HEAD~1", parent, "HEAD~1 (no main or origin/main branch to compare with)")
    raise InputError(
        "no base to compare with: no merge base with main or origin/main and no parent commit; "
        "pass --base REF"
    )


def _split_z(raw: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]


def changed_paths(base: str, specs: list[str], top: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Paths under `specs` that differ between `base` and the working tree.

    Returns path -> A|M|D, and path -> the blob id at `base` (read later in one batch).
    """
    proc = git(["diff", "--raw", "-z", "--no-abbrev", "--no-renames", base, "--", *specs], top)
    if proc.returncode:
        raise InputError(f"git diff against {base} failed: {proc.stderr.decode().strip()}")
    parts = _split_z(proc.stdout)
    status: dict[str, str] = {}
    blobs: dict[str, str] = {}
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        _, _, old_id, _, code = meta.split(" ")
        status[path] = "M" if code[0] in "MTU" else code[0]
        if code[0] != "A":
            blobs[path] = old_id
    # Untracked (not ignored) files are part of the change a user is about to commit.
    untracked = git(["ls-files", "-o", "--exclude-standard", "-z", "--", *specs], top)
    for path in _split_z(untracked.stdout):
        status.setdefault(path, "A")
    return {p: s for p, s in status.items() if s in "ADM"}, blobs


def read_blobs(objects: dict[str, str], top: Path) -> dict[str, bytes | None]:
    """The content of each path's blob, in one `git cat-file --batch` call."""
    if not objects:
        return {}
    paths = list(objects)
    spec = "".join(f"{objects[p]}\n" for p in paths).encode()
    proc = subprocess.run(
        ["git", "--no-optional-locks", "cat-file", "--batch"],
        cwd=top,
        input=spec,
        capture_output=True,
        check=False,
    )
    out: dict[str, bytes | None] = {}
    buf, pos = proc.stdout, 0
    for p in paths:
        end = buf.index(b"\n", pos)
        header = buf[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[p] = buf[pos : pos + size]
            pos += size + 1
        else:
            out[p] = None
    return out


def rel_path(path: Path, top: Path) -> str:
    try:
        return path.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        raise InputError(f"{path}: not inside the git repository at {top}") from None


def build_review(
    base: Base, top: Path, suite_dir: Path, runs_dir: Path, schema_dir: Path
) -> Review:
    """Compare the base commit's files with the working tree."""
    suite = rel_path(suite_dir, top)
    runs, schemas = rel_path(runs_dir, top), rel_path(schema_dir, top)
    pre = "" if suite == "." else suite + "/"
    specs = [f"{pre}cases", f"{pre}sealed", f"{pre}prompt.txt", f"{pre}judge_prompt.txt"]
    specs += [f"{pre}suite.toml", f"{pre}checks.py", runs, schemas]
    status, blob_ids = changed_paths(base.commit, specs, top)
    # A linked case or pile file would put text from elsewhere into the review.
    watched = (f"{pre}cases/", f"{pre}sealed/")
    linked = [p for p in map(link_problem, (top / s for s in status if s.startswith(watched))) if p]
    if linked:
        raise InputError(linked)
    olds = read_blobs(blob_ids, top)

    def new_bytes(p: str) -> bytes | None:
        f = top / p
        return f.read_bytes() if f.is_file() else None

    def file_change(p: str) -> FileChange | None:
        fc = FileChange(p, status[p], olds.get(p), new_bytes(p))
        return None if fc.old == fc.new else fc

    review = Review(base=base, suite=suite)
    case_paths = [
        p
        for p in status
        if p.startswith(f"{pre}cases/") and p.endswith(".json") and "/" not in p[len(pre) + 6 :]
    ]
    old_cases = {p: olds.get(p) for p in case_paths if status[p] != "A"}
    new_cases = {p: new_bytes(p) for p in case_paths if status[p] != "D"}
    review.cases, review.weakened = compare_cases(old_cases, new_cases)
    cases_seen = set(case_paths)
    for p in sorted(status):
        if p in cases_seen:
            continue  # compared above; reading the file again would be wasted I/O
        fc = file_change(p)
        if fc is None:
            continue
        if p.startswith(f"{pre}sealed/"):
            review.sealed.append(fc)
        elif p in (f"{pre}prompt.txt", f"{pre}judge_prompt.txt"):
            review.prompts.append(fc)
        elif p in (f"{pre}suite.toml", f"{pre}checks.py"):
            review.grading.append(fc)
        elif p == f"{runs}/BASELINE":
            review.baseline = fc
        elif p.startswith(f"{runs}/"):
            review.runs.append(fc)
        elif p.startswith(f"{schemas}/"):
            review.schemas.append(fc)
    return review
