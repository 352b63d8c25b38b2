"""JSON Schemas compiled to Python code, for validating many records fast.

`jsonschema` walks the schema for every record (about 0.3 ms for a run file's row); reading
a 10,000-case run twice for a diff would spend seconds on it. Here a schema is turned once
into plain Python functions (isinstance checks, key lookups, loops) that return None for a
valid record, or the first problem's path and message.

Only the keywords the project's schemas use are supported; any other keyword is refused when
the schema is compiled, so a schema can never be checked less strictly than it reads.
`format: date-time` is checked as RFC 3339 whether or not `jsonschema` has a checker for it;
`format: date` as a real calendar date in `YYYY-MM-DD`, as `jsonschema` checks it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from evals.suite.jsonvalues import has_duplicates, is_date, json_equal, kind_of

#: (path from the record to the offending value, message), or None when the record is valid.
Failure = tuple[tuple[Any, ...], str] | None
Check = Callable[[Any], Failure]

_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$"
)
_IGNORED = {"$schema", "$id", "title", "description", "$comment", "$defs", "examples", "default"}
_SUPPORTED = _IGNORED | {
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "uniqueItems",
    "pattern",
    "format",
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "$ref",
    "dependentRequired",
}
# Rules about one value alone, checked in line where a property names them.
_FLAT = (
    {"type", "enum", "const", "minimum", "maximum", "minLength", "maxLength"}
    | {
        "pattern",
        "format",
    }
    | (_IGNORED - {"$defs"})
)
# What each JSON type is in Python; booleans are not numbers, and 1.0 is an integer.
_TYPE_TEST = {
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
    "string": "isinstance({v}, str)",
    "boolean": "isinstance({v}, bool)",
    "null": "{v} is None",
    "number": "(isinstance({v}, (int, float)) and not isinstance({v}, bool))",
    "integer": "((isinstance({v}, int) and not isinstance({v}, bool)) or "
    "(isinstance({v}, float) and {v}.is_integer()))",
}


class SchemaCompileError(ValueError):
    """The schema uses a keyword this compiler does not check."""


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {
            "_DATE_TIME": _DATE_TIME,
            "is_date": is_date,
            "has_duplicates": has_duplicates,
            "json_equal": json_equal,
            "_kind": kind_of,
        }
        self.functions: dict[tuple[int, bool], str] = {}  # (id(schema), predicate) -> name
        self.pending: list[tuple[str, Any, bool]] = []
        # A predicate (an `if` schema) only says whether the value matches: it returns 1 on
        # the first problem without building a message, which would be wasted there.
        self.predicate = False

    def const(self, value: Any) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = value
        return name

    def function(self, schema: Any, predicate: bool | None = None) -> str:
        """The name of the function checking `schema` (compiled once per schema object);
        by default of the same kind (checker or predicate) as the one being built."""
        predicate = self.predicate if predicate is None else predicate
        key = (id(schema), predicate)
        if key not in self.functions:
            name = f"_{'p' if predicate else 'v'}{len(self.functions)}"
            self.functions[key] = name
            self.pending.append((name, schema, predicate))
        return self.functions[key]

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise SchemaCompileError(f"only local references are supported: {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def build(self) -> None:
        while self.pending:
            name, schema, self.predicate = self.pending.pop()
            self.lines.append(f"def {name}(v):")
            body = self.body(schema, "v", "()")
            self.lines += ["    " + line for line in body] + ["    return None", ""]

    def fail(self, path: str, message: str) -> str:
        if self.predicate:
            return "return 1"
        return f"return ({self.join(path)}, {message})"

    @staticmethod
    def join(path: str) -> str:
        """`() + ('a',)` folded to `('a',)` in the generated code."""
        return path[5:] if path.startswith("() + ") else path

    def body(self, schema: Any, v: str, path: str) -> list[str]:
        """Statements that `return (path, message)` on the first problem of value `v`, whose
        own path is the tuple expression `path`."""
        if schema is True or schema == {}:
            return []
        if schema is False:
            return [self.fail(path, repr("no value is allowed here"))]
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise SchemaCompileError(f"unsupported keyword(s): {', '.join(sorted(unknown))}")
        out: list[str] = []
        if "$ref" in schema:
            out += self.call(self.function(self.resolve(schema["$ref"])), v, path)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            test = " or ".join(_TYPE_TEST[t].format(v=v) for t in types)
            want = " or ".join(types)
            out += [
                f"if not ({test}):",
                "    " + self.fail(path, f"'expected {want}, found ' + _kind({v})"),
            ]
        if "const" in schema:
            c = self.const(schema["const"])
            test = (
                f"isinstance({v}, str) and {v} == {c}"
                if isinstance(schema["const"], str)
                else f"json_equal({v}, {c})"
            )
            out += [f"if not ({test}):", "    " + self.fail(path, f"'must be ' + repr({c})")]
        if "enum" in schema:
            values = schema["enum"]
            c = self.const(values)
            # Strings compare as strings (no true-is-1 question): a set lookup.
            test = (
                f"isinstance({v}, str) and {v} in {self.const(frozenset(values))}"
                if all(isinstance(e, str) for e in values)
                else f"any(json_equal({v}, e) for e in {c})"
            )
            out += [
                f"if not ({test}):",
                "    " + self.fail(path, f"repr({v})[:60] + ' is not one of ' + repr({c})"),
            ]
        out += self.numbers(schema, v, path) + self.strings(schema, v, path)
        out += self.objects(schema, v, path) + self.arrays(schema, v, path)
        return out + self.combinators(schema, v, path)

    def call(self, fn: str, v: str, path: str) -> list[str]:
        tail = "e" if path == "()" or self.predicate else f"({self.join(path)} + e[0], e[1])"
        return [f"e = {fn}({v})", "if e is not None:", f"    return {tail}"]

    def numbers(self, schema: dict[str, Any], v: str, path: str) -> list[str]:
        bounds = [(k, op) for k, op in (("minimum", "<"), ("maximum", ">")) if k in schema]
        if not bounds:
            return []
        # One number test for both bounds; booleans are not numbers (type(True) is bool).
        out = [f"if type({v}) in _NUMBER:"]
        for key, op in bounds:
            bound = schema[key]
            word = "less" if op == "<" else "more"
            out += [
                f"    if {v} {op} {bound!r}:",
                "        " + self.fail(path, f"repr({v}) + ' is {word} than {bound}'"),
            ]
        self.consts["_NUMBER"] = (int, float)
        return out

    def strings(self, schema: dict[str, Any], v: str, path: str) -> list[str]:
        out = []
        if "minLength" in schema:
            n = schema["minLength"]
            out += [
                f"if isinstance({v}, str) and len({v}) < {n}:",
                "    " + self.fail(path, f"'shorter than {n} character(s)'"),
            ]
        if "maxLength" in schema:
            n = schema["maxLength"]
            out += [
                f"if isinstance({v}, str) and len({v}) > {n}:",
                "    " + self.fail(path, f"'longer than {n} character(s)'"),
            ]
        if "pattern" in schema:
            c = self.const(re.compile(schema["pattern"]))
            out += [
                f"if isinstance({v}, str) and not {c}.search({v}):",
                "    "
                + self.fail(path, f"repr({v})[:60] + ' does not match ' + repr({c}.pattern)"),
            ]
        if schema.get("format") == "date-time":
            out += [
                f"if isinstance({v}, str) and not _DATE_TIME.match({v}):",
                "    " + self.fail(path, f"repr({v})[:60] + ' is not a date-time'"),
            ]
        elif schema.get("format") == "date":
            out += [
                f"if isinstance({v}, str) and not is_date({v}):",
                "    " + self.fail(path, f"repr({v})[:60] + ' is not a date'"),
            ]
        elif "format" in schema:
            raise SchemaCompileError(f"unsupported format {schema['format']!r}")
        return out

    def objects(self, schema: dict[str, Any], v: str, path: str) -> list[str]:
        keys = ("required", "properties", "additionalProperties", "dependentRequired")
        if not any(k in schema for k in keys):
            return []
        inner: list[str] = []
        for name in schema.get("required", []):
            message = repr(f"{name!r} is a required property")
            inner += [f"if {name!r} not in {v}:", "    " + self.fail(path, message)]
        for name, needs in schema.get("dependentRequired", {}).items():
            for other in needs:
                inner += [
                    f"if {name!r} in {v} and {other!r} not in {v}:",
                    "    " + self.fail(path, repr(f"{other!r} is required with {name!r}")),
                ]
        props = schema.get("properties", {})
        for name, sub in props.items():
            if sub is True or sub == {}:
                continue
            sub_path = f"{path} + ({name!r},)"
            # A flat rule (a type, an enum) is checked in line: no call per field.
            check = (
                self.body(sub, "x", sub_path)
                if set(sub) <= _FLAT
                else self.call(self.function(sub), "x", sub_path)
            )
            inner += [f"x = {v}.get({name!r}, _MISSING)", "if x is not _MISSING:"]
            inner += ["    " + line for line in check]
        extra = schema.get("additionalProperties", True)
        if extra is not True and extra != {}:
            fn = self.function(extra) if extra is not False else None
            known = self.const(frozenset(props))
            inner += [f"for k, x in {v}.items():", f"    if k in {known}:", "        continue"]
            if fn is None:
                inner += ["    " + self.fail(f"{path} + (k,)", "'unknown field'")]
            else:
                inner += ["    " + line for line in self.call(fn, "x", f"{path} + (k,)")]
        self.consts["_MISSING"] = _MISSING
        return [f"if isinstance({v}, dict):"] + ["    " + line for line in inner]

    def arrays(self, schema: dict[str, Any], v: str, path: str) -> list[str]:
        inner: list[str] = []
        if "minItems" in schema:
            n = schema["minItems"]
            inner += [f"if len({v}) < {n}:", "    " + self.fail(path, f"'fewer than {n} item(s)'")]
        if "maxItems" in schema:
            n = schema["maxItems"]
            inner += [f"if len({v}) > {n}:", "    " + self.fail(path, f"'more than {n} item(s)'")]
        if schema.get("uniqueItems") is True:
            inner += [f"if has_duplicates({v}):", "    " + self.fail(path, "'has duplicate items'")]
        items = schema.get("items", True)
        if items is not True and items != {}:
            fn = self.function(items)
            inner += [f"for i, x in enumerate({v}):"]
            inner += ["    " + line for line in self.call(fn, "x", f"{path} + (i,)")]
        return [f"if isinstance({v}, list):"] + ["    " + line for line in inner] if inner else []

    def combinators(self, schema: dict[str, Any], v: str, path: str) -> list[str]:
        out: list[str] = []
        for sub in schema.get("allOf", []):
            out += self.body(sub, v, path)  # the same value: checked in line, no call
        if "anyOf" in schema:
            fns = [self.function(s) for s in schema["anyOf"]]
            test = " and ".join(f"{fn}({v}) is not None" for fn in fns)
            out += [f"if {test}:", "    " + self.fail(path, "'matches none of the allowed forms'")]
        if "oneOf" in schema:
            fns = [self.function(s) for s in schema["oneOf"]]
            count = " + ".join(f"({fn}({v}) is None)" for fn in fns)
            out += [
                f"if ({count}) != 1:",
                "    " + self.fail(path, "'does not match exactly one allowed form'"),
            ]
        if "if" in schema and ("then" in schema or "else" in schema):
            test = self.matches(schema["if"], v)
            if test is None:
                test = f"{self.function(schema['if'], predicate=True)}({v}) is None"
            out += [f"if {test}:"]
            # The branches check the same value: in line, no call.
            then = self.body(schema["then"], v, path) if "then" in schema else []
            out += ["    " + line for line in then or ["pass"]]
            if "else" in schema:
                otherwise = self.body(schema["else"], v, path) or ["pass"]
                out += ["else:"] + ["    " + line for line in otherwise]
        return out

    def flat_test(self, schema: Any, x: str) -> str | None:
        """A Python expression true when `x` matches a schema of flat rules (type, string
        enum or const), or None for anything else."""
        if not isinstance(schema, dict) or not set(schema) <= {"type", "enum", "const"} | _IGNORED:
            return None
        parts = []
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            parts.append("(" + " or ".join(_TYPE_TEST[t].format(v=x) for t in types) + ")")
        if "enum" in schema:
            if not all(isinstance(e, str) for e in schema["enum"]):
                return None
            parts.append(
                f"(isinstance({x}, str) and {x} in {self.const(frozenset(schema['enum']))})"
            )
        if "const" in schema:
            if not isinstance(schema["const"], str):
                return None
            parts.append(f"(isinstance({x}, str) and {x} == {self.const(schema['const'])})")
        return " and ".join(parts) or "True"

    def matches(self, schema: Any, v: str) -> str | None:
        """An `if` condition as one expression, when it only looks at properties with flat
        rules (`{"properties": {"status": {"enum": [...]}}}`), else None."""
        if not isinstance(schema, dict) or not set(schema) <= {"properties"} | _IGNORED:
            return None
        tests = []
        for name, sub in schema.get("properties", {}).items():
            test = self.flat_test(sub, "x")
            if test is None:
                return None
            tests.append(f"((x := {v}.get({name!r}, _MISSING)) is _MISSING or {test})")
        self.consts["_MISSING"] = _MISSING
        return f"(not isinstance({v}, dict) or ({' and '.join(tests) or 'True'}))"


class _Missing:
    pass


_MISSING = _Missing()


def compile_schema(schema: dict[str, Any], pointer: str = "#") -> Check:
    """A function that checks a value against `schema` (or the sub-schema at `pointer`,
    e.g. `#/$defs/row`) and returns None or the first (path, message)."""
    c = _Compiler(schema)
    entry = c.function(c.resolve(pointer) if pointer != "#" else schema)
    c.build()
    namespace: dict[str, Any] = dict(c.consts)
    exec("\n".join(c.lines), namespace)  # noqa: S102 - code generated from our own schema
    return namespace[entry]
