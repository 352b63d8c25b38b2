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
