"""`invoke install-hooks`: a plain git pre-commit hook that validates staged case files."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from evals.errors import InputError, Problem

MARKER = "# evals pre-commit hook (written by `invoke install-hooks`)"

# POSIX sh, no dependencies: find the suites of the staged case files (the folder above
# cases/), then run validate and fmt --check on each. Deleted files are not checked.
HOOK = f"""#!/bin/sh
{MARKER}
# Blocks a commit whose staged case files are invalid or not in canonical form.
# Skip once with `git commit --no-verify`; remove this file to uninstall.
# -z and quotePath off: a name with non-ASCII letters must not be quoted past the match.
staged=$(git -c core.quotePath=false diff --cached --name-only -z --diff-filter=ACMR | tr '\\000' '\\n' | grep -E '(^|/)cases/[^/]+\\.json$')
[ -z "$staged" ] && exit 0
if [ -x .venv/bin/invoke ]; then INVOKE=.venv/bin/invoke; else INVOKE=invoke; fi
if ! command -v "$INVOKE" >/dev/null 2>&1; then
  echo "pre-commit: invoke not found; set up with: python3 -m venv .venv && .venv/bin/pip install -e ." >&2
  exit 1
fi
status=0
suites=$(printf '%s\\n' "$staged" | sed -E 's#(^|/)cases/[^/]+\\.json$##' | sort -u)
while IFS= read -r suite; do
  [ -n "$suite" ] || suite=.
  echo "pre-commit: checking suite $suite"
  "$INVOKE" validate --suite "$suite" || status=1
  "$INVOKE" fmt --check --suite "$suite" || status=1
done <<EOF
$suites
EOF
if [ "$status" -ne 0 ]; then
  echo "pre-commit: case files need fixing (see above); \\`invoke fmt\\` rewrites them canonically" >&2
fi
exit $status
"""


def hooks_dir(repo: Path) -> Path:
    """Where git looks for hooks (honours core.hooksPath and worktrees)."""
    proc = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise InputError(f"{repo}: not inside a git repository")
    path = Path(proc.stdout.strip())
    return path if path.is_absolute() else repo / path


def install_hook(repo: Path, force: bool) -> tuple[Path, str]:
    """Write the pre-commit hook; refuses to replace someone else's hook without `force`."""
    path = hooks_dir(repo) / "pre-commit"
    if path.exists():
        current = path.read_text("utf-8", errors="replace")
        if current == HOOK:
            return path, "already installed"
        if MARKER not in current and not force:
            raise InputError(
                [
                    Problem(
                        str(path),
                        "",
                        "a different pre-commit hook exists; not replaced (use --force)",
                    )
                ]
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name("pre-commit.tmp")
    tmp.write_text(HOOK, encoding="utf-8")
    tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    tmp.replace(path)
    return path, "installed"


def cmd_install_hooks(force: bool) -> int:
    """The `invoke install-hooks` command, for the repository around the working directory."""
    from evals.cli import EXIT_OK

    path, what = install_hook(Path.cwd(), force)
    print(f"pre-commit hook {what}: {path}")
    return EXIT_OK
