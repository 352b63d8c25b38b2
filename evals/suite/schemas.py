"""The JSON Schemas in schemas/ and every violation of one, each with its JSON pointer."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from evals.errors import Problem, pointer

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


@cache
def schema(name: str) -> dict[str, Any]:
    """A JSON Schema from schemas/ by file name."""
    return json.loads((SCHEMA_DIR / name).read_text("utf-8"))


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A format-checking validator for the named schema, built once."""
    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    return cls(s, format_checker=cls.FORMAT_CHECKER)


def schema_problems(data: Any, schema_name: str, path: str) -> list[Problem]:
    """Every schema violation of `data`, each with its JSON pointer."""
    errors = sorted(validator(schema_name).iter_errors(data), key=lambda e: list(e.absolute_path))
    out = []
    for e in errors:
        msg = e.message
        if e.validator == "additionalProperties":
            msg = f"unknown field(s): {msg.split('(')[-1].rstrip(')')}"
        elif e.validator == "type" and not e.absolute_path and not isinstance(data, dict):
            msg = f"expected a JSON object, found {_json_kind(data)}"
        out.append(Problem(path, pointer(list(e.absolute_path)), msg))
    return out


def _json_kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")
