"""The read and write units DynamoDB would bill for each request a boto3 client sends, worked out from the items
themselves (moto's ConsumedCapacity is no guide: it reports 1 unit for any put, half a unit for any update and
nothing for a transaction).

DynamoDB's rules (on demand, developer guide "Read/write capacity mode"): a strongly consistent read is one unit
per 4 KB of the item (an eventually consistent one half that), at least one even for a missing item; a query is
the items it reads, summed, per 4 KB; a write is one unit per 1 KB of the larger of the item before and after (a
delete: the item before), at least one, and a failed condition still pays; in a transaction each item costs twice.
The sizes before and after a write are read with a second client that nobody meters.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from widget_mcp.storage.items import item_size

READ_BLOCK = 4096
WRITE_BLOCK = 1024


@dataclass
class Units:
    read: float = 0.0
    write: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)


class UnitMeter:
    """Attach to `client` (the store's); `raw` is a second client on the same table, for the sizes. While `sizing`
    is off it counts requests only (the timed runs, which must not pay for the extra reads)."""

    def __init__(self, client: Any, raw: Any) -> None:
        self.raw = raw
        self.units = Units()
        self.sizing = True
        self._pending = threading.local()
        client.meta.events.register("provide-client-params.dynamodb.*", self._before)
        client.meta.events.register("after-call.dynamodb.*", self._after)

    def take(self) -> Units:
        taken, self.units = self.units, Units()
        return taken

    def _before(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self.units.requests[model.name] += 1
        if not self.sizing:
            return
        writes = _written_keys(model.name, params)
        self._pending.call = (model.name, params, [(t, k, self._size(t, k)) for t, k in writes])

    def _after(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if not self.sizing:
            return
        name, params, before = self._pending.call
        consistent = 1.0 if params.get("ConsistentRead") else 0.5
        if name == "GetItem":
            self.units.read += _read_units([parsed.get("Item")], consistent)
        elif name == "BatchGetItem":
            for table, request in params["RequestItems"].items():
                found = parsed.get("Responses", {}).get(table, [])
                missing = len(request["Keys"]) - len(found)
                share = 1.0 if request.get("ConsistentRead") else 0.5
                self.units.read += sum(_read_units([item], share) for item in found) + missing * share
        elif name == "Query":
            size = sum(item_size(item) for item in parsed.get("Items", []))
            self.units.read += max(1, math.ceil(size / READ_BLOCK)) * consistent
        else:
            factor = 2 if name.startswith("Transact") else 1
            for table, key, old in before:
                new = 0 if name == "DeleteItem" else self._size(table, key)
                self.units.write += factor * max(1, math.ceil(max(old, new) / WRITE_BLOCK))

    def _size(self, table: str, key: dict[str, Any]) -> int:
        item = self.raw.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return 0 if item is None else item_size(item)


def _read_units(items: list[dict[str, Any] | None], share: float) -> float:
    return sum(max(1, math.ceil((item_size(i) if i else 0) / READ_BLOCK)) * share for i in items)


def _key_of(item: dict[str, Any]) -> dict[str, Any]:
    return {name: item[name] for name in ("pk", "sk")}


def _written_keys(name: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if name == "PutItem":
        return [(params["TableName"], _key_of(params["Item"]))]
    if name in ("UpdateItem", "DeleteItem"):
        return [(params["TableName"], params["Key"])]
    if name == "TransactWriteItems":
        keys = []
        for entry in params["TransactItems"]:
            ((kind, spec),) = entry.items()
            keys.append((spec["TableName"], _key_of(spec["Item"]) if kind == "Put" else spec["Key"]))
        return keys
    return []
