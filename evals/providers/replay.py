"""Replay of saved answers: evaluate a system that was run elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.providers.masking import printable
from evals.reply import ProviderError, Reply
from evals.suite.case import Case, parse_json_value
from evals.suite.casefiles import ID_RE, MAX_ID_LEN
from evals.suite.jsonl import jsonl_lines

_TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
_FIELDS = {
    "case",
    "answer",
    "retrieved",
    "cited",
    "abstained",
    "latency_ms",
    "usage",
    "messages",
    "claims",
}
_ROLES = ("user", "assistant")


def _ref_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _usage(value: Any) -> bool:
    """Token usage as endpoints report it: known counts are non-negative integers."""
    if not isinstance(value, dict):
        return False
    return all(
        isinstance(value[k], int) and not isinstance(value[k], bool) and value[k] >= 0
        for k in _TOKEN_KEYS
        if k in value and value[k] is not None
    )


def _turns_problem(value: Any) -> str | None:
    """Why `messages` is not a list of `{"role": "user"|"assistant", "content": str}`."""
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of turns"
    for i, turn in enumerate(value):
        ok = (
            isinstance(turn, dict)
            and set(turn) == {"role", "content"}
            and turn["role"] in _ROLES
            and isinstance(turn["content"], str)
        )
        if not ok:
            return f'turn {i} must be {{"role": "user"|"assistant", "content": string}}'
    return None


def _claims_problem(value: Any) -> str | None:
    """Why `claims` is not a list of `{"claim": str, "support": [refs]}`."""
    if not isinstance(value, list):
        return "must be a list of annotated claims"
    for i, c in enumerate(value):
        ok = (
            isinstance(c, dict)
            and set(c) == {"claim", "support"}
            and isinstance(c["claim"], str)
            and c["claim"].strip() != ""
            and _ref_list(c["support"])
        )
        if not ok:
            return f'claim {i} must be {{"claim": string, "support": [refs]}}'
    return None


def load_answers(path: Path) -> dict[str, dict[str, Any]]:
    """Read a JSONL answers file; every malformed line is reported at once."""
    if not path.is_file():
        raise InputError([Problem(str(path), "", "answers file does not exist")])
    answers: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    raw = path.read_bytes()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError([Problem(str(path), "", "UTF-16 text; save it as UTF-8")])
    try:
        # A byte-order mark, as some Windows tools write, is tolerated. Only \n ends a line:
        # an answer may hold U+2028 raw, which splitlines() would cut in two.
        lines = jsonl_lines(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), "", f"not UTF-8 (byte {exc.start})")]) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            rec = parse_json_value(line)
        except ValueError as exc:
            problems.append(
                Problem(str(path), where, str(exc).replace(" at line 1, column", " at column"))
            )
            continue
        if not isinstance(rec, dict):
            problems.append(Problem(str(path), where, "not a JSON object"))
            continue
        unknown = sorted(set(rec) - _FIELDS)
        if unknown:
            problems.append(Problem(str(path), where, f"unknown field(s): {', '.join(unknown)}"))
        if not isinstance(rec.get("case"), str):
            problems.append(Problem(str(path), f"{where}/case", "required string"))
            continue
        if not isinstance(rec.get("answer"), str):
            problems.append(Problem(str(path), f"{where}/answer", "required string"))
        for key in ("retrieved", "cited"):
            if key in rec and rec[key] is not None and not _ref_list(rec[key]):
                problems.append(Problem(str(path), f"{where}/{key}", "must be a list of refs"))
        if (
            "abstained" in rec
            and rec["abstained"] is not None
            and not isinstance(rec["abstained"], bool)
        ):
            problems.append(Problem(str(path), f"{where}/abstained", "must be true or false"))
        latency = rec.get("latency_ms")
        if latency is not None and (not _number(latency) or latency < 0):
            problems.append(Problem(str(path), f"{where}/latency_ms", "must be a number >= 0"))
        usage = rec.get("usage")
        if usage is not None and not _usage(usage):
            problems.append(
                Problem(
                    str(path),
                    f"{where}/usage",
                    "must be an object whose token counts are whole numbers >= 0",
                )
            )
        for key, why in (("messages", _turns_problem), ("claims", _claims_problem)):
            found = why(rec[key]) if key in rec and rec[key] is not None else None
            if found:
                problems.append(Problem(str(path), f"{where}/{key}", found))
        if rec["case"] in answers:
            problems.append(
                Problem(str(path), f"{where}/case", f"duplicate answer for {rec['case']!r}")
            )
        answers[rec["case"]] = rec
    if problems:
        raise InputError(problems)
    if not answers:
        # Every case would be an error row "no saved answer": a wrong or truncated file.
        raise InputError([Problem(str(path), "", "no answers in the file (it is empty)")])
    return answers


def same_conversation(turns: list[dict[str, str]], case: Case) -> bool:
    """Whether saved turns are the case's: its earlier turns, with or without the final
    question (a log may record the conversation before or after the last message)."""
    return turns in (case.turns, case.messages)


def _shown_id(case_id: str) -> str:
    """A case id as a warning may print it: quoted, clean, cut short; marked when it could
    never be a case id (`../../etc/passwd`)."""
    shown = repr(printable(case_id, one_line=True)[:60])
    valid = ID_RE.match(case_id) and len(case_id) <= MAX_ID_LEN
    return shown if valid else f"{shown} (not a case id)"


def unmatched_warning(
    path: Path, answered: list[str], case_ids: set[str], show: int = 5
) -> str | None:
    """One warning line for answers that name no case of the suite, or None.

    Such lines are never used, so a typo in an id (or a file for another suite) would
    otherwise go unnoticed until the missing case shows up as an error row.
    """
    strays = [cid for cid in answered if cid not in case_ids]
    if not strays:
        return None
    named = ", ".join(_shown_id(cid) for cid in strays[:show])
    more = f", and {len(strays) - show} more" if len(strays) > show else ""
    return (
        f"warning: {path}: {len(strays)} answer(s) name no case in the suite and are not "
        f"used: {named}{more}"
    )


class ReplayProvider:
    """Answers from a file. A case with no saved answer is an error row, not a skip."""

    def __init__(self, model: str, path: Path) -> None:
        self.model = model
        self.path = path
        self.answers = load_answers(path)

    def stamp(self) -> dict[str, Any]:
        return {"kind": "replay", "answers_file": str(self.path)}

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        rec = self.answers.get(case.id)
        if rec is None:
            raise ProviderError(f"no saved answer for case {case.id!r} in {self.path}")
        turns = rec.get("messages")
        if turns is not None and not same_conversation(turns, case):
            raise ProviderError(
                f"the saved answer for case {case.id!r} replies to other turns than the "
                "case's conversation (its `messages` differ): it was made for another case text",
                "saved answer for other turns",
            )
        return Reply(
            answer=rec["answer"],
            retrieved=rec.get("retrieved"),
            cited=rec.get("cited"),
            abstained=rec.get("abstained"),
            latency_ms=rec.get("latency_ms"),
            usage=rec.get("usage"),
            claims=rec.get("claims"),
        )

    def unmatched(self, case_ids: set[str]) -> str | None:
        """The warning for saved answers that name no case in `case_ids`, or None."""
        return unmatched_warning(self.path, list(self.answers), case_ids)

    async def aclose(self) -> None:
        return None
