"""`invoke merge`: join the shard files of one run into a single run file.

Files are joined only when every stamp that shapes a result agrees (model, prompt,
provider settings, checks' settings, judge, epochs, shard count), every shard of the
split is present exactly once, each finished, and no case appears twice.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.cli import EXIT_ERROR
from evals.config import load_settings
from evals.errors import InputError, Problem
from evals.run.console import counts_text
from evals.run.files import OutputError, RunFile, iso_z, read_run, record_line, unwritable
from evals.run.latest import run_suite
from evals.run.ordered import Spill, spill_folder
from evals.run.rows import project_path
from evals.run.tally import Tally
from evals.run.writer import BatchedRunWriter
from evals.suite.folder import digest_of

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


def check_mergeable(runs: list[RunFile], spill: Spill) -> list[Problem]:
    """Every reason the files cannot be joined, at once (`spill`: every row of them)."""
    return (
        _stamp_problems(runs)
        + _shard_problems(runs)
        + _incomplete(runs)
        + _clash_problems(runs, spill)
    )


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


def _clash_problems(runs: list[RunFile], spill: Spill) -> list[Problem]:
    """A file given twice, and cases (per epoch) that more than one shard holds."""
    problems: list[Problem] = []
    seen_files: set[Path] = set()
    twice: set[int] = set()
    for i, r in enumerate(runs):
        same = r.path.resolve()
        if same in seen_files:
            twice.add(i)
        seen_files.add(same)
    # The rows come by (case, epoch), each key's holders in the order the files were given:
    # each holder after the first clashes with the one before it.
    found: dict[int, list[tuple[int, int, str, int]]] = {}
    prev: tuple[str, int, int] | None = None
    for row in spill.rows():
        if row.source in twice:
            continue
        if prev is not None and prev[:2] == (row.case, row.epoch):
            found.setdefault(row.source, []).append((row.seq, prev[2], row.case, row.epoch))
        prev = (row.case, row.epoch, row.source)
    for i, r in enumerate(runs):
        if i in twice:
            problems.append(Problem(str(r.path), "", "the same file is given twice"))
            continue
        clashes: dict[Path, list[tuple[str, int]]] = {}
        for _, owner, cid, epoch in sorted(found.get(i, [])):  # in the file's order
            clashes.setdefault(runs[owner].path, []).append((cid, epoch))
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


def _read_shards(paths: list[Path], spill: Spill) -> tuple[list[RunFile], list[int]]:
    """Each shard file read (its rows go to `spill`, none kept) and its number of rows."""
    runs: list[RunFile] = []
    n_rows: list[int] = []
    for i, p in enumerate(paths):
        count = [0]

        def keep(row: dict[str, Any], i: int = i, count: list[int] = count) -> None:
            line = record_line(row)
            spill.add(row["case"], row.get("epoch", 0), i, count[0], row["case_sha"], line)
            count[0] += 1

        runs.append(read_run(p, keep=keep))
        n_rows.append(count[0])
    return runs, n_rows


def _cases_of(spill: Spill) -> tuple[int, str, list[int]]:
    """The merged run's number of cases, its suite digest (each case with the sha of its
    last epoch) and its epochs."""
    epochs: set[int] = set()

    def last_shas() -> Iterator[tuple[str, str]]:
        held: tuple[str, str] | None = None
        for row in spill.rows():
            epochs.add(row.epoch)
            if held is not None and held[0] != row.case:
                yield held
            held = (row.case, row.case_sha)
        if held is not None:
            yield held

    n = [0]

    def counted() -> Iterator[tuple[str, str]]:
        for pair in last_shas():
            n[0] += 1
            yield pair

    digest = digest_of(counted())
    return n[0], digest, sorted(epochs)


def merge_runs(paths: list[Path], out: Path) -> tuple[Path, dict[str, Any]]:
    """Write the merged run file (never over an existing file); returns it and its summary."""
    if len(paths) < 2:
        raise InputError("merge needs at least two shard files")
    if out.exists():
        raise InputError(f"{out}: already exists; run files are never overwritten")
    # Each row goes to a temporary file of sorted chunks as its line (with the few fields
    # the checks below read), read back in case order: no row is held.
    with spill_folder() as tmp:
        spill = Spill(Path(tmp))
        runs, n_rows = _read_shards(paths, spill)
        problems = check_mergeable(runs, spill)
        if problems:
            raise InputError(problems)
        n_cases, digest, epochs = _cases_of(spill)
        header = _merged_header(runs, n_rows, out, n_cases, digest)
        return out, _write_merged(out, header, runs, spill, epochs)


def _merged_header(
    runs: list[RunFile], n_rows: list[int], out: Path, n_cases: int, digest: str
) -> dict[str, Any]:
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
        n_cases=n_cases,
        suite_digest=digest,
        merged_from=[
            {
                "run_id": r.run_id,
                "shard": r.header["settings"]["shard"],
                "label": r.header.get("label"),
                "git": r.header.get("git"),
                "n_rows": n,
            }
            for r, n in zip(runs, n_rows, strict=True)
        ],
    )
    return header


def _write_merged(
    out: Path, header: dict[str, Any], runs: list[RunFile], spill: Spill, epochs: list[int]
) -> dict[str, Any]:
    """Write the merged file, epoch by epoch and by case within each; returns its summary."""
    left_out = (header["settings"] or {}).get("left_out", [])
    elapsed = [r.summary.get("elapsed_s") for r in runs if r.summary]
    tally = Tally(per_case=any(epochs))
    try:
        w = BatchedRunWriter(out)  # "x": never over an existing file
    except OSError as exc:
        raise OutputError(unwritable(out, exc)) from None
    try:
        with w:
            w.write(header)
            for epoch in epochs:
                for small in spill.rows():
                    if small.epoch != epoch:
                        continue
                    # Each row names the shard run it came from and joins the merged run's id.
                    row = {
                        **json.loads(small.line),
                        "run_id": out.stem,
                        "shard_run_id": runs[small.source].run_id,
                    }
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
    return summary


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
