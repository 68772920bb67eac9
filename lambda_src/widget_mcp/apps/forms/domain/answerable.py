"""Whether every field of a form can be filled in within the size an answer may have.

A `minLength`, `minItems` or `minProperties` asks for a value at least that big; past the answer cap (the forms
tools take at most 16 KB of JSON per answer) no answer to that field could ever be sent, and the form would wait
for ever. Read from the schema alone, after the meta-schema check (so each such keyword is a non-negative integer).

Only where a value must satisfy the subschema, and only when its `type` says the keyword applies (a `minLength`
binds only strings): the root, each property, array items, `allOf` members and what a `$ref` there names.
`anyOf`, `oneOf`, `not` and `if`/`then`/`else` are left alone, since another branch may be answerable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from widget_mcp.apps.forms.domain.errors import InvalidSchema

# The keyword, the type it binds, and the fewest bytes of JSON a value of `n` entries takes: a string of n
# characters and its quotes; n items and n - 1 commas in brackets; n distinct members (`"":0` at least, then
# longer names) and their commas in braces.
BOUNDS: tuple[tuple[str, str, Callable[[int], int]], ...] = (
    ("minLength", "string", lambda n: n + 2),
    ("minItems", "array", lambda n: 2 * n + 1),
    ("minProperties", "object", lambda n: 5 * n + 1),
)
ONE = ("items", "additionalItems", "additionalProperties")
LISTS = ("allOf", "prefixItems", "items")
MAPS = ("properties", "patternProperties", "dependentSchemas")


def _binds(schema: dict[str, Any], kind: str) -> bool:
    types = schema.get("type")
    if isinstance(types, str):
        return types == kind
    return isinstance(types, list) and bool(types) and all(t == kind for t in types)


def _target(root: dict[str, Any], ref: object) -> object:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None  # anchors and the root itself: read where they are written, or already read
    node: object = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(part)
        # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
        elif isinstance(node, list) and part.isascii() and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def check_answerable(schema: dict[str, Any], answer_bytes: int) -> None:
    """Raise InvalidSchema naming the keyword and where it is when a field could only be answered with more than
    `answer_bytes` of JSON."""
    seen: set[int] = set()
    stack: list[tuple[object, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        for keyword, kind, least in BOUNDS:
            count = node.get(keyword)
            if isinstance(count, int) and _binds(node, kind) and least(count) > answer_bytes:
                raise InvalidSchema(
                    f"Invalid JSON schema at {where or 'the root'}: {keyword} {count:,} asks for more than an answer "
                    f"may hold ({answer_bytes // 1024} KB of JSON), so no one could ever fill it in. Lower "
                    f"{keyword}.",
                    schema,
                )
        base = f"{where}/" if where else ""
        for keyword in ONE:
            stack.append((node.get(keyword), f"{base}{keyword}"))
        for keyword in LISTS:
            entries = node.get(keyword)
            if isinstance(entries, list):
                stack.extend((sub, f"{base}{keyword}/{index}") for index, sub in enumerate(entries))
        for keyword in MAPS:
            entries = node.get(keyword)
            if isinstance(entries, dict):
                stack.extend((sub, f"{base}{keyword}/{name}") for name, sub in entries.items())
        ref = node.get("$ref")
        if isinstance(ref, str):
            stack.append((_target(schema, ref), ref[2:] if ref.startswith("#/") else ref))
