"""What checking one value of an answer could cost under a schema, read from the schema alone.

`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and `dependentSchemas` apply more subschemas to the
same value: a chain of levels that each apply the next level twice is 1.3 KB of schema and 2^N evaluations of
every value. A `$ref` back into the schema through `properties` or `items` does the same one level of the answer
further down. So the schema is read as a graph: its subschemas, the ones each applies to the same value
("in place"), and the ones it applies to a child of that value (by property name, for any property, for array
items, for property names). For every depth an answer may reach, an upper bound of what checking one value
there costs is computed in steps (limits.py); past the limit the form is refused before it is stored.

The bound is computed per subschema in one pass per depth (linear in the schema's size): for a child it takes
the worst property name separately for each subschema, which can only overestimate. A subschema that applies
itself in place (`{"$ref": "#"}` at the root) would never end, and is refused too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from widget_mcp.apps.forms.domain.errors import InvalidSchema, TooComplex
from widget_mcp.apps.forms.domain.limits import keyword_cost

# The deepest an answer may nest (tools.py refuses deeper `data` before it reaches the form).
MAX_ANSWER_DEPTH = 32

IN_PLACE_ONE = ("not", "if", "then", "else")
IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
# Keywords whose value is one subschema applied to each item, or to each property the schema does not name.
ITEM_ONE = ("items", "additionalItems", "contains", "unevaluatedItems")
ANY_PROPERTY = ("additionalProperties", "unevaluatedProperties")
# Dynamic references resolve against the path the check took, which no reading of the schema alone can follow.
UNSUPPORTED = ("$dynamicRef", "$recursiveRef")

ITEM, NAME = "#item", "#name"  # labels of children that are not named properties


@dataclass
class _Node:
    schema: dict[str, Any]
    where: str
    weight: int = 0
    in_place: list[int] = field(default_factory=list)
    named: list[tuple[str, int]] = field(default_factory=list)  # (property name, child)
    any_property: list[int] = field(default_factory=list)
    items: list[int] = field(default_factory=list)
    names: list[int] = field(default_factory=list)
    unevaluated: bool = False


@dataclass(frozen=True)
class Reading:
    """The schema's graph, by `id()` of each subschema dict: `closure` is what applying one subschema costs on
    one value before descending (itself and everything it applies in place, in steps)."""

    closure: dict[int, int]


def _pointer(root: dict[str, Any], fragment: str) -> object:
    node: object = root
    for raw in fragment.split("/")[1:]:
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
        elif isinstance(node, list) and part.isascii() and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _walk(value: object) -> Iterator[dict[str, Any]]:
    """Every object in `value` (a $ref may point at any of them)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class _Graph:
    def __init__(self, root: dict[str, Any], keywords: frozenset[str]) -> None:
        self.root = root
        self.keywords = keywords
        self.nodes: dict[int, _Node] = {}
        self._pending: list[int] = []
        self.anchors = {node["$anchor"]: node for node in _walk(root) if isinstance(node.get("$anchor"), str)}
        self._add(root, "")
        self._read_all()

    def _resolve(self, ref: str, where: str) -> dict[str, Any] | None:
        fragment = ref[1:] if ref.startswith("#") else None
        if fragment is None:
            raise InvalidSchema(f"Invalid JSON schema at {where}: $ref {ref!r} points outside the schema.", ref)
        if fragment == "" or fragment.startswith("/"):
            target = _pointer(self.root, fragment)
        else:
            target = self.anchors.get(unquote(fragment))
        if isinstance(target, bool):
            return None  # true/false schemas cost nothing to speak of
        if not isinstance(target, dict):
            raise InvalidSchema(f"Invalid JSON schema at {where}: $ref {ref!r} points nowhere in the schema.", ref)
        return target

    def _add(self, schema: dict[str, Any], where: str) -> int:
        """The subschema's key; its edges are read later, by `_read` (a loop, not recursion: $ref chains are long)."""
        key = id(schema)
        if key not in self.nodes:
            self.nodes[key] = _Node(schema, where or "the root")
            self._pending.append(key)
        return key

    def _read_all(self) -> None:
        while self._pending:
            self._read(self.nodes[self._pending.pop()])

    def _read(self, node: _Node) -> None:
        schema, where = node.schema, node.where
        # At least one: descending into a subschema costs something even when it holds no keyword.
        node.weight = max(1, sum(keyword_cost(k, v) for k, v in schema.items() if k in self.keywords))

        base = "" if where == "the root" else f"{where}/"

        def child(value: object, at: str) -> int | None:
            return self._add(value, f"{base}{at}") if isinstance(value, dict) else None

        def into(target: list[int], value: object, at: str) -> None:
            added = child(value, at)
            if added is not None:
                target.append(added)

        if "$id" in schema and schema is not self.root:
            # A nested $id starts a resource of its own, against which the `#…` references inside it resolve.
            raise InvalidSchema(
                f"Invalid JSON schema at {where}: $id is allowed only at the root of a form's schema.", schema
            )
        for keyword in UNSUPPORTED:
            if keyword in schema:
                raise InvalidSchema(
                    f"Invalid JSON schema at {where}: {keyword} is not supported in forms; use $ref.", schema
                )
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self._resolve(ref, f"{where}/$ref")
            if target is not None:
                node.in_place.append(self._add(target, _pointer_of(ref)))
        for keyword in IN_PLACE_ONE:
            into(node.in_place, schema.get(keyword), keyword)
        for keyword in IN_PLACE_LIST:
            for index, sub in enumerate(_list(schema.get(keyword))):
                into(node.in_place, sub, f"{keyword}/{index}")
        for keyword in ("dependentSchemas", "dependencies"):
            for name, sub in _dict(schema.get(keyword)).items():
                into(node.in_place, sub, f"{keyword}/{name}")
        for name, sub in _dict(schema.get("properties")).items():
            added = child(sub, f"properties/{name}")
            if added is not None:
                node.named.append((str(name), added))
        for name, sub in _dict(schema.get("patternProperties")).items():
            into(node.any_property, sub, f"patternProperties/{name}")
        for keyword in ANY_PROPERTY:
            into(node.any_property, schema.get(keyword), keyword)
        for keyword in ITEM_ONE:
            into(node.items, schema.get(keyword), keyword)
        for keyword in ("prefixItems", "items"):
            for index, sub in enumerate(_list(schema.get(keyword))):
                into(node.items, sub, f"{keyword}/{index}")
        into(node.names, schema.get("propertyNames"), "propertyNames")
        node.unevaluated = "unevaluatedProperties" in schema or "unevaluatedItems" in schema

    def in_place_order(self) -> list[int]:
        """Every subschema, each before those it applies in place; raises InvalidSchema on a cycle."""
        order: list[int] = []
        state: dict[int, int] = {}  # 1: on the current path, 2: done
        for start in self.nodes:
            if start in state:
                continue
            stack: list[tuple[int, Iterator[int]]] = [(start, iter(self.nodes[start].in_place))]
            state[start] = 1
            while stack:
                key, children = stack[-1]
                nxt = next(children, None)
                if nxt is None:
                    stack.pop()
                    state[key] = 2
                    order.append(key)
                elif state.get(nxt) == 1:
                    where = self.nodes[key].where
                    raise InvalidSchema(
                        f"Invalid JSON schema at {where}: it applies {self.nodes[nxt].where} to the same value, which "
                        "applies it again, without end; a $ref back into the schema must go through properties or "
                        "items.",
                        self.nodes[key].schema,
                    )
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(self.nodes[nxt].in_place)))
        order.reverse()
        return order


