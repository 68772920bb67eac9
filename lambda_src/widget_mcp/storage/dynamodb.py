"""DynamoDB adapter for the DocumentStore port: one GetItem per read, one conditional PutItem per write.

Every call asks for its consumed capacity and reports it to `on_capacity` (metrics, and tests that count calls).
Throttling, 5xx answers and timeouts are retried by botocore's standard retry mode (bounded attempts, jittered
exponential backoff); what still fails becomes StoreUnavailable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError, ReadTimeoutError

from widget_mcp.storage.documents import AlreadyExists, Document, StoreError, StoreUnavailable, VersionConflict
from widget_mcp.storage.table import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef

_CONFLICT = "ConditionalCheckFailedException"
CapacityListener = Callable[[str, float], None]

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


def _pk(owner: str) -> str:
    return f"USER#{owner}"


def _sk(kind: str, doc_id: str) -> str:
    return f"{kind.upper()}#{doc_id}"


def _to_item(owner: str, doc: Document) -> dict[str, AttributeValueTypeDef]:
    return {
        PARTITION_KEY: {"S": _pk(owner)},
        SORT_KEY: {"S": _sk(doc.kind, doc.doc_id)},
        "v": {"N": str(doc.version)},
        "body": {"S": json.dumps(doc.body, separators=(",", ":"), ensure_ascii=False)},
        "crt": {"N": str(doc.created_at)},
        "upd": {"N": str(doc.updated_at)},
        TTL_ATTRIBUTE: {"N": str(doc.expires_at)},
    }


def _from_item(kind: str, item: dict[str, Any]) -> Document:
    return Document(
        kind=kind,
        doc_id=item[SORT_KEY]["S"].split("#", 1)[1],
        body=json.loads(item["body"]["S"]),
        version=int(item["v"]["N"]),
        created_at=int(item["crt"]["N"]),
        updated_at=int(item["upd"]["N"]),
        expires_at=int(item[TTL_ATTRIBUTE]["N"]),
    )


class DynamoDbDocumentStore:
    """`client` may be a factory: the client (and boto3's import) is then made on first use, not at cold start."""

    def __init__(
        self,
        client: DynamoDBClient | Callable[[], DynamoDBClient],
        table_name: str,
        *,
        on_capacity: CapacityListener | None = None,
    ) -> None:
        self._factory = client if callable(client) else None
        self._made: DynamoDBClient | None = None if callable(client) else client
        self._table = table_name
        self._on_capacity = on_capacity

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
        units = (response.get("ConsumedCapacity") or {}).get("CapacityUnits")
        if self._on_capacity is not None and units is not None:
            self._on_capacity(operation, float(units))

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        try:
            response = self.client.get_item(
                TableName=self._table,
                Key={PARTITION_KEY: {"S": _pk(owner)}, SORT_KEY: {"S": _sk(kind, doc_id)}},
                ConsistentRead=True,
                ReturnConsumedCapacity="TOTAL",
            )
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(f"reading {kind}", exc) from exc
        self._consumed("GetItem", response)
        item = response.get("Item")
        return None if item is None else _from_item(kind, item)

    def create(self, owner: str, doc: Document) -> None:
        self._put(
            owner,
            doc,
            lambda _: AlreadyExists(doc.kind, doc.doc_id),
            ConditionExpression="attribute_not_exists(#pk)",
            ExpressionAttributeNames={"#pk": PARTITION_KEY},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        def conflict(exc: ClientError) -> VersionConflict:
            old: Any = exc.response.get("Item")
            current = _from_item(doc.kind, old) if isinstance(old, dict) else None
            return VersionConflict(doc.kind, doc.doc_id, expected_version, current)

        self._put(
            owner,
            doc,
            conflict,
            ConditionExpression="#v = :expected",
            ExpressionAttributeNames={"#v": "v"},
            ExpressionAttributeValues={":expected": {"N": str(expected_version)}},
            # The conflict answer carries the current item, so the caller needs no second read.
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )

    def _put(
        self, owner: str, doc: Document, on_conflict: Callable[[ClientError], StoreError], **condition: Any
    ) -> None:
        item = _to_item(owner, doc)
        try:
            response = self.client.put_item(
                TableName=self._table, Item=item, ReturnConsumedCapacity="TOTAL", **condition
            )
        except ClientError as exc:
            self._consumed("PutItem", exc.response)
            if _code(exc) == _CONFLICT:
                if _own_earlier_attempt(exc, item):
                    return
                raise on_conflict(exc) from exc
            raise _unavailable(f"saving {doc.kind}", exc, outcome_unknown=_status(exc) >= 500) from exc
        except BotoCoreError as exc:
            lost_answer = isinstance(exc, ReadTimeoutError | ConnectionClosedError)
            raise _unavailable(f"saving {doc.kind}", exc, outcome_unknown=lost_answer) from exc
        self._consumed("PutItem", response)

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        try:
            response = self.client.query(
                TableName=self._table,
                KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
                ExpressionAttributeNames={"#pk": PARTITION_KEY, "#sk": SORT_KEY},
                ExpressionAttributeValues={":pk": {"S": _pk(owner)}, ":prefix": {"S": f"{kind.upper()}#"}},
                ScanIndexForward=False,
                Limit=limit,
                ReturnConsumedCapacity="TOTAL",
            )
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(f"listing {kind}", exc) from exc
        self._consumed("Query", response)
        return [_from_item(kind, item) for item in response.get("Items", [])]


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _status(exc: ClientError) -> int:
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def _own_earlier_attempt(exc: ClientError, item: dict[str, Any]) -> bool:
    """Whether the condition failed only because botocore retried a put whose answer was lost: the stored item
    is byte for byte the one this call writes (its version and timestamps included)."""
    retried = int(exc.response.get("ResponseMetadata", {}).get("RetryAttempts") or 0) > 0
    return retried and exc.response.get("Item") == item


def _unavailable(action: str, exc: Exception, *, outcome_unknown: bool = False) -> StoreUnavailable:
    reason = _code(exc) if isinstance(exc, ClientError) else type(exc).__name__
    return StoreUnavailable(f"{action} failed: {reason}", outcome_unknown=outcome_unknown)
