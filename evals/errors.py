"""Problems with user input, reported all at once and without a traceback."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem in one file: `path: /json/pointer: message`."""

    path: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.pointer or '/'}: {self.message}"


class InputError(Exception):
    """Bad input or usage: exit code 2. Carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem("", "", problems)]
        self.problems = problems
        super().__init__("\n".join(map(str, problems)))

    def lines(self) -> list[str]:
        """One printable line per problem; a bare message has no path prefix."""
        return [str(p) if p.path else p.message for p in self.problems]


def pointer(parts: tuple | list) -> str:
    """A JSON pointer (RFC 6901) for a path of keys and indexes."""
    if not parts:
        return "/"
    escaped = (str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return "/" + "/".join(escaped)
