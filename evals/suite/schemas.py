"""The JSON Schemas in schemas/ and every violation of one, each with its JSON pointer."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.errors import Problem, pointer
from evals.suite.compiled_schema import Check, compile_schema

if TYPE_CHECKING:
    import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

# Schemas first checked by their compiled form (tests/test_compiled_schema.py holds each to
# jsonschema's verdict on thousands of mutants): a valid record costs microseconds, and
# jsonschema, loaded only for an invalid one, writes the report users know.
COMPILED = frozenset({"case.schema.json", "labelled.schema.json"})


@cache
def schema(name: str) -> dict[str, Any]:
    """A JSON Schema from schemas/ by file name."""
    return json.loads((SCHEMA_DIR / name).read_text("utf-8"))


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A format-checking validator for the named schema, built once."""
    import jsonschema  # about 0.2 s to import: only once a record needs its full report

    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    return cls(s, format_checker=cls.FORMAT_CHECKER)


@cache
def compiled(name: str) -> Check:
    """The compiled check of the named schema, built once."""
    return compile_schema(schema(name))


def schema_problems(data: Any, schema_name: str, path: str) -> list[Problem]:
    """Every schema violation of `data`, each with its JSON pointer."""
    if schema_name in COMPILED and compiled(schema_name)(data) is None:
        return []
    return reported_problems(data, schema_name, path)


def reported_problems(data: Any, schema_name: str, path: str) -> list[Problem]:
    """Every violation as `jsonschema` reports it: the messages users see, pointers included."""
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
