"""DynamoDB adapter for the DocumentStore port: one GetItem per read (one BatchGetItem per 100 of a `get_many`), one
conditional PutItem per write.

A document counted against a quota is created with a read of its holder's ledger and one TransactWriteItems (the
document and the ledger, both conditional); a replace that moves its count does the same, at most once per
COUNT_SLACK_SECONDS of use, and so does a replace that ends the document's life (its place leaves the ledger). A
transaction that loses the race for the ledger reads it again after a jittered backoff (ledger.py), and past the
last attempt fails with StoreBusy. A rate counter is one conditional UpdateItem, and so is an add to a document's
counters (counters.py), once the document exists with its counter map: the first add to a document is a PutItem
that creates it, or an UpdateItem that gives it the map, then the add.

Every call asks for its consumed capacity and reports it to `on_capacity` (metrics, and tests that count calls).
Throttling, 5xx answers and timeouts are retried by botocore's standard retry mode (bounded attempts, jittered
exponential backoff); what still fails becomes StoreUnavailable.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError, ReadTimeoutError

from widget_mcp.storage.documents import (
    GET_MANY_KEYS,
    AlreadyExists,
    Document,
    ItemOverBudget,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from widget_mcp.storage.dynamodb_calls import CONFLICT, code, own_earlier_attempt, retried, status, unavailable
from widget_mcp.storage.dynamodb_counters import DynamoDbCounters
from widget_mcp.storage.dynamodb_erase import DynamoDbErase
from widget_mcp.storage.items import (
    DYNAMODB_ITEM_LIMIT,
    doc_key,
    doc_sk,
    from_item,
    item_size,
    ledger_entries,
    ledger_item,
    ledger_key,
    to_item,
    user_pk,
)
from widget_mcp.storage.ledger import LEDGER_ATTEMPTS, Ledger, ledger_backoff
from widget_mcp.storage.table import PARTITION_KEY, SORT_KEY

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_CANCELLED = "TransactionCanceledException"
CapacityListener = Callable[[str, float], None]
LedgerUpdate = Callable[[Ledger, int], Ledger]

# A failing storage call gives up in at most 3 x (1 s + 2 s) plus botocore's backoff (at most 1 s + 2 s when
# throttled), about 12 s: inside the function's 20 s timeout, so the caller gets a retryable error, not a 5xx.
# DynamoDB answers in milliseconds; a 2 s read is already far gone.
MAX_ATTEMPTS = 3
CONNECT_TIMEOUT_SECONDS = 1
READ_TIMEOUT_SECONDS = 2


def default_client() -> DynamoDBClient:
    """A client from the standard environment (region, credentials, AWS_ENDPOINT_URL_DYNAMODB)."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        read_timeout=READ_TIMEOUT_SECONDS,
        retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},  # counts the first try too
    )
    return boto3.client("dynamodb", config=config)


