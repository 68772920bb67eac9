"""The DynamoDB adapter's counting writes, each one conditional UpdateItem: a document's counters (counters.py: the
first add to a document creates it, or gives it its counter map, then adds) and the rate limit's window counters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError, ReadTimeoutError

from widget_mcp.storage.counters import add_room, add_update, added, check_room, checked_increments
from widget_mcp.storage.documents import AlreadyExists, Document, StoreError, StoreUnavailable, VersionConflict
from widget_mcp.storage.dynamodb_calls import CONFLICT, code, status, unavailable
from widget_mcp.storage.items import counter_key, doc_key, from_item
from widget_mcp.storage.table import PARTITION_KEY, TTL_ATTRIBUTE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbCounters:
    """Mixed into DynamoDbDocumentStore, whose client, table, clock and budget it uses."""

    _table: str
    _budget: int
    _clock: Callable[[], float]

    @property
    def client(self) -> DynamoDBClient:
        raise NotImplementedError

    def _consumed(self, operation: str, response: Any) -> None:
        raise NotImplementedError

    def _item_within_budget(self, owner: str, doc: Document) -> dict[str, Any]:
        raise NotImplementedError

    def _put(
        self, item: dict[str, Any], doc: Document, on_conflict: Callable[[ClientError], StoreError], **condition: Any
    ) -> None:
        raise NotImplementedError

    def add(
        self,
        owner: str,
        kind: str,
        doc_id: str,
        increments: Mapping[str, int],
        *,
        expires_at: int | None = None,
    ) -> Document:
        wanted = checked_increments(increments)
        now = int(self._clock())
        update = add_update(wanted, now=now, room=add_room(owner, kind, doc_id, self._budget))
        key = doc_key(owner, kind, doc_id)
        found = self._add(owner, kind, key, update, wanted)
        if found is not None:
            return found
        if expires_at is not None:
            fresh = Document(kind, doc_id, {}, 1, now, now, expires_at, counts=wanted)
            try:
                self._put(
                    self._item_within_budget(owner, fresh),
                    fresh,
                    lambda _: AlreadyExists(kind, doc_id),
                    ConditionExpression="attribute_not_exists(#pk)",
                    ExpressionAttributeNames={"#pk": PARTITION_KEY},
                )
                return fresh
            except AlreadyExists:
                pass  # a racing add created it first, or it was stored without counters
        try:  # Give the stored document its (empty) counter map, once, then add.
            self.client.update_item(
                TableName=self._table,
                Key=key,
                UpdateExpression="SET #cnt = if_not_exists(#cnt, :none)",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={"#pk": PARTITION_KEY, "#cnt": "cnt"},
                ExpressionAttributeValues={":none": {"M": {}}},
            )
        except ClientError as exc:
            if code(exc) == CONFLICT:
                raise VersionConflict(kind, doc_id, 0, None) from exc
            raise unavailable(f"counting {kind}", exc) from exc
        except BotoCoreError as exc:
            raise unavailable(f"counting {kind}", exc) from exc
        found = self._add(owner, kind, key, update, wanted)
        if found is None:
            raise StoreUnavailable(f"counting {kind}: the document lost its counters twice")
        return found

    def _add(
        self, owner: str, kind: str, key: dict[str, Any], update: dict[str, Any], wanted: dict[str, int]
    ) -> Document | None:
        """The document after the add; None if it is missing or has no counter map yet."""
        try:
            response = self.client.update_item(
                TableName=self._table,
                Key=key,
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
                ReturnConsumedCapacity="TOTAL",
                **update,
            )
        except ClientError as exc:
            self._consumed("UpdateItem", exc.response)
            if code(exc) == "ValidationException" and "document path" in str(exc):
                return None  # no counter map to add into
            if code(exc) != CONFLICT:
                raise unavailable(f"counting {kind}", exc, outcome_unknown=status(exc) >= 500) from exc
            old: Any = exc.response.get("Item")
            if not isinstance(old, dict) or "cnt" not in old:
                return None
            current = from_item(kind, old)
            added(current, wanted)  # the refusal the condition made: CountOutOfRange, TooManyCounters
            check_room(owner, current, len(old["body"]["S"].encode()), self._budget)  # or ItemOverBudget
            raise StoreUnavailable(f"counting {kind}: refused for no known reason") from exc
        except BotoCoreError as exc:
            lost_answer = isinstance(exc, ReadTimeoutError | ConnectionClosedError)
            raise unavailable(f"counting {kind}", exc, outcome_unknown=lost_answer) from exc
        self._consumed("UpdateItem", response)
        return from_item(kind, response["Attributes"])

    def hit(self, counter: str, window: str, limit: int, expires_at: int) -> bool:
        try:
            response = self.client.update_item(
                TableName=self._table,
                Key=counter_key(counter, window),
                UpdateExpression="ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)",
                ConditionExpression="attribute_not_exists(#n) OR #n < :limit",
                ExpressionAttributeNames={"#n": "n", "#ttl": TTL_ATTRIBUTE},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit)},
                    ":ttl": {"N": str(expires_at)},
                },
                ReturnConsumedCapacity="TOTAL",
            )
        except ClientError as exc:
            self._consumed("UpdateItem", exc.response)
            if code(exc) == CONFLICT:
                return False
            raise unavailable("counting calls", exc) from exc
        except BotoCoreError as exc:
            raise unavailable("counting calls", exc) from exc
        self._consumed("UpdateItem", response)
        return True
