"""`invoke merge`: join the shard files of one run into a single run file.

Files are joined only when every stamp that shapes a result agrees (model, prompt,
provider settings, checks' settings, judge, epochs, shard count), every shard of the
split is present exactly once, each finished, and no case appears twice.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from evals.cli import EXIT_ERROR
from evals.config import load_settings
from evals.errors import InputError, Problem
from evals.run.console import counts_text
from evals.run.files import OutputError, RunFile, iso_z, read_run, record_line, unwritable
from evals.run.latest import run_suite
from evals.run.rows import project_path
from evals.run.tally import Tally
from evals.run.writer import BatchedRunWriter
from evals.suite.case import Case
from evals.suite.folder import suite_digest

#: Header fields that must agree; `settings` is compared without what differs per shard.
SAME = ("model", "prompt_sha", "provider", "target", "judge", "sealed", "suite")
PER_SHARD_SETTINGS = ("concurrency", "shard", "max_cost_usd", "cache", "left_out")
#: Cases named per pair of clashing files before the rest are only counted.
_MAX_LISTED = 5


def comparable_settings(header: dict[str, Any]) -> dict[str, Any]:
    """The header's settings without what legitimately differs between shards of one run."""
    s = dict(header.get("settings") or {})
    for k in PER_SHARD_SETTINGS:
        s.pop(k, None)
    sel = dict(s.get("selection") or {})
    if sel.get("shard"):
        sel["shard"] = {"count": sel["shard"].get("count")}  # the index differs per shard
    s["selection"] = sel
    return s


def check_mergeable(runs: list[RunFile]) -> list[Problem]:
    """Every reason the files cannot be joined, at once."""
    return _stamp_problems(runs) + _shard_problems(runs) + _incomplete(runs) + _clash_problems(runs)


def _stamp_problems(runs: list[RunFile]) -> list[Problem]:
    """Header stamps and settings in which a shard differs from the first one."""
    problems: list[Problem] = []
    first = runs[0]
    for r in runs[1:]:
        for key in SAME:
            if r.header.get(key) != first.header.get(key):
                problems.append(
                    Problem(
                        str(r.path),
                        f"/{key}",
                        f"{r.header.get(key)!r} differs from {first.header.get(key)!r} in {first.path}",
                    )
                )
        a, b = comparable_settings(first.header), comparable_settings(r.header)
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                problems.append(
                    Problem(
                        str(r.path),
                        f"/settings/{key}",
                        f"{b.get(key)!r} differs from {a.get(key)!r} in {first.path}",
                    )
                )
    return problems


def _shard_problems(runs: list[RunFile]) -> list[Problem]:
    """Files that are no shards, shards given twice, and shards missing from the set."""
    problems: list[Problem] = []
    first = runs[0]
    shards = [(r, (r.header.get("settings") or {}).get("shard")) for r in runs]
    counts = {s["count"] for _, s in shards if s}
    if any(s is None for _, s in shards):
        for r, s in shards:
            if s is None:
                problems.append(Problem(str(r.path), "/settings/shard", "not a shard run"))
    elif len(counts) == 1:
        n = counts.pop()
        seen: dict[int, Path] = {}
        for r, s in shards:
            if s["index"] in seen:
                problems.append(
                    Problem(str(r.path), "/settings/shard", f"shard {s['index']}/{n} given twice")
                )
            seen[s["index"]] = r.path
        missing = sorted(set(range(1, n + 1)) - set(seen))
        if missing:
            problems.append(
                Problem(
                    str(first.path),
                    "/settings/shard",
                    f"shard(s) {', '.join(f'{i}/{n}' for i in missing)} missing",
                )
            )
    return problems


def _incomplete(runs: list[RunFile]) -> list[Problem]:
    """Shards whose run did not finish: their missing cases would vanish from the merge."""
    problems: list[Problem] = []
    for r in runs:
        if not r.complete:
            why = (r.summary or {}).get("stopped_reason") or "no summary"
            problems.append(
                Problem(str(r.path), "summary", f"not complete ({why}): resume it first")
            )
    return problems


def _clash_problems(runs: list[RunFile]) -> list[Problem]:
    """A file given twice, and cases (per epoch) that more than one shard holds."""
    problems: list[Problem] = []
    owner: dict[tuple[str, int], Path] = {}
    seen_files: set[Path] = set()
    for r in runs:
        same = r.path.resolve()
        if same in seen_files:
            problems.append(Problem(str(r.path), "", "the same file is given twice"))
            continue
        seen_files.add(same)
        clashes: dict[Path, list[tuple[str, int]]] = {}
        for row in r.rows:
            key = (row["case"], row.get("epoch", 0))
            if key in owner:
                clashes.setdefault(owner[key], []).append(key)
            owner[key] = r.path
        for other, keys in clashes.items():
            # A few names say what is wrong; hundreds would bury the other problems.
            for cid, epoch in keys[:_MAX_LISTED]:
                problems.append(
                    Problem(str(r.path), f"case {cid}", f"also in {other} (epoch {epoch})")
                )
            if len(keys) > _MAX_LISTED:
                problems.append(
                    Problem(
                        str(r.path),
                        "",
                        f"and {len(keys) - _MAX_LISTED} more case(s) also in {other}",
                    )
                )
    return problems


