"""The rules of `DocumentStore.add`, shared by both adapters so they refuse the same adds.

Counters sit in a map attribute beside the JSON body (`cnt`: name → number), because DynamoDB can add to a number
in a map but not inside a JSON string. An add is one UpdateItem with no version to match, so nothing is known of the
stored item before it lands; the item budget is kept by bounding what an add can grow (the counters' number, names
and values, the version and times), and refusing an add when the body leaves less room than that growth could take.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from widget_mcp.storage.documents import BadCounter, CountOutOfRange, Document, ItemOverBudget, TooManyCounters
from widget_mcp.storage.items import doc_key, item_size
from widget_mcp.storage.table import PARTITION_KEY

# Plain identifiers: safe as map keys and expression names, and what a widget reads as a field.
COUNTER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")
MAX_COUNTERS = 16
# JavaScript's largest safe integer: a widget reads every count exactly.
COUNT_LIMIT = 2**53 - 1
# The longest quota holder an add accounts for (principal keys are far shorter); a longer one is refused.
HOLDER_ROOM = 128


def checked_increments(increments: Mapping[str, int]) -> dict[str, int]:
    """The increments, each name and value checked, else BadCounter."""
    if not increments:
        raise BadCounter("", None, "name at least one counter")
    if len(increments) > MAX_COUNTERS:
        raise BadCounter(", ".join(increments), None, f"at most {MAX_COUNTERS} counters")
    for name, increment in increments.items():
        if not isinstance(name, str) or not COUNTER_NAME.fullmatch(name):
            raise BadCounter(
                str(name), increment, "a counter's name is a letter or _ then letters, digits or _, 32 at most"
            )
        if type(increment) is not int or abs(increment) > COUNT_LIMIT:
            raise BadCounter(name, increment, f"an increment is an integer from -{COUNT_LIMIT} to {COUNT_LIMIT}")
    return dict(increments)


def added(doc: Document, increments: Mapping[str, int]) -> dict[str, int]:
    """The document's counts after the add, else CountOutOfRange or TooManyCounters."""
    counts = dict(doc.counts)
    new = [name for name in increments if name not in counts]
    if len(counts) + len(new) > MAX_COUNTERS:
        raise TooManyCounters(doc.kind, doc.doc_id, new, MAX_COUNTERS)
    for name, increment in increments.items():
        count = counts.get(name, 0)
        if abs(count + increment) > COUNT_LIMIT:
            raise CountOutOfRange(doc.kind, doc.doc_id, name, count, increment)
        counts[name] = count + increment
    return counts


def add_room(owner: str, kind: str, doc_id: str, budget: int) -> int:
    """The largest body (bytes of its JSON) an add to this document accepts: the budget less the item's every other
    part at its widest (numbers of 38 digits, the longest holder, MAX_COUNTERS counters of the longest names)."""
    widest_number = {"N": "9" * 38}
    widest: dict[str, object] = {
        **doc_key(owner, kind, doc_id),
        **{name: widest_number for name in ("v", "crt", "upd", "ttl", "qu")},
        "body": {"S": ""},
        "qh": {"S": "x" * HOLDER_ROOM},
        "cnt": {"M": {f"{i:032d}": {"N": str(-COUNT_LIMIT)} for i in range(MAX_COUNTERS)}},
    }
    return budget - item_size(widest)


def check_room(owner: str, doc: Document, body_bytes: int, budget: int) -> None:
    """ItemOverBudget when an add to `doc` (whose body takes `body_bytes`) could take its item past the budget."""
    room = add_room(owner, doc.kind, doc.doc_id, budget)
    holder = 0 if doc.quota_holder is None else len(doc.quota_holder.encode())
    if body_bytes > room or holder > HOLDER_ROOM:
        raise ItemOverBudget(doc.kind, doc.doc_id, budget - room + body_bytes, budget)


def add_update(increments: Mapping[str, int], *, now: int, room: int) -> dict[str, Any]:
    """UpdateItem's arguments for an add to a stored document that has its counter map: each counter set to itself
    (or 0) plus its increment, the version and update time moved, on condition that the document exists, its body
    and holder leave the room, no count passes the bound and the map stays within MAX_COUNTERS."""
    names: dict[str, str] = {
        "#pk": PARTITION_KEY,
        "#v": "v",
        "#upd": "upd",
        "#body": "body",
        "#qh": "qh",
        "#cnt": "cnt",
    }
    values: dict[str, Any] = {
        ":zero": {"N": "0"},
        ":one": {"N": "1"},
        ":now": {"N": str(now)},
        ":room": {"N": str(room)},
        ":holder": {"N": str(HOLDER_ROOM)},
        ":fewer": {"N": str(MAX_COUNTERS - len(increments))},
    }
    sets, bounds, present = ["#v = #v + :one", "#upd = :now"], [], []
    for i, (name, increment) in enumerate(increments.items()):
        path = f"#cnt.#c{i}"
        names[f"#c{i}"] = name
        values[f":n{i}"] = {"N": str(increment)}
        # The count before the add, at most this far from zero in the increment's direction.
        values[f":b{i}"] = {"N": str(COUNT_LIMIT - increment if increment >= 0 else -COUNT_LIMIT - increment)}
        sets.append(f"{path} = if_not_exists({path}, :zero) + :n{i}")
        bounds.append(f"(attribute_not_exists({path}) OR {path} {'<=' if increment >= 0 else '>='} :b{i})")
        present.append(f"attribute_exists({path})")
    condition = " AND ".join(
        [
            "attribute_exists(#pk)",
            "attribute_exists(#cnt)",  # else the map is made first (the paths below need it)
            "size(#body) <= :room",
            "(attribute_not_exists(#qh) OR size(#qh) <= :holder)",
            *bounds,
            f"(size(#cnt) <= :fewer OR ({' AND '.join(present)}))",
        ]
    )
    return {
        "UpdateExpression": "SET " + ", ".join(sets),
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
