"""`invoke report`'s task class: RUN may be given positionally or left out, and `--a`/`--b` work."""

from __future__ import annotations

from invoke.parser import Argument
from invoke.parser.parser import ParseMachine

from evals.longflags import LongFlagTask


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