def _compact(row: dict[str, Any]) -> dict[str, Any]:
    """A shard row as the merge keeps it: its line, and what the checks and the order read."""
    return {
        "case": row["case"],
        "epoch": row.get("epoch", 0),
        "case_sha": row["case_sha"],
        "line": record_line(row),
    }


def merge_runs(paths: list[Path], out: Path) -> tuple[Path, dict[str, Any]]:
    """Write the merged run file (never over an existing file); returns it and its summary."""
    if len(paths) < 2:
        raise InputError("merge needs at least two shard files")
    if out.exists():
        raise InputError(f"{out}: already exists; run files are never overwritten")
    # Each row is kept as its line, with the few fields the checks below read: a row held as
    # parsed JSON took five times the memory of its line.
    runs = [read_run(p, keep=_compact) for p in paths]
    problems = check_mergeable(runs)
    if problems:
        raise InputError(problems)
    kept = [(r, row) for r in runs for row in r.rows]
    kept.sort(key=lambda t: (t[1].get("epoch", 0), t[1]["case"]))
    shas = {row["case"]: row["case_sha"] for _, row in kept}
    header = dict(runs[0].header)
    settings = dict(header.get("settings") or {})
    settings["shard"] = None
    settings["selection"] = {**(settings.get("selection") or {}), "shard": None}
    # Each shard left out its own rubric-only cases (no --judge): the merged run all of them.
    left_out = sorted(
        {c for r in runs for c in (r.header.get("settings") or {}).get("left_out", [])}
    )
    settings.pop("left_out", None)
    if left_out:
        settings["left_out"] = left_out
    header.update(
        run_id=out.stem,
        created=iso_z(),
        label=merged_label([r.header.get("label") for r in runs]),
        settings=settings,
        n_cases=len(shas),
        suite_digest=suite_digest([Case({"id": cid}, None, sha) for cid, sha in shas.items()]),
        merged_from=[
            {
                "run_id": r.run_id,
                "shard": r.header["settings"]["shard"],
                "label": r.header.get("label"),
                "git": r.header.get("git"),
                "n_rows": len(r.rows),
            }
            for r in runs
        ],
    )
    elapsed = [r.summary.get("elapsed_s") for r in runs if r.summary]
    tally = Tally(per_case=any(row.get("epoch", 0) for _, row in kept))
    try:
        w = BatchedRunWriter(out)  # "x": never over an existing file
    except OSError as exc:
        raise OutputError(unwritable(out, exc)) from None
    try:
        with w:
            w.write(header)
            for r, small in kept:
                # Each row names the shard run it came from and joins the merged run's id.
                row = {**json.loads(small["line"]), "run_id": out.stem, "shard_run_id": r.run_id}
                tally.add(row)
                w.write(row)
            summary = tally.record(
                completed=True,
                run_id=out.stem,
                elapsed_s=max((e for e in elapsed if e is not None), default=None),
                left_out=left_out,
            )
            w.write(summary)
    except OSError as exc:
        out.unlink(missing_ok=True)  # half a merged file is no use to anyone
        raise OutputError(f"{unwritable(out, exc)}; nothing was kept") from None
    return out, summary


_SHARD_WORD = re.compile(r"(?:^|[-_.\s])shard[-_.]?\d+(?:[-_/of]+\d+)?(?=$|[-_.\s])", re.I)


def merged_label(labels: list[str | None]) -> str | None:
    """The label the shards share once their shard part is gone (`nightly-shard-2` ->
    `nightly`), or None: one shard's label must not name the whole run."""
    kept = {_SHARD_WORD.sub("", label).strip("-_. ") if label else "" for label in labels}
    if len(kept) != 1:
        return None
    return kept.pop() or None


def shards_of_other_suites(paths: list[Path], suite: Path, root: Path) -> list[Problem]:
    """A problem for each shard whose header names another suite than `suite`: a glob over
    runs/ also matches the shards of another suite's sharded run."""
    name = project_path(suite, root)
    return [
        Problem(str(p), "line 1/suite", f"a shard of the suite {other}, not of {name}")
        for p in paths
        if (other := run_suite(p)) is not None and other != name
    ]


def cmd_merge(files: list[str], out: str | None, suite: str | None = None) -> int:
    """Merge shard files (paths or globs; several may be given in one argument); with
    `suite`, every shard must be of that suite."""
    import glob

    if not out:
        raise InputError("merge needs --out FILE: where the merged run file goes")
    paths: list[Path] = []
    for item in files:
        for part in item.replace(",", " ").split():
            matched = sorted(glob.glob(part)) if any(ch in part for ch in "*?[") else [part]
            if not matched:
                raise InputError(f"{part}: no file matches")
            paths.extend(Path(m) for m in matched)
    root = load_settings(Path.cwd()).root
    if suite and (problems := shards_of_other_suites(paths, Path(suite), root)):
        raise InputError(problems)
    try:
        path, summary = merge_runs(paths, Path(out))
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_ERROR
    c = summary["counts"]
    print(f"merged {len(paths)} shard file(s): {c['total']} rows ({counts_text(c)}) -> {path}")
    return 0
