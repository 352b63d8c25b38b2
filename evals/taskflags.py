"""invoke parser additions: long spellings for one-letter options (`invoke diff --a X`) and a
positional RUN that may be left out (`invoke report`)."""

from __future__ import annotations

from typing import Any

from invoke import Task
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
