"""The `diff` command: resolve two run files, compare them, render, and set the exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, EXIT_USAGE
from evals.compare.explain import verdict_line
from evals.compare.pairing import (
    DEFAULT_FAIL_ON,
    DEFAULT_MARGIN,
    Comparison,
    check_options,
)
from evals.compare.render import RENDERERS
from evals.compare.safe import one_line
from evals.compare.streamed import stream_compare
from evals.errors import InputError
from evals.run.files import OutputError, write_whole
from evals.run.latest import resolve_for_suite
from evals.run.prompt_use import diff_note, read_header

#: The command itself failed: no verdict. Neither 1 (CI reads a regression) nor 3 (CI reads
#: "the gate cannot decide this pair", which a rerun of the runs could change).
EXIT_INTERNAL = 4


def guard_internal(command: str, body: Callable[[], int]) -> int:
    """Run a command body; a bug of its own becomes one line and exit 4, never a traceback.

    Exit 1 means "B is worse" to CI, so an unexpected exception must not end with it (as an
    uncaught one would), nor with 3, which means the gate could not decide this pair. Bad
    input (exit 2), unwritable output and Ctrl-C keep their own handling.
    """
    try:
        return body()
    except (InputError, OutputError, KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:  # the point is to catch what nobody foresaw
        print(
            f"{command}: internal error, no verdict ({type(exc).__name__}: "
            f"{one_line(str(exc), 200)}); please report it with the two run files",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def build_report(
    path_a: Path,
    path_b: Path,
    fmt: str = "md",
    show_all: bool = False,
    fail_on: str = DEFAULT_FAIL_ON,
    alpha: float = 0.05,
    margin: float = DEFAULT_MARGIN,
) -> tuple[Comparison, str]:
    """Everything `invoke diff` does short of printing: read, pair, decide, render.

    The two files are streamed (`compare/streamed.py`): what is held grows with the cases a
    report lists, not with the suite, except for `--all` and JSON, which list every case."""
    # JSON is for machines: it always lists every paired case.
    listed = show_all or fmt == "json"
    cmp = stream_compare(
        path_a, path_b, alpha=alpha, fail_on=fail_on, margin=margin, keep_all=listed
    )
    return cmp, RENDERERS[fmt](cmp, show_all=listed)


def _number(flag: str, value: float | str) -> float:
    try:
        return float(value)
    except ValueError:
        raise InputError(f"{flag} must be a number, not {value!r}") from None


def cmd_diff(
    a: str | None,
    b: str | None,
    fmt: str | None = None,
    show_all: bool = False,
    fail_on: str = DEFAULT_FAIL_ON,
    alpha: float | str = 0.05,
    out: str | None = None,
    margin: float | str = DEFAULT_MARGIN,
    suite: str | None = None,
) -> int:
    """Compare run A (default: the baseline) with run B (default: the newest run of `suite`,
    default the configured one).

    `fmt` None: plain text on a terminal, Markdown when piped or written with `out` (raw
    Markdown on a terminal is escapes and pipes to read around).

    Exit 0 PASS, 1 FAIL, 3 INCONCLUSIVE (the gate cannot decide: the reason code says why),
    2 when nothing at all was compared or the input is bad, 4 when the command itself failed.
    """
    return guard_internal(
        "invoke diff", lambda: _diff(a, b, fmt, show_all, fail_on, alpha, out, margin, suite)
    )


def _diff(
    a: str | None,
    b: str | None,
    fmt: str | None,
    show_all: bool,
    fail_on: str,
    alpha: float | str,
    out: str | None,
    margin: float | str,
    suite: str | None = None,
) -> int:
    if fmt is None:
        fmt = "text" if out is None and sys.stdout.isatty() else "md"
    if fmt not in RENDERERS:
        raise InputError(f"--format must be one of {', '.join(RENDERERS)}, not {fmt!r}")
    alpha, margin = _number("--alpha", alpha), _number("--margin", margin)
    check_options(fail_on, alpha, margin, 0.8)
    path_a = resolve_for_suite(a or "baseline", suite, "--a RUN")
    path_b = resolve_for_suite(b or "latest", suite, "--b RUN")
    cmp, text = build_report(path_a, path_b, fmt, show_all, fail_on, alpha, margin)
    if out:
        try:  # whole or not at all: never a 0-byte or half-written report
            write_whole(Path(out), text)
        except OutputError as exc:
            print(exc, file=sys.stderr)
            return EXIT_INTERNAL  # no report delivered: not 3, which means "cannot decide"
        print(f"wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if cmp.deprecated:
        print(f"note: {cmp.deprecated}", file=sys.stderr)
    if unseen := diff_note(read_header(path_a), read_header(path_b)):
        print(unseen, file=sys.stderr)
    d = cmp.decision
    if d.code == "nothing-compared" and all(r.n_paired == 0 for r in d.readings.values()):
        # Nothing was compared (every common case changed or errored in both runs).
        print("no case was scored in both runs: nothing to compare", file=sys.stderr)
        return EXIT_USAGE
    print(one_line(verdict_line(cmp)), file=sys.stderr)
    return {"PASS": EXIT_OK, "FAIL": EXIT_FAIL, "INCONCLUSIVE": EXIT_ERROR}[d.verdict]
