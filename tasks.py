"""invoke tasks: parse flags, call the evals package, set the exit code. Nothing else."""

from __future__ import annotations

from invoke import Exit, task

from evals.cli import guarded


def _done(code: int) -> None:
    if code:
        raise Exit(code=code)


@task(help={"suite": "suite folder (default: evals)"})
def validate(c, suite=None):
    """Validate every case file (and the sealed pile's integrity); exit 2 on any problem."""
    from evals.suite_commands import cmd_validate

    _done(guarded(lambda: cmd_validate(suite)))


@task(help={"suite": "suite folder", "check": "change nothing; exit 1 if a file would change"})
def fmt(c, suite=None, check=False):
    """Rewrite case files in canonical form."""
    from evals.suite_commands import cmd_fmt

    _done(guarded(lambda: cmd_fmt(suite, check)))


@task(help={"suite": "suite folder"})
def new(c, id, suite=None):  # noqa: A002 - the flag users type is `invoke new ID`
    """Write a valid case skeleton to cases/ID.json (never overwrites)."""
    from evals.suite_commands import cmd_new

    _done(guarded(lambda: cmd_new(suite, id)))


@task(
    help={
        "suite": "suite folder (default: evals)",
        "model": "pinned model id, e.g. openai/gpt-4o-mini@2024-07-18 (default: the offline model)",
        "answers": "JSONL of saved answers to evaluate instead of calling a model (needs --model)",
        "label": "a label for the run file name",
        "limit": "run only the first N cases",
        "category": "run only cases of this category",
        "case": "run only cases whose id matches this glob",
        "concurrency": "requests in flight (default 8)",
    }
)
def run(
    c,
    suite=None,
    model=None,
    answers=None,
    label=None,
    limit=None,
    category=None,
    case=None,
    concurrency=None,
):
    """Send every case to the model, check the answers, write a stamped run file."""
    from evals.run_command import RunOptions, cmd_run

    opts = RunOptions(
        suite=suite,
        model=model,
        answers=answers,
        label=label,
        limit=None if limit is None else int(limit),
        category=category,
        case=case,
        concurrency=None if concurrency is None else int(concurrency),
    )
    _done(guarded(lambda: cmd_run(opts)))
