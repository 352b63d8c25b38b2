"""A suite: a folder with cases/, prompt.txt, optional suite.toml, checks.py and sealed/."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import os
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.suite.case import Case
from evals.suite.caselist import CaseList
from evals.suite.groups import Groups

DEFAULT_CITATION_PATTERN = r"\[doc:([^\]\s]+)\]"
DEFAULT_REFUSAL_PHRASES = [
    "i don't know",
    "i do not know",
    "i can't help with",
    "i cannot help with",
    "i'm not able to",
    "i am not able to",
    "not in the documentation",
    "the documentation does not say",
    "i'll hand this over",
    "i will hand this over",
    "hand you over",
    "pass this to a colleague",
    "our support team will",
    "contact our support team",
]


@dataclass(frozen=True)
class SuiteSettings:
    """Per-suite knobs from `suite.toml`; the defaults suit `[doc:REF]` citations."""

    citation_pattern: str = DEFAULT_CITATION_PATTERN
    refusal_phrases: tuple[str, ...] = tuple(DEFAULT_REFUSAL_PHRASES)
    # How far after a figure its citation may stand, in characters.
    figure_window: int = 240
    # Judge settings (used by the judge check).
    judge_scale: tuple[int, int] = (1, 5)
    judge_threshold: int = 3
    judge_on_facts: bool = False
    # Checks (the suite's own, from checks.py) every case runs on top of its implied checks,
    # or of those its `checks` lists.
    add_checks: tuple[str, ...] = ()
    # What claims_grounded makes of the assistant's own action or promise and of a dropped
    # condition in every case that does not say (expect.own_action, expect.dropped_condition):
    # "fail" for an assistant that can act on no account.
    own_action: str = "review"
    dropped_condition: str = "review"
    # Floors of `invoke calibrate --checks` ([calibration] in suite.toml).
    min_sensitivity: float = 0.95
    min_specificity: float = 0.95
    # Groups of phrasings that mean the same in this suite (synonyms.toml), written once for
    # all its cases: "credit card" ~ "payment card".
    synonyms: tuple[tuple[str, ...], ...] = ()
    # The suite's prompt.txt, for the checks that hold an answer to what it asks (the
    # register it names for each language).
    prompt: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Hashed once: every memo of the matching takes the synonyms as an argument.
        if not isinstance(self.synonyms, Groups):
            object.__setattr__(self, "synonyms", Groups(self.synonyms))


@dataclass
class Suite:
    """A suite directory and what it holds, loaded lazily by the commands that need it."""

    path: Path
    settings: SuiteSettings = field(default_factory=SuiteSettings)

    @property
    def cases_dir(self) -> Path:
        return self.path / "cases"

    @property
    def prompt_path(self) -> Path:
        return self.path / "prompt.txt"

    @property
    def sealed_dir(self) -> Path:
        return self.path / "sealed"

    @property
    def judge_prompt_path(self) -> Path:
        return self.path / "judge_prompt.txt"

    def case_files(self) -> list[Path]:
        """Every `*.json` entry of cases/, by name (one directory read; names sort as paths do)."""
        try:
            names = sorted(e.name for e in os.scandir(self.cases_dir) if e.name.endswith(".json"))
        except OSError:  # none, not a folder, or unreadable: no case files, as before
            return []
        return [self.cases_dir / name for name in names]

    def prompt_bytes(self) -> bytes:
        if not self.prompt_path.is_file():
            raise InputError([Problem(str(self.prompt_path), "", "prompt.txt is missing")])
        return self.prompt_path.read_bytes()

    def prompt_text(self) -> str:
        return self.prompt_bytes().decode("utf-8")

    def prompt_sha(self) -> str:
        """SHA-256 of prompt.txt's bytes: it stamps every row."""
        return hashlib.sha256(self.prompt_bytes()).hexdigest()