def _pointer_of(ref: str) -> str:
    return ref[1:].lstrip("/") or "(root)"


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_schema(schema: dict[str, Any], keywords: frozenset[str], value_steps: int) -> Reading:
    """The schema's costs; raises TooComplex when one value could cost more than `value_steps`, and InvalidSchema
    for a reference that points nowhere, applies itself without end or is dynamic."""
    graph = _Graph(schema, keywords)
    order = graph.in_place_order()
    nodes = graph.nodes
    cap = value_steps + 1
    closure: dict[int, int] = {}
    for key in reversed(order):  # those applied in place first
        node = nodes[key]
        closure[key] = min(node.weight + sum(closure[c] for c in node.in_place), cap)
    for key in order:
        if nodes[key].unevaluated:  # jsonschema walks what the subschema applies in place to find what it evaluated
            nodes[key].weight = min(nodes[key].weight + closure[key], cap)
    entry: dict[int, int] = {id(schema): 1}
    for depth in range(MAX_ANSWER_DEPTH + 1):
        total = dict.fromkeys(order, 0)
        for key, count in entry.items():
            total[key] = count
        cost = 0
        for key in order:
            count = total[key]
            if not count:
                continue
            node = nodes[key]
            cost += count * node.weight
            for inner in node.in_place:
                total[inner] = min(total[inner] + count, cap)
        if cost > value_steps:
            where = "the top level" if depth == 0 else f"depth {depth}"
            raise TooComplex(
                f"Invalid JSON schema: checking one value at {where} of an answer could take more than "
                f"{value_steps:,} evaluation steps; its $ref, allOf, anyOf and oneOf apply too many subschemas to "
                "the same value. Write each part once instead of referring to it several times over.",
                schema,
            )
        following = _children(nodes, total, cap)
        if not following or following == entry:
            break  # nothing deeper, or every deeper level repeats this one
        entry = following
    return Reading(closure)


def _children(nodes: dict[int, _Node], total: dict[int, int], cap: int) -> dict[int, int]:
    """An upper bound of how often each subschema applies to one child value, over every child a value may have."""
    any_property: dict[int, int] = {}
    named: dict[int, dict[str, int]] = {}
    items: dict[int, int] = {}
    names: dict[int, int] = {}
    for key, count in total.items():
        if not count:
            continue
        node = nodes[key]
        for sub in node.any_property:
            any_property[sub] = any_property.get(sub, 0) + count
        for name, sub in node.named:
            by_name = named.setdefault(sub, {})
            by_name[name] = by_name.get(name, 0) + count
        for sub in node.items:
            items[sub] = items.get(sub, 0) + count
        for sub in node.names:
            names[sub] = names.get(sub, 0) + count
    following: dict[int, int] = {}
    for sub in {*any_property, *named, *items, *names}:
        as_property = any_property.get(sub, 0) + max(named.get(sub, {}).values(), default=0)
        count = min(max(as_property, items.get(sub, 0), names.get(sub, 0)), cap)
        if count:
            following[sub] = count
    return following
