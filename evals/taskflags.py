"""invoke parser additions: long spellings for one-letter options (`invoke diff --a X`), a
positional RUN that may be left out (`invoke report`), typed flag values, `-h` as help in
every task, and exit 2 with one line for any bad flag."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from invoke import Exit, Program, Task
from invoke.exceptions import ParseError
from invoke.parser import Argument, ParserContext
from invoke.parser.parser import ParseMachine


class LongFlagTask(Task):
    """A task whose one-letter options also answer to `--x`; invoke alone offers only `-x`."""

    def get_arguments(self, ignore_unknown_help: bool | None = None) -> list[Argument]:
        args = super().get_arguments(ignore_unknown_help)
        for arg in args:
            if len(arg.names[0]) == 1:
                arg.long_flag = "--" + arg.names[0]
        return args


_add_arg = ParserContext.add_arg


def _add_arg_with_long_flag(self: ParserContext, *args: Any, **kwargs: Any) -> None:
    _add_arg(self, *args, **kwargs)
    arg = args[0] if len(args) == 1 and isinstance(args[0], Argument) else None
    long_flag = getattr(arg, "long_flag", None)
    # Only arguments marked by LongFlagTask get the alias; every other task parses as before.
    if arg is not None and long_flag and long_flag not in self.flags:
        self.flags.alias(long_flag, to="-" + arg.names[0])


if not getattr(ParserContext.add_arg, "long_flags", False):
    _add_arg_with_long_flag.long_flags = True  # type: ignore[attr-defined]
    ParserContext.add_arg = _add_arg_with_long_flag  # type: ignore[method-assign]


class ReportTask(LongFlagTask):
    """Positional arguments whose default is None may be omitted (invoke requires them)."""

    def get_arguments(self, ignore_unknown_help: bool | None = None) -> list[Argument]:
        args = super().get_arguments(ignore_unknown_help)
        for arg in args:
            if arg.positional and arg.default is None:
                arg.may_be_omitted = True  # type: ignore[attr-defined]
        return args


_complete_context = ParseMachine.complete_context


def _complete_allowing_omitted(self: ParseMachine) -> None:
    # A left-out optional positional gets "" so invoke's "required positional" check passes;
    # the task reads "" as "not given". Only arguments marked by ReportTask are touched.
    if self.context is not None:
        for arg in self.context.positional_args:
            if getattr(arg, "may_be_omitted", False) and arg.value is None:
                arg.value = ""
    _complete_context(self)


if not getattr(ParseMachine.complete_context, "omittable", False):
    _complete_allowing_omitted.omittable = True  # type: ignore[attr-defined]
    ParseMachine.complete_context = _complete_allowing_omitted  # type: ignore[method-assign]


# --- Bad flags: one line on stderr and exit 2, for every task ------------------------------
#
# invoke itself exits 1 on a parse error ("a case failed" to CI), shows a ValueError traceback
# for `--epochs x`, lets an iterable flag go without a value (`--model` alone ran the offline
# model), and hands `-h` to whichever option took `h` as its short flag. The patches below
# make every task answer alike: unknown flag, missing value, wrong type -> `TASK: ...`, exit 2;
# `-h`/`--help` anywhere after a task name -> that task's help.

EXIT_USAGE = 2
HELP_TOKENS = ("-h", "--help")


@dataclass(frozen=True)
class ValueType:
    """How a typed flag's text becomes its value, and what to call it when it does not."""

    expected: str
    parse: Callable[[str], int | float]


def _whole(text: str) -> int:
    if not re.fullmatch(r"\s*[+-]?\d+\s*", text):
        raise ValueError(text)
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


WHOLE = ValueType("a whole number", _whole)
NUMBER = ValueType("a number", _number)

#: Typed flags by parameter name. One name means one thing in every task, so the type is
#: declared once here; ranges (`--epochs 0`) stay with the command that knows them.
FLAG_TYPES: dict[str, ValueType] = {
    "epochs": WHOLE,
    "limit": WHOLE,
    "concurrency": WHOLE,
    "retries": WHOLE,
    "resend": WHOLE,
    "budget": WHOLE,
    "seed": WHOLE,
    "port": WHOLE,
    "sample": WHOLE,
    "max_cost": NUMBER,
    "timeout": NUMBER,
    "alpha": NUMBER,
    "margin": NUMBER,
    "fraction": NUMBER,
}


