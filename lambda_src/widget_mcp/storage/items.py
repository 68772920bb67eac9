"""How documents, quota ledgers and rate counters are laid out as DynamoDB items, and DynamoDB's item-size rule.

Without boto3: the in-memory fake sizes its items by the same layout and rule, so both adapters refuse the same
writes for the same item budget.

- a document: `pk = USER#<owner>`, `sk = <KIND>#<id>`, its version, JSON body, times, `ttl`, and when it counts
  against a quota, the holder (`qh`) and until when (`qu`), and its counters once it has any (`cnt`, a map of
  numbers, which an UpdateItem can add to: counters.py);
- a holder's ledger of live documents of a kind: `pk = LIMIT#<holder>`, `sk = QUOTA#<KIND>`;
- a rate counter's window: `pk = LIMIT#<counter>`, `sk = RATE#<window>`, count `n`.

`LIMIT#` partitions never meet a user's (`USER#`), so listing a user's documents never reads them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from widget_mcp.storage.documents import Document
from widget_mcp.storage.table import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE

if TYPE_CHECKING:
    from widget_mcp.storage.ledger import Ledger

Item = dict[str, Any]

# DynamoDB's own limit on an item; the item budget (MAX_ITEM_BYTES) must stay under it.
DYNAMODB_ITEM_LIMIT = 400 * 1024


def user_pk(owner: str) -> str:
    return f"USER#{owner}"


def doc_sk(kind: str, doc_id: str) -> str:
    return f"{kind.upper()}#{doc_id}"


def doc_key(owner: str, kind: str, doc_id: str) -> Item:
    return {PARTITION_KEY: {"S": user_pk(owner)}, SORT_KEY: {"S": doc_sk(kind, doc_id)}}


def ledger_key(holder: str, kind: str) -> Item:
    return {PARTITION_KEY: {"S": f"LIMIT#{holder}"}, SORT_KEY: {"S": f"QUOTA#{kind.upper()}"}}


def counter_key(counter: str, window: str) -> Item:
    return {PARTITION_KEY: {"S": f"LIMIT#{counter}"}, SORT_KEY: {"S": f"RATE#{window}"}}


def to_item(owner: str, doc: Document) -> Item:
    item: Item = {
        **doc_key(owner, doc.kind, doc.doc_id),
        "v": {"N": str(doc.version)},
        "body": {"S": json.dumps(doc.body, separators=(",", ":"), ensure_ascii=False)},
        "crt": {"N": str(doc.created_at)},
        "upd": {"N": str(doc.updated_at)},
        TTL_ATTRIBUTE: {"N": str(doc.expires_at)},
    }
    if doc.quota_holder is not None:
        item["qh"] = {"S": doc.quota_holder}
        item["qu"] = {"N": str(doc.counted_until)}
    if doc.counts:
        item["cnt"] = {"M": {name: {"N": str(count)} for name, count in doc.counts.items()}}
    return item


def from_item(kind: str, item: Item) -> Document:
    holder = item.get("qh")
    return Document(
        kind=kind,
        doc_id=item[SORT_KEY]["S"].split("#", 1)[1],
        body=json.loads(item["body"]["S"]),
        version=int(item["v"]["N"]),
        created_at=int(item["crt"]["N"]),
        updated_at=int(item["upd"]["N"]),
        expires_at=int(item[TTL_ATTRIBUTE]["N"]),
        quota_holder=None if holder is None else holder["S"],
        counted_until=int(item["qu"]["N"]) if "qu" in item else 0,
        counts={name: int(value["N"]) for name, value in item.get("cnt", {}).get("M", {}).items()},
    )


def ledger_item(ledger: Ledger) -> Item:
    return {
        **ledger_key(ledger.holder, ledger.kind),
        "v": {"N": str(ledger.version)},
        "live": {"M": {doc_id: {"N": str(until)} for doc_id, until in ledger.live.items()}},
        TTL_ATTRIBUTE: {"N": str(ledger.expires_at)},
    }


def ledger_entries(item: Item) -> tuple[int, dict[str, int]]:
    """(version, live entries) of a stored ledger item."""
    return int(item["v"]["N"]), {doc_id: int(value["N"]) for doc_id, value in item["live"]["M"].items()}


def item_size(item: Item) -> int:
    """DynamoDB's item size: attribute names plus values (strings in UTF-8, numbers about one byte per two
    significant digits plus one, maps their entries plus 3 bytes, and 1 byte per element)."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: dict[str, Any]) -> int:
    if "S" in value:
        return len(value["S"].encode("utf-8", "surrogatepass"))
    if "N" in value:
        return (len(value["N"].lstrip("-").replace(".", "")) + 1) // 2 + 1
    if "M" in value:
        return 3 + sum(len(k.encode()) + _value_size(v) + 1 for k, v in value["M"].items())
    raise ValueError(f"no size rule for the attribute value {value!r}")
