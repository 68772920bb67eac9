"""The DynamoDB adapter's deletions and its reads of an owner's documents of a kind: one Query page (`newest`), or
page after page (`every`, what erasing and exporting a user's data walk). A deletion is one DeleteItem, or, for a
document counted against a quota, one TransactWriteItems that deletes it and takes it out of its holder's ledger
(conditional on the ledger's version, read again when another write moved it). The function's role may delete only
in `USER#` partitions (infra: dynamodb:LeadingKeys)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from widget_mcp.storage.documents import Document, StoreBusy
from widget_mcp.storage.dynamodb_calls import code, unavailable
from widget_mcp.storage.items import doc_key, doc_sk, from_item, ledger_item, user_pk
from widget_mcp.storage.ledger import LEDGER_ATTEMPTS, Ledger, ledger_backoff
from widget_mcp.storage.table import PARTITION_KEY, SORT_KEY

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# DynamoDB answers a Query with at most 1 MB; a page of this many keeps an export's reads in small steps.
PAGE_SIZE = 100


class DynamoDbErase:
    """Mixed into DynamoDbDocumentStore, whose client, table, clock and ledger reads it uses."""

    _table: str
    _clock: Callable[[], float]
    _sleep: Callable[[float], None]

    @property
    def client(self) -> DynamoDBClient:
        raise NotImplementedError

    def _consumed(self, operation: str, response: Any) -> None:
        raise NotImplementedError

    def _ledger(self, holder: str, kind: str) -> Ledger:
        raise NotImplementedError

    def delete(self, owner: str, doc: Document) -> None:
        if doc.quota_holder is None:
            try:
                response = self.client.delete_item(
                    TableName=self._table, Key=doc_key(owner, doc.kind, doc.doc_id), ReturnConsumedCapacity="TOTAL"
                )
            except (ClientError, BotoCoreError) as exc:
                raise unavailable(f"deleting {doc.kind}", exc) from exc
            self._consumed("DeleteItem", response)
            return
        for attempt in range(LEDGER_ATTEMPTS):
            if attempt:
                self._sleep(ledger_backoff(attempt))
            ledger = self._ledger(doc.quota_holder, doc.kind)
            if ledger.version == 0:  # nothing counts it: a plain delete
                self.delete(owner, _uncounted(doc))
                return
            actions: list[Any] = [
                {"Delete": {"TableName": self._table, "Key": doc_key(owner, doc.kind, doc.doc_id)}},
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": ledger_item(ledger.forget(doc.doc_id, int(self._clock()))),
                        "ConditionExpression": "#v = :expected",
                        "ExpressionAttributeNames": {"#v": "v"},
                        "ExpressionAttributeValues": {":expected": {"N": str(ledger.version)}},
                    }
                },
            ]
            try:
                written = self.client.transact_write_items(
                    TransactItems=actions, ClientRequestToken=secrets.token_hex(16), ReturnConsumedCapacity="TOTAL"
                )
            except ClientError as exc:
                self._consumed("TransactWriteItems", exc.response)
                if code(exc) == "TransactionCanceledException":
                    continue  # another write moved the ledger since it was read
                raise unavailable(f"deleting {doc.kind}", exc) from exc
            except BotoCoreError as exc:
                raise unavailable(f"deleting {doc.kind}", exc) from exc
            self._consumed("TransactWriteItems", written)
            return
        raise StoreBusy(doc.kind, LEDGER_ATTEMPTS)

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        return self._page(owner, kind, limit, None)[0]

    def every(self, owner: str, kind: str, limit: int, *, after: str | None = None) -> list[Document]:
        found: list[Document] = []
        start: dict[str, Any] | None = None
        while len(found) < limit:
            page, start = self._page(owner, kind, min(PAGE_SIZE, limit - len(found)), start, after)
            found.extend(doc for doc in page if doc.doc_id != after)
            if not start:
                break
        return found[:limit]

    def _page(
        self, owner: str, kind: str, limit: int, start: dict[str, Any] | None, after: str | None = None
    ) -> tuple[list[Document], dict[str, Any] | None]:
        """One Query of the owner's documents of a kind, newest first, from `start` (and no newer than the id
        `after`, which the caller drops: BETWEEN is inclusive, and the item need not exist): them, and where the next
        begins (None: there are no more)."""
        page: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        prefix = f"{kind.upper()}#"
        if after is None:
            condition, values = "begins_with(#sk, :prefix)", {":prefix": {"S": prefix}}
        else:
            condition = "#sk BETWEEN :prefix AND :after"
            values = {":prefix": {"S": prefix}, ":after": {"S": doc_sk(kind, after)}}
        try:
            response = self.client.query(
                TableName=self._table,
                KeyConditionExpression=f"#pk = :pk AND {condition}",
                ExpressionAttributeNames={"#pk": PARTITION_KEY, "#sk": SORT_KEY},
                ExpressionAttributeValues={":pk": {"S": user_pk(owner)}, **values},
                ScanIndexForward=False,
                Limit=limit,
                ReturnConsumedCapacity="TOTAL",
                **page,
            )
        except (ClientError, BotoCoreError) as exc:
            raise unavailable(f"listing {kind}", exc) from exc
        self._consumed("Query", response)
        return [from_item(kind, item) for item in response.get("Items", [])], response.get("LastEvaluatedKey")


def _uncounted(doc: Document) -> Document:
    return replace(doc, quota_holder=None, counted_until=0)
