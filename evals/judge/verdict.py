"""The judge's verdict: its schema on the suite's scale, validation, and what a verdict means."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema

from evals.checks import CheckResult, errored
from evals.errors import InputError, Problem, pointer
from evals.suite.folder import Suite
from evals.suite.schemas import SCHEMA_DIR

SCHEMA_FILE = SCHEMA_DIR / "judge.schema.json"
FIELDS = ("score", "grounded", "rubric_met", "reasoning")
# Checks whose failure contradicts a judge that calls the answer fine (and the reverse).
DISAGREEMENT_CHECKS = ("facts_present", "mentions_expected", "sources_cited", "no_forbidden")
# Keywords that strict structured-output endpoints refuse; local validation still enforces them.
_WIRE_DROP = ("$schema", "$id", "$comment", "minLength", "maxLength")


@dataclass(frozen=True)
class Scale:
    """The suite's score scale and its review threshold."""

    lo: int = 1
    hi: int = 5
    threshold: int = 3

    def normalise(self, score: int) -> float:
        """The score mapped to [0, 1]: (score - lo) / (hi - lo)."""
        return round((score - self.lo) / (self.hi - self.lo), 6)

    def passes(self, verdict: dict[str, Any]) -> bool:
        """A verdict passes when grounded, rubric met and the score is above the threshold."""
        return bool(
            verdict["grounded"] and verdict["rubric_met"] and verdict["score"] > self.threshold
        )

    def describe(self) -> str:
        return f"an integer from {self.lo} (wrong or harmful) to {self.hi} (correct, complete, grounded)"


def scale_of(suite: Suite) -> Scale:
    """The suite's judge_scale and judge_threshold, checked: lo < hi and lo <= threshold < hi."""
    s = suite.settings
    where = str(suite.path / "suite.toml")
    raw = list(s.judge_scale)
    if len(raw) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise InputError([Problem(where, "/judge_scale", "must be two integers [lowest, highest]")])
    lo, hi = raw
    problems = []
    if lo >= hi:
        problems.append(Problem(where, "/judge_scale", f"lowest {lo} must be below highest {hi}"))
    elif not lo <= s.judge_threshold < hi:
        problems.append(
            Problem(
                where,
                "/judge_threshold",
                f"{s.judge_threshold} must be at least {lo} and below {hi} (scores at or "
                "below it are flagged for review)",
            )
        )
    if problems:
        raise InputError(problems)
    return Scale(lo, hi, s.judge_threshold)


@cache
def _schema_file() -> str:
    return SCHEMA_FILE.read_text("utf-8")


def verdict_schema(scale: Scale) -> dict[str, Any]:
    """schemas/judge.schema.json with the score bounds set to the suite's scale."""
    schema = json.loads(_schema_file())
    schema["properties"]["score"]["minimum"] = scale.lo
    schema["properties"]["score"]["maximum"] = scale.hi
    return schema


def wire_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as sent in response_format: length limits removed (strict mode refuses them)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in _WIRE_DROP}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(copy.deepcopy(schema))


def schema_sha(schema: dict[str, Any]) -> str:
    """SHA-256 of the effective schema's canonical JSON: a change of file or scale re-judges."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(e: jsonschema.ValidationError) -> str:
    """One schema violation in words a judge (and a person) can act on; never the whole value."""
    where = pointer(list(e.absolute_path))
    inst = e.instance
    match e.validator:
        case "required":
            missing = [f for f in e.validator_value if f not in inst]
            return "missing field(s): " + ", ".join(missing)
        case "additionalProperties":
            known = set((e.schema.get("properties") or {}).keys())
            extra = sorted(k for k in inst if k not in known)
            return "unexpected field(s): " + ", ".join(extra)
        case "minimum" | "maximum":
            lo = e.schema.get("minimum")
            hi = e.schema.get("maximum")
            return f"{where}: {_short(inst)} is outside the scale {lo} to {hi}"
        case "maxLength":
            return f"{where}: {len(inst)} characters, over the limit of {e.validator_value}"
        case "minLength":
            return f"{where}: must not be empty"
        case "type":
            return f"{where}: {_short(inst)} is not of type {e.validator_value}"
    return f"{where}: {e.message[:200]}"


# A reply that is one fenced block and nothing else, as servers without structured output
# often send; the object inside is still validated like any other reply.
_FENCED = re.compile(r"\A```(?:json|JSON)?[ \t]*\r?\n(.*?)\r?\n[ \t]*```\Z", re.DOTALL)


def unfence(content: str) -> str:
    """The JSON inside a reply that is exactly one ```json fenced block; else the reply as is."""
    m = _FENCED.match(content.strip())
    return m.group(1) if m else content


def parse_reply(content: str | None, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Parse one judge reply and validate it against `schema`: (object, "") or (None, what
    was wrong, in words the judge can act on)."""
    if content is None or not content.strip():
        return None, "the reply was empty"
    try:
        data = json.loads(unfence(content))
    except json.JSONDecodeError as exc:
        return (
            None,
            f"the reply is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); it began {_short(content.strip()[:60])}",
        )
    if not isinstance(data, dict):
        return None, f"the reply is JSON but not an object: {_short(data)}"
    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(
        cls(schema).iter_errors(data), key=lambda e: (list(e.absolute_path), e.validator)
    )
    if errors:
        return None, "; ".join(dict.fromkeys(_describe(e) for e in errors))
    return data, ""


def check_reply(content: str | None, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Parse and validate one judge reply: (verdict, "") or (None, what was wrong)."""
    data, problem = parse_reply(content, schema)
    if data is None:
        return None, problem
    verdict = {k: data[k] for k in FIELDS}
    verdict["score"] = int(verdict["score"])  # 4.0 is an integer to JSON Schema; store 4
    return verdict, ""


def judge_result(verdict: dict[str, Any] | None, error: str | None, scale: Scale) -> CheckResult:
    """The `judge` check: error with the reason when there is no verdict; never a made-up score."""
    if verdict is None:
        return errored(error or "no verdict")
    ok = scale.passes(verdict)
    parts = [
        f"score {verdict['score']} on {scale.lo}-{scale.hi}",
        "grounded" if verdict["grounded"] else "not grounded",
        "rubric met" if verdict["rubric_met"] else "rubric not met",
    ]
    return CheckResult(
        "pass" if ok else "fail", scale.normalise(verdict["score"]), ", ".join(parts)
    )


def review_reasons(
    verdict: dict[str, Any] | None,
    error: str | None,
    scale: Scale,
    deterministic: dict[str, CheckResult],
) -> list[str]:
    """Why a person should look at this row (empty: no reason)."""
    if verdict is None:
        return [f"judge error: {error or 'no verdict'}"]
    reasons: list[str] = []
    if verdict["score"] <= scale.threshold:
        reasons.append(
            f"judge score {verdict['score']} is at or below the review threshold {scale.threshold}"
        )
    judge_ok = bool(verdict["grounded"] and verdict["rubric_met"])
    failed = [
        n for n in DISAGREEMENT_CHECKS if n in deterministic and deterministic[n].status == "fail"
    ]
    if judge_ok and failed:
        reasons.append(f"judge says grounded and rubric met, but {', '.join(failed)} failed")
    scored = [r for r in deterministic.values() if r.status in ("pass", "fail", "error")]
    if not judge_ok and scored and all(r.status == "pass" for r in scored):
        said = [
            w
            for w, ok in (
                ("not grounded", verdict["grounded"]),
                ("rubric not met", verdict["rubric_met"]),
            )
            if not ok
        ]
        reasons.append(f"every deterministic check passed, but the judge says {' and '.join(said)}")
    return reasons