#: The one short form of each flag common to several tasks, the same in every task; no other
#: flag has one. invoke would pick the first free letter of each name task by task, so `-f`
#: meant --format, --from-run, --fraction, --force or --file depending on the task.
SHORT_FLAGS: dict[str, str] = {
    "suite": "s",
    "run": "r",
    "model": "m",
    "format": "f",
    "out": "o",
    "judge": "j",
    "no_cache": "n",
}


def short_names(name: str, taken: set[str]) -> list[str]:
    """The short form `name` gets: its entry in SHORT_FLAGS unless another parameter of the
    task already is that letter (`c`, the context), else none."""
    short = SHORT_FLAGS.get(name.rstrip("_"))
    return [short] if short and short not in taken and short != "h" else []


def flag_text(arg: Argument) -> str:
    """The spelling users type: `--max-cost`, and `--a` for a one-letter option."""
    name = str(arg.names[0])
    return getattr(arg, "long_flag", None) or ("--" + name if len(name) > 1 else "-" + name)


def parse_typed(task: str, arg: Argument, text: str) -> int | float:
    """The flag's value, or a ParseError worded `TASK: --flag 'text': expected ...`."""
    vtype = FLAG_TYPES[str(arg.name).replace("-", "_")]
    try:
        return vtype.parse(text)
    except ValueError:
        raise ParseError(f"{task}: {flag_text(arg)} {text!r}: expected {vtype.expected}") from None


_arg_opts = Task.arg_opts


def _arg_opts_typed(self: Task, name: str, default: Any, taken_names: set[str]) -> dict[str, Any]:
    # invoke's own short flags are off: SHORT_FLAGS gives each common flag one letter, the same
    # in every task (`h` is never one: `-h` means help in every task).
    auto, self.auto_shortflags = self.auto_shortflags, False
    try:
        opts = _arg_opts(self, name, default, set(taken_names) | {"h"})
    finally:
        self.auto_shortflags = auto
    if auto and len(opts["names"][0]) > 1:
        opts["names"] = [opts["names"][0], *short_names(name, set(taken_names))]
    if name in FLAG_TYPES:
        # The text reaches `see_value` below, which converts it with a clear error; invoke's
        # own cast (int from an int default) would raise a bare ValueError.
        opts["kind"] = str
    return opts


def _help_requested(machine: ParseMachine) -> bool:
    flag = machine.initial.flags.get("--help") if machine.initial is not None else None
    return bool(flag is not None and flag.value)


_handle = ParseMachine.handle


def _handle_with_help(self: ParseMachine, token: str) -> None:
    # invoke checks for a missing positional before core flags, so `invoke new -h` would make
    # "-h" the case id; help wins wherever it is not a task's own flag or a flag's value.
    # A word that looks like a flag is never taken as a positional (`invoke new --bogus` would
    # make "--bogus" the case id).
    if (
        self.current_state != "unknown"
        and self.context is not None
        and self.context.name
        and token not in self.context.flags
        and token not in self.context.inverse_flags
        and not self.waiting_for_flag_value
    ):
        if token in HELP_TOKENS:
            self.initial.flags["--help"].value = self.context.name
            return
        core_flag = self.initial is not None and token in self.initial.flags
        if token.startswith("-") and len(token) > 1 and not core_flag:
            self.error(f"No idea what {token!r} is!")
    _handle(self, token)


_see_value = ParseMachine.see_value


def _see_value_typed(self: ParseMachine, value: Any) -> None:
    _see_value(self, value)
    arg = self.flag
    if arg is not None and str(arg.name).replace("-", "_") in FLAG_TYPES and self.context:
        arg.set_value(parse_typed(str(self.context.name), arg, str(value)), cast=False)


_complete_flag = ParseMachine.complete_flag


def _complete_flag_needing_value(self: ParseMachine) -> None:
    # An iterable flag starts as [] rather than None, so invoke never notices it got no value.
    arg = self.flag
    if arg is not None and arg.kind is list and not self.flag_got_value:
        self.error(f"Flag {arg!r} needed value and was not given one!")
    _complete_flag(self)


_NO_IDEA = re.compile(r"^No idea what '(.*)' is!$", re.S)


