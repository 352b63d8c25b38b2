"""The `invoke` command as this project installs it: invoke's own program, with the
project's exit codes for what happens before a task runs.

invoke alone exits 1 on Ctrl-C (while the tasks load, say) and 1 when run outside the
project ("Can't find any collection named 'tasks'!"); this project keeps 1 for a real
negative result, so those become 130 (interrupted) and 2 (usage, with where to run from).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from invoke import Exit, Program, __version__

#: The project folder this package was installed from (an editable install), if it is one.
PROJECT = Path(__file__).resolve().parent.parent


def not_here() -> str:
    """Where to run `invoke` from, when no tasks.py is found here or above."""
    msg = f"invoke: no tasks.py in {Path.cwd()} or any folder above it"
    if (PROJECT / "tasks.py").is_file():
        return f"{msg}: run it from the project folder ({PROJECT}), or name it: invoke -r {PROJECT} TASK"
    return f"{msg}: run it from the project folder (the one with tasks.py and pyproject.toml)"


class EvalsProgram(Program):
    """invoke's Program; only the exit codes of a missing collection and of Ctrl-C differ."""

    def load_collection(self) -> None:
        try:
            super().load_collection()
        except Exit as exc:
            if "Can't find any collection" not in str(exc.message or ""):
                raise
            raise Exit(not_here(), code=2) from None

    def run(self, argv: list[str] | str | None = None, exit: bool = True) -> None:  # noqa: A002
        try:
            super().run(argv, exit)
        except SystemExit as exc:
            # invoke turns Ctrl-C anywhere (loading the tasks, too) into exit 1.
            if exc.code == 1 and isinstance(exc.__context__, KeyboardInterrupt):
                print("interrupted", file=sys.stderr)
                raise SystemExit(130) from None
            raise


def main() -> None:
    """The `invoke` console script."""
    sys.argv[0] = re.sub(r"(-script\.pyw|\.exe)?$", "", sys.argv[0])
    # Line by line, so that a warning on stderr stands where it was printed among the lines
    # of stdout when both go to one file or pipe (`2>&1`), not inside a buffered block.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)
    program = EvalsProgram(
        name="Invoke", binary="inv[oke]", binary_names=["invoke", "inv"], version=__version__
    )
    try:
        program.run()
    except KeyboardInterrupt:  # between invoke's own handlers
        print("interrupted", file=sys.stderr)
        sys.exit(130)
