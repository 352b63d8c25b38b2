"""`invoke import`: outside golden sets to case files, validated, all or nothing, never overwriting."""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
import shlex
import sys
from pathlib import Path

from evals.interchange.naming import listed, slugify
from evals.interchange.planning import Plan, plan_import
from evals.interchange.writing import write_into, write_new_suite
from evals.run.files import OutputError
from evals.suite.folder import Suite, open_suite
from evals.suite.scaffold import refuse_existing


def report(file: Path, suite: Suite, plan: Plan, created: bool = False) -> list[str]:
    """What was written and every field that was renamed, generated, or had nowhere to go."""
    out = [
        f"imported {len(plan.cases)} case(s) from {file} (format: {plan.fmt}) into {suite.cases_dir}"
    ]
    if created:
        out.append(
            f"  a new suite: {suite.path} with prompt.txt (a starter: edit it for your assistant), "
            "suite.toml and judge_prompt.txt"
        )
    if plan.changed_ids:
        pairs = listed([f"{a!r} -> {b}" for a, b in plan.changed_ids])
        out.append(f"  ids changed to the case-id rule (the note keeps the original): {pairs}")
    if plan.generated_ids:
        pairs = listed(
            [
                f"line {n} ({'no id' if raw is None else repr(raw)}) -> {cid}"
                for n, cid, raw in plan.generated_ids
            ]
        )
        out.append(f"  ids generated (no id, or none usable): {pairs}")
    for key, ids in sorted(plan.unknown.items()):
        out.append(f"  field {key!r} has no case field: kept in the note of {len(ids)} case(s)")
    out += [f"  {r}" for r in plan.remarks]
    if plan.judge_prompt is not None:
        out.append(
            f"  the cases carry rubrics and the suite had no judge prompt: wrote {plan.judge_prompt} "
            "(its comments say what to adapt before you run --judge MODEL)"
        )
    if plan.answers_path:
        out.append(f"  {len(plan.answers)} saved answer(s) written to {plan.answers_path}")
    return out


def shown(path: Path) -> str:
    """A path as a command line should carry it: relative to here when below, shell-quoted."""
    try:
        text = str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        text = str(path.resolve())
    return shlex.quote(text)


def only_these(suite: Suite, ids: list[str]) -> str | None:
    """A --case glob that selects exactly `ids` among the suite's cases, or None."""
    prefix = os.path.commonprefix(ids)
    if not prefix:
        return None
    glob = prefix + "*"
    every = [p.stem for p in suite.case_files()]
    return glob if sorted(fnmatch.filter(every, glob)) == sorted(ids) else None


def run_command(file: Path, suite: Suite, plan: Plan) -> list[str]:
    """The exact command that runs the imported cases (with their saved answers, if any)."""
    ids = [p.stem for p, _ in plan.cases]
    cmd = f"invoke run --suite {shown(suite.path)}"
    others = len(suite.case_files()) - len(ids)
    if others:
        glob = only_these(suite, ids)
        if glob:
            cmd += f" --case {shlex.quote(glob)}"
    if not plan.answers_path:
        lines = [f"run them: {cmd}   (add --model ID for your model; default: the offline one)"]
    else:
        model = f"imported/{slugify(file.stem) or 'answers'}@{dt.date.today().isoformat()}"
        cmd += f" --answers {shown(plan.answers_path)} --model {model}"
        lines = [
            f"run them with their saved answers: {cmd}",
            "  (the model id labels the answers in the run file: use the pinned id of the "
            "system that wrote them, if you know it)",
        ]
    if others and " --case " not in cmd:
        lines.append(
            f"  the suite has {others} other case(s) that this command runs too; "
            "import into a suite of their own (the default) to run only these"
        )
    return lines


def default_suite(file: Path) -> Path:
    """Where an import goes without --suite: a new suite named after the file, in suites/."""
    from evals.cli import settings

    return settings().root / "suites" / (slugify(file.stem) or "imported")


def cmd_import(
    file: str,
    suite_dir: str | None,
    chunks: str | None,
    fmt: str,
    answers_out: str | None,
    claims: str | None = None,
) -> int:
    """The `invoke import` command: plan every case, write them all, print what changed.

    Without --suite the cases go to a new suite folder (suites/NAME, created); --suite DIR
    imports into that suite, or creates it when DIR does not exist yet."""
    from evals.cli import EXIT_ERROR, EXIT_OK

    path = Path(file)
    target = Path(suite_dir) if suite_dir else default_suite(path)
    created = not (target / "cases").is_dir()
    if created:
        refuse_existing(target)  # before reading anything: the import would land on it
        suite = Suite(path=target)
    else:
        suite = open_suite(target)
    plan = plan_import(
        path,
        suite,
        fmt,
        Path(chunks) if chunks else None,
        Path(answers_out) if answers_out else None,
        Path(claims) if claims else None,
    )
    try:
        if created:
            write_new_suite(target, plan.cases, plan.judge_prompt, plan.answers, plan.answers_path)
        else:
            write_into(plan.cases, plan.judge_prompt, plan.answers, plan.answers_path)
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_ERROR
    print("\n".join(report(path, suite, plan, created) + run_command(path, suite, plan)))
    return EXIT_OK