class DynamoDbDocumentStore(DynamoDbCounters, DynamoDbErase):
    """`client` may be a factory: the client (and boto3's import) is then made on first use, not at cold start.

    `max_item_bytes`: the item budget; a write whose item would be larger is refused before it is sent. `sleep`:
    how the adapter pauses between attempts at a contended quota ledger.
    """

    def __init__(
        self,
        client: DynamoDBClient | Callable[[], DynamoDBClient],
        table_name: str,
        *,
        on_capacity: CapacityListener | None = None,
        max_item_bytes: int = DYNAMODB_ITEM_LIMIT,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._factory = client if callable(client) else None
        self._made: DynamoDBClient | None = None if callable(client) else client
        self._table = table_name
        self._on_capacity = on_capacity
        self._budget = max_item_bytes
        self._clock = clock
        self._sleep = sleep

    @property
    def client(self) -> DynamoDBClient:
        """The boto3 client, made on first use (its event hooks are where metrics and tests attach)."""
        if self._made is None:
            assert self._factory is not None
            self._made = self._factory()
        return self._made

    def connect(self) -> None:
        """Make the client now (e.g. before a SnapStart snapshot) instead of on first use."""
        _ = self.client

    def _consumed(self, operation: str, response: Any) -> None:
        consumed = response.get("ConsumedCapacity") or {}
        # A transaction reports a list (one entry per table).
        entries = consumed if isinstance(consumed, list) else [consumed]
        units = [e["CapacityUnits"] for e in entries if isinstance(e, dict) and "CapacityUnits" in e]
        if self._on_capacity is not None and units:
            self._on_capacity(operation, float(sum(units)))

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        try:
            response = self.client.get_item(
                TableName=self._table,
                Key=doc_key(owner, kind, doc_id),
                ConsistentRead=True,
                ReturnConsumedCapacity="TOTAL",
            )
        except (ClientError, BotoCoreError) as exc:
            raise unavailable(f"reading {kind}", exc) from exc
        self._consumed("GetItem", response)
        item = response.get("Item")
        return None if item is None else from_item(kind, item)

    def get_many(self, keys: Sequence[tuple[str, str, str]]) -> list[Document | None]:
        found: dict[tuple[str, str, str], Document] = {}
        unique = list(dict.fromkeys(keys))  # BatchGetItem refuses a key asked twice
        for start in range(0, len(unique), GET_MANY_KEYS):
            found |= self._batch_get(unique[start : start + GET_MANY_KEYS])
        return [found.get(key) for key in keys]

    def _batch_get(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], Document]:
        """One BatchGetItem, and again for the keys DynamoDB left unprocessed (throttled), a few times at most."""
        by_key = {(user_pk(owner), doc_sk(kind, doc_id)): (owner, kind, doc_id) for owner, kind, doc_id in keys}
        wanted: list[dict[str, Any]] = [doc_key(*key) for key in keys]
        found: dict[tuple[str, str, str], Document] = {}
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                self._sleep(ledger_backoff(attempt))
            try:
                response = self.client.batch_get_item(
                    RequestItems={self._table: {"Keys": wanted, "ConsistentRead": True}},
                    ReturnConsumedCapacity="TOTAL",
                )
            except (ClientError, BotoCoreError) as exc:
                raise unavailable("reading documents", exc) from exc
            self._consumed("BatchGetItem", response)
            for item in response.get("Responses", {}).get(self._table, []):
                owner, kind, doc_id = by_key[(item[PARTITION_KEY]["S"], item[SORT_KEY]["S"])]
                found[(owner, kind, doc_id)] = from_item(kind, item)
            unprocessed: Any = response.get("UnprocessedKeys") or {}
            wanted = list(unprocessed.get(self._table, {}).get("Keys", []))
            if not wanted:
                return found
        raise StoreUnavailable(f"reading documents: {len(wanted)} keys left unprocessed {MAX_ATTEMPTS} times")

    def _item_within_budget(self, owner: str, doc: Document) -> dict[str, Any]:
        item = to_item(owner, doc)
        size = item_size(item)
        if size > self._budget:
            raise ItemOverBudget(doc.kind, doc.doc_id, size, self._budget)
        return item

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        item = self._item_within_budget(owner, doc)
        if doc.quota_holder is not None and quota is not None:
            self._write_counted(
                item, doc, doc.quota_holder, lambda ledger, now: ledger.admit(doc.doc_id, doc.counted_until, quota, now)
            )
            return
        self._put(
            item,
            doc,
            lambda _: AlreadyExists(doc.kind, doc.doc_id),
            ConditionExpression="attribute_not_exists(#pk)",
            ExpressionAttributeNames={"#pk": PARTITION_KEY},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        item = self._item_within_budget(owner, doc)
        if doc.released_from is not None:
            self._write_counted(
                item,
                doc,
                doc.released_from,
                lambda ledger, now: ledger.release(doc.doc_id, now),
                expected_version=expected_version,
            )
            return
        if doc.recount and doc.quota_holder is not None:
            self._write_counted(
                item,
                doc,
                doc.quota_holder,
                lambda ledger, now: ledger.recount(doc.doc_id, doc.counted_until, now),
                expected_version=expected_version,
            )
            return

        def conflict(exc: ClientError) -> VersionConflict:
            old: Any = exc.response.get("Item")
            current = from_item(doc.kind, old) if isinstance(old, dict) else None
            return VersionConflict(doc.kind, doc.doc_id, expected_version, current)

        self._put(
            item,
            doc,
            conflict,
            # The conflict answer carries the current item, so the caller needs no second read.
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            **_version_condition(expected_version),
        )

    def _put(
        self,
        item: dict[str, Any],
        doc: Document,
        on_conflict: Callable[[ClientError], StoreError],
        **condition: Any,
    ) -> None:
        try:
            response = self.client.put_item(
                TableName=self._table, Item=item, ReturnConsumedCapacity="TOTAL", **condition
            )
        except ClientError as exc:
            self._consumed("PutItem", exc.response)
            if code(exc) == CONFLICT:
                if own_earlier_attempt(exc, item):
                    return
                raise on_conflict(exc) from exc
            raise unavailable(f"saving {doc.kind}", exc, outcome_unknown=status(exc) >= 500) from exc
        except BotoCoreError as exc:
            lost_answer = isinstance(exc, ReadTimeoutError | ConnectionClosedError)
            raise unavailable(f"saving {doc.kind}", exc, outcome_unknown=lost_answer) from exc
        self._consumed("PutItem", response)

    def _ledger(self, holder: str, kind: str) -> Ledger:
        try:
            response = self.client.get_item(
                TableName=self._table, Key=ledger_key(holder, kind), ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
            )
        except (ClientError, BotoCoreError) as exc:
            raise unavailable(f"reading the {kind} quota", exc) from exc
        self._consumed("GetItem", response)
        item = response.get("Item")
        if item is None:
            return Ledger(holder, kind)
        version, live = ledger_entries(item)
        return Ledger(holder, kind, version, live)

    def _write_counted(
        self,
        item: dict[str, Any],
        doc: Document,
        holder: str,
        update: LedgerUpdate,
        expected_version: int | None = None,
    ) -> None:
        """Write the document and `holder`'s updated ledger in one transaction, each conditional (the document new
        or at its version, the ledger at the version read); re-read the ledger if another write moved it."""
        if expected_version is None:
            doc_condition: dict[str, Any] = {
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": PARTITION_KEY},
            }
        else:
            doc_condition = _version_condition(expected_version)
        for attempt in range(LEDGER_ATTEMPTS):
            if attempt:
                self._sleep(ledger_backoff(attempt))
            ledger = self._ledger(holder, doc.kind)
            updated = update(ledger, int(self._clock()))
            ledger_condition: dict[str, Any] = (
                {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": PARTITION_KEY}}
                if ledger.version == 0
                else _version_condition(ledger.version)
            )
            puts: list[Any] = [
                {"Put": {"TableName": self._table, "Item": item, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
                {"Put": {"TableName": self._table, "Item": ledger_item(updated)}},
            ]
            puts[0]["Put"].update(doc_condition)
            puts[1]["Put"].update(ledger_condition)
            try:
                response = self.client.transact_write_items(
                    TransactItems=puts,
                    # Makes botocore's retries of this call idempotent: a repeat within 10 minutes is not reapplied.
                    ClientRequestToken=secrets.token_hex(16),
                    ReturnConsumedCapacity="TOTAL",
                )
            except ClientError as exc:
                self._consumed("TransactWriteItems", exc.response)
                if code(exc) != _CANCELLED:
                    raise unavailable(f"saving {doc.kind}", exc, outcome_unknown=status(exc) >= 500) from exc
                reasons: list[Any] = list(exc.response.get("CancellationReasons") or [{}, {}])
                if reasons[0].get("Code") == "ConditionalCheckFailed":
                    if retried(exc) and reasons[0].get("Item") == item:
                        return  # botocore retried a transaction whose answer was lost: it had landed, whole
                    raise self._refused(doc, reasons[0], expected_version) from exc
                if reasons[1].get("Code") == "ConditionalCheckFailed":
                    continue  # another write moved the ledger since it was read
                raise unavailable(f"saving {doc.kind}", exc) from exc
            except BotoCoreError as exc:
                lost_answer = isinstance(exc, ReadTimeoutError | ConnectionClosedError)
                raise unavailable(f"saving {doc.kind}", exc, outcome_unknown=lost_answer) from exc
            self._consumed("TransactWriteItems", response)
            return
        raise StoreBusy(doc.kind, LEDGER_ATTEMPTS)

    def _refused(self, doc: Document, reason: dict[str, Any], expected_version: int | None) -> StoreError:
        if expected_version is None:
            return AlreadyExists(doc.kind, doc.doc_id)
        old = reason.get("Item")
        current = from_item(doc.kind, old) if isinstance(old, dict) else None
        return VersionConflict(doc.kind, doc.doc_id, expected_version, current)


def _version_condition(expected_version: int) -> dict[str, Any]:
    return {
        "ConditionExpression": "#v = :expected",
        "ExpressionAttributeNames": {"#v": "v"},
        "ExpressionAttributeValues": {":expected": {"N": str(expected_version)}},
    }