def load_suite_settings(path: Path) -> SuiteSettings:
    """Read `suite.toml` if present; a wrong key or type is a clear input error."""
    synonyms = load_synonyms(path)
    prompt_file = path / "prompt.txt"
    # Undecodable bytes are for `validate` to report; the checks read what they can.
    prompt = prompt_file.read_text("utf-8", errors="replace") if prompt_file.is_file() else ""
    file = path / "suite.toml"
    if not file.is_file():
        return SuiteSettings(synonyms=synonyms, prompt=prompt)
    try:
        table = tomllib.loads(file.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError([Problem(str(file), "", f"cannot parse: {exc}")]) from None
    problems: list[Problem] = []
    kwargs: dict[str, Any] = {}
    extra = {}
    where = str(file)
    for key, value in table.items():
        if key == "calibration":
            floors, found = calibration_floors(value, where)
            kwargs.update(floors)
            problems += found
            continue
        if key in EXTRA_KEYS:
            if not isinstance(value, dict):
                problems.append(Problem(where, f"/{key}", "must be a table: [checks]"))
            extra[key] = value
            continue
        if key not in _EXPECTED:
            known = ", ".join([*_EXPECTED, *EXTRA_KEYS, "calibration"])
            problems.append(Problem(where, f"/{key}", f"unknown setting (known: {known})"))
            continue
        kind = _EXPECTED[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            problems.append(Problem(where, f"/{key}", f"must be {kind.__name__}"))
            continue
        problem = _value_problem(key, value)
        if problem:
            problems.append(Problem(where, f"/{key}", problem))
            continue
        kwargs[key] = tuple(value) if isinstance(value, list) else value
    if problems:
        raise InputError(problems)
    return SuiteSettings(extra=extra, synonyms=synonyms, prompt=prompt, **kwargs)


def load_synonyms(path: Path) -> tuple[tuple[str, ...], ...]:
    """The suite's `synonyms.toml`: `groups = [["credit card", "payment card"], ...]`.

    Each group holds two or more phrasings; a phrasing may sit in one group only.
    """
    file = path / "synonyms.toml"
    if not file.is_file():
        return ()
    where = str(file)
    try:
        table = tomllib.loads(file.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError([Problem(where, "", f"cannot parse: {exc}")]) from None
    problems = [
        Problem(where, f"/{k}", "unknown key (the file holds `groups` only)")
        for k in table
        if k != "groups"
    ]
    groups = table.get("groups", [])
    if not isinstance(groups, list):
        problems.append(Problem(where, "/groups", "must be a list of lists of phrasings"))
        groups = []
    out: list[tuple[str, ...]] = []
    seen: dict[str, int] = {}
    for n, group in enumerate(groups):
        if not (
            isinstance(group, list)
            and len(group) >= 2
            and all(isinstance(w, str) and w.strip() for w in group)
        ):
            problems.append(
                Problem(where, f"/groups/{n}", "must list two or more non-empty phrasings")
            )
            continue
        for k, w in enumerate(group):
            key = " ".join(w.casefold().split())
            if key in seen:
                problems.append(
                    Problem(where, f"/groups/{n}/{k}", f"{w!r} is already in group {seen[key]}")
                )
            seen[key] = n
        out.append(tuple(group))
    if problems:
        raise InputError(problems)
    return tuple(out)


_EXPECTED: dict[str, type] = {
    "citation_pattern": str,
    "refusal_phrases": list,
    "figure_window": int,
    "judge_scale": list,
    "judge_threshold": int,
    "judge_on_facts": bool,
    "add_checks": list,
    "own_action": str,
    "dropped_condition": str,
}
# A table of settings for the suite's own checks, which read `settings.extra["checks"]`.
EXTRA_KEYS = ("checks", "matrix")


FLOORS = ("min_sensitivity", "min_specificity")


def calibration_floors(value: Any, where: str) -> tuple[dict[str, float], list[Problem]]:
    """The `[calibration]` table: each floor a number from 0 to 1."""
    if not isinstance(value, dict):
        return {}, [Problem(where, "/calibration", "must be a table: [calibration]")]
    floors: dict[str, float] = {}
    problems: list[Problem] = []
    for key, floor in value.items():
        at = f"/calibration/{key}"
        if key not in FLOORS:
            problems.append(Problem(where, at, f"unknown setting (known: {', '.join(FLOORS)})"))
        elif isinstance(floor, bool) or not isinstance(floor, int | float):
            problems.append(Problem(where, at, "must be a number from 0 to 1"))
        elif not 0.0 <= floor <= 1.0:
            problems.append(Problem(where, at, f"{floor!r} is not between 0 and 1"))
        else:
            floors[key] = float(floor)
    return floors, problems


def _value_problem(key: str, value: Any) -> str | None:
    """What is wrong with a setting of the right type, or None."""
    if key in ("refusal_phrases", "add_checks") and not all(
        isinstance(v, str) and v.strip() for v in value
    ):
        return "must be a list of non-empty strings"
    if key in ("own_action", "dropped_condition") and value not in ("review", "fail"):
        return f'{value!r} is neither "review" nor "fail"'
    if key == "figure_window" and value < 0:
        return "must be 0 or more (characters after a figure)"
    if key == "citation_pattern":
        from evals.suite.patterns import compile_pattern, pattern_problem

        problem = pattern_problem(value)
        if problem:
            return f"regex {value!r} {problem}"
        if compile_pattern(value).groups > 1:
            return "must have at most one group: the cited ref"
    return None


LINK_REFUSED = (
    "a symbolic link: refused (case files, cases/ and sealed/ must be real files and "
    "folders of the suite, not links to text elsewhere)"
)


def link_problem(path: Path) -> Problem | None:
    """A problem when `path` is a symbolic link, else None.

    A linked case file runs (and `fmt` rewrites, as a copy, ready to commit) whatever file
    it points at, anywhere on the machine; a linked `sealed/` moves the ledger and the pile
    out of the repository's sight. Neither is followed.
    """
    return Problem(str(path), "", LINK_REFUSED) if path.is_symlink() else None


def sealed_link_problems(suite: Suite) -> list[Problem]:
    """Every symbolic link among the entries of sealed/ (and its retired/ record)."""
    d = suite.sealed_dir
    if not d.is_dir() or d.is_symlink():
        return []
    entries = list(d.iterdir())
    retired = d / "retired"
    if retired.is_dir() and not retired.is_symlink():
        entries += list(retired.iterdir())
    return [p for p in map(link_problem, sorted(entries)) if p]


def open_suite(path: str | Path) -> Suite:
    """A Suite for `path`; refuses a folder that is not a suite, or a linked cases/ or sealed/."""
    p = Path(path)
    if not p.is_dir():
        raise InputError([Problem(str(p), "", "suite folder does not exist")])
    linked = [q for q in (link_problem(p / "cases"), link_problem(p / "sealed")) if q]
    if linked:
        raise InputError(linked)
    if not (p / "cases").is_dir() and not (p / "sealed").is_dir():
        raise InputError([Problem(str(p), "", "not a suite: no cases/ folder")])
    return Suite(path=p, settings=load_suite_settings(p))


def load_suite_checks(suite: Suite) -> None:
    """Import the suite's own `checks.py`, whose `@check` functions join the registry."""
    file = (suite.path / "checks.py").resolve()
    if not file.is_file():
        return
    name = f"evals_suite_checks_{hashlib.sha256(str(file).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise InputError([Problem(str(file), "", "cannot import")])
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken suite file is bad input, not a crash
        raise InputError(
            [Problem(str(file), "", f"import failed: {type(exc).__name__}: {exc}")]
        ) from None


def select_cases(
    cases: Sequence[Case],
    *,
    case_glob: str | None = None,
    category: str | None = None,
    limit: int | None = None,
) -> Sequence[Case]:
    """Filter by id glob and category, then keep the first `limit` in id order."""
    if isinstance(cases, CaseList):  # already in id order, read only to match a category
        return cases.select(case_glob=case_glob, category=category, limit=limit)
    out = [c for c in sorted(cases, key=lambda c: c.id)]
    if case_glob:
        out = [c for c in out if fnmatch.fnmatchcase(c.id, case_glob)]
    if category:
        out = [c for c in out if c.category == category]
    if limit is not None:
        out = out[: max(limit, 0)]
    return out


def suite_digest(cases: Sequence[Case]) -> str:
    """One hash over every case's id and content hash, order-independent."""
    if isinstance(cases, CaseList):
        return digest_of(cases.id_shas())  # in id order, no file read
    return digest_of((c.id, c.sha) for c in sorted(cases, key=lambda c: c.id))


def digest_of(pairs: Iterable[tuple[str, str]]) -> str:
    """`suite_digest` of the cases given as (id, content hash), already in the order of
    their ids: read as they come, none held."""
    h = hashlib.sha256()
    for cid, sha in pairs:
        h.update(f"{cid}\0{sha}\n".encode())
    return h.hexdigest()
