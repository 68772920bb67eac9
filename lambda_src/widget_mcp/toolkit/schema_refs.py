"""Tool schemas without `$ref`: each local reference replaced by the definition it names.

Some clients keep only part of a tool's schemas: the TypeScript SDK 1.22 keeps `type`, `properties`, `required`
and `additionalProperties` of an outputSchema, so the `$defs` pydantic writes for a nested model are dropped, the
`$ref`s into them no longer resolve, and listing the tools fails. A schema that names nothing stays valid however
it is trimmed.
"""

from __future__ import annotations

from typing import Any

_LOCAL = "#/$defs/"
# Keywords that name a definition other than by its path: it may be referenced that way, so it stays in `$defs`,
# and its written-out copies drop them (a name may appear once in a schema).
_NAMES = ("$anchor", "$dynamicAnchor")


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every `#/$defs/<name>` reference replaced by that definition (keywords beside the `$ref`
    win), and `$defs` dropped. A definition that refers to itself, directly or not (a recursive model), cannot be
    written out: its references stay, and so does `$defs`; so does a definition with an `$anchor`, which may be
    referenced by it."""
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: set[str] = {n for n, d in defs.items() if isinstance(d, dict) and any(k in d for k in _NAMES)}

    def walk(node: Any, open_refs: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(item, open_refs) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_LOCAL) and ref[len(_LOCAL) :] in defs:
            name = ref[len(_LOCAL) :]
            if name in open_refs:
                kept.add(name)
                return dict(node)
            target = {k: v for k, v in walk(defs[name], open_refs | {name}).items() if k not in _NAMES}
            return {**target, **{key: walk(value, open_refs) for key, value in node.items() if key != "$ref"}}
        return {key: walk(value, open_refs) for key, value in node.items()}

    inlined: dict[str, Any] = walk({key: value for key, value in schema.items() if key != "$defs"}, frozenset())
    if kept:
        inlined["$defs"] = defs
    return inlined
