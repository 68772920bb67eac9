"""Values just past each argument's declared cap, read from its input schema, for the tests derived from the registry
(tests/functional/test_request_limits.py). Every cap the guide asks for is read, for every JSON type: a string's
`maxLength`, a number's `maximum` or `exclusiveMaximum`, a list's `maxItems`, an object's `maxProperties`, an enum or
a const. An argument none of these caps (an object measured in bytes by a validator) needs an over-cap value listed
by hand; without one, the plan is an `Unplanned` that says which declaration to add, and the test fails saying so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# What to declare, per JSON type, when a test finds no cap it can read.
_DECLARE = {
    "string": "Field(max_length=…) (maxLength), or an enum / Literal",
    "integer": "Field(le=…) or Field(lt=…) (maximum, exclusiveMaximum)",
    "number": "Field(le=…) or Field(lt=…) (maximum, exclusiveMaximum)",
    "array": "Field(max_length=…) on the list (maxItems)",
    "object": "Field(max_length=…) on a dict (maxProperties), or a validator that measures it, with an over-cap value",
}


def _branches(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of an argument's schema, each with the keys beside the union (a cap may sit there)."""
    outer = {k: v for k, v in prop.items() if k not in ("anyOf", "oneOf")}
    return [{**outer, **branch} for branch in prop.get("anyOf") or prop.get("oneOf") or [prop]]


def _types(branch: dict[str, Any]) -> list[str]:
    kind = branch.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def fitting(schema: dict[str, Any]) -> Any:
    """A small value the schema admits: what an over-long list or an over-full object is made of, so that the value
    breaks only the cap under test (the refusal then names the argument itself, not one of its items)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema:
        return schema["default"]
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return fitting(branches[0])
    kind = (_types(schema) or ["string"])[0]
    if kind in ("integer", "number"):
        if "minimum" in schema:
            return schema["minimum"]
        return schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else 0
    if kind == "array":
        return [fitting(schema.get("items", {}))] * schema.get("minItems", 0)
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: fitting(properties.get(name, {})) for name in schema.get("required", [])}
    return {"boolean": False, "null": None}.get(kind, "a" * max(1, schema.get("minLength", 1)))


def over_cap(prop: dict[str, Any]) -> Any:
    """A value just past the argument's declared cap, read from its schema; None when only a validator caps it."""
    for branch in _branches(prop):
        if "enum" in branch or "const" in branch:
            return "x" * 100
        for kind in _types(branch):
            if kind == "string" and "maxLength" in branch:
                return "x" * (branch["maxLength"] + 1)
            if kind in ("integer", "number") and "maximum" in branch:
                return branch["maximum"] + 1
            if kind in ("integer", "number") and "exclusiveMaximum" in branch:
                return branch["exclusiveMaximum"]
            if kind == "array" and "maxItems" in branch:
                return [fitting(branch.get("items", {}))] * (branch["maxItems"] + 1)
            if kind == "object" and "maxProperties" in branch:
                extra = branch.get("additionalProperties")
                value = fitting(extra) if isinstance(extra, dict) else None
                return {f"k{i}": value for i in range(branch["maxProperties"] + 1)}
            if kind == "boolean":
                return "x" * 100
    return None


@dataclass(frozen=True)
class Unplanned:
    """An argument the tests cannot send past its cap: its schema declares none they read, nor is it listed."""

    tool: str
    argument: str
    prop: dict[str, Any]

    @property
    def message(self) -> str:
        kinds = sorted({kind for branch in _branches(self.prop) for kind in _types(branch)}) or ["untyped"]
        declare = "; ".join(f"{kind}: {_DECLARE[kind]}" for kind in kinds if kind in _DECLARE)
        return (
            f"{self.tool}.{self.argument} ({' | '.join(kinds)}) has no cap a test can read from its schema: "
            f"declare one ({declare or 'a cap of its type'}); an object only a validator caps needs an over-cap "
            f"value in VALIDATOR_CAPS (tests/functional/test_request_limits.py) under {(self.tool, self.argument)!r}"
        )


def declared_arguments(tool_list: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, argument, its published schema) for every argument of every listed tool."""
    return [
        (spec["name"], argument, prop)
        for spec in tool_list
        for argument, prop in spec["inputSchema"].get("properties", {}).items()
    ]


def plan_over_cap(
    tool: str, argument: str, prop: dict[str, Any], validator_caps: dict[tuple[str, str], Any]
) -> Any | Unplanned:
    """The value to send past the argument's cap: from its schema, else the one listed for its validator."""
    value = over_cap(prop)
    if value is not None:
        return value
    if (tool, argument) in validator_caps:
        return validator_caps[(tool, argument)]
    return Unplanned(tool, argument, prop)