def reworded(machine: ParseMachine, msg: str) -> str:
    """invoke's parse error as one line that names the task and the flag."""
    ctx = machine.context
    task = str(ctx.name) if ctx is not None and ctx.name else ""
    if msg.startswith(f"{task}: ") and task:
        return msg
    if m := _NO_IDEA.match(msg):
        token = m.group(1)
        if not task:
            return f"unknown task {token!r}; `invoke --list` shows the tasks"
        what = "unknown flag" if token.startswith("-") else "unexpected argument"
        shown = token if token.startswith("-") else repr(token)
        if task == "init" and token.split("=", 1)[0] == "--suite":
            # Every other task names its suite with --suite; init creates one, named bare.
            return "init: takes the folder to create without --suite: invoke init DIR"
        return f"{task}: {what} {shown}; `invoke {task} --help` lists its flags"
    if "needed value and was not given one" in msg and machine.flag is not None:
        return f"{task}: {flag_text(machine.flag)} needs a value"
    if "did not receive required positional arguments" in msg and ctx is not None:
        names = " ".join(str(a.name).upper() for a in ctx.missing_positional_args)
        return f"{task}: {names} is required; `invoke {task} --help` shows how to call it"
    return f"{task}: {msg}" if task else msg


def _error_reworded(self: ParseMachine, msg: str) -> None:
    raise ParseError(reworded(self, msg), self.context)


_complete_context_base = ParseMachine.complete_context


def _complete_context_for_help(self: ParseMachine) -> None:
    # `invoke new --help` needs no ID: fill missing positionals so help can be printed.
    if self.context is not None and self.context.name and _help_requested(self):
        for arg in self.context.missing_positional_args:
            arg.value = ""
    _complete_context_base(self)


_help_for = ParserContext.help_for


def _help_for_typed(self: ParserContext, flag: str) -> tuple[str, str]:
    # invoke names a value STRING or INT by the argument's kind and shows a repeatable flag
    # (`--model`) as if it took no value; say what each flag takes instead.
    arg = self.flags[flag]
    vtype = FLAG_TYPES.get(str(arg.name).replace("-", "_"))
    word = "STRING" if vtype is None else "INT" if vtype is WHOLE else "NUMBER"
    kind = arg.kind
    if kind is list:
        arg.kind = str
    try:
        names, text = _help_for(self, flag)
    finally:
        arg.kind = kind
    if kind is list:
        text += " (repeatable)"
    return (names.replace("STRING", word) if kind in (str, list) else names), text


_parse_tasks = Program.parse_tasks


def _parse_tasks_exit_2(self: Program) -> None:
    try:
        _parse_tasks(self)
    except ParseError as exc:
        # Exit(message, code) is printed on one line by Program.run, without a traceback.
        raise Exit(" ".join(str(exc).split()), code=EXIT_USAGE) from None


if not getattr(Program.parse_tasks, "exit_2", False):
    _parse_tasks_exit_2.exit_2 = True  # type: ignore[attr-defined]
    Task.arg_opts = _arg_opts_typed  # type: ignore[method-assign]
    ParseMachine.handle = _handle_with_help  # type: ignore[method-assign]
    ParseMachine.see_value = _see_value_typed  # type: ignore[method-assign]
    ParseMachine.complete_flag = _complete_flag_needing_value  # type: ignore[method-assign]
    ParseMachine.error = _error_reworded  # type: ignore[method-assign]
    ParseMachine.complete_context = _complete_context_for_help  # type: ignore[method-assign]
    ParserContext.help_for = _help_for_typed  # type: ignore[method-assign]
    Program.parse_tasks = _parse_tasks_exit_2  # type: ignore[method-assign]


# --- Several positional values: `invoke compare RUN RUN [RUN ...]` -------------------------


class ManyPositionalTask(LongFlagTask):
    """A task whose positional argument takes every bare word after the task name: the task
    receives a list. invoke alone gives a positional one word and reads the next as a task."""

    def get_arguments(self, ignore_unknown_help: bool | None = None) -> list[Argument]:
        args = super().get_arguments(ignore_unknown_help)
        for arg in args:
            if arg.positional:
                arg.takes_many = True  # type: ignore[attr-defined]
        return args


def _many(machine: ParseMachine) -> Argument | None:
    ctx = machine.context
    if ctx is None or not ctx.name or ctx.missing_positional_args:
        return None
    return next((a for a in ctx.positional_args if getattr(a, "takes_many", False)), None)


_handle_one = ParseMachine.handle


def _handle_many(self: ParseMachine, token: str) -> None:
    arg = _many(self) if self.current_state != "unknown" else None
    if (
        arg is not None
        and not token.startswith("-")
        and not self.waiting_for_flag_value
        and token not in self.context.flags  # type: ignore[union-attr]
    ):
        seen = arg.value if isinstance(arg.value, list) else [arg.value]
        arg.set_value([*seen, token], cast=False)
        return
    _handle_one(self, token)


if not getattr(ParseMachine.handle, "many", False):
    _handle_many.many = True  # type: ignore[attr-defined]
    ParseMachine.handle = _handle_many  # type: ignore[method-assign]
