"""Resource subscriptions for MCP 2025-11-25 clients, kept in the state table (with RESUMABLE_STREAMS).

A client subscribes to a resource an app declared `subscribable`; a tool that changes it says so with
`call.resource_updated(uri)`, which leaves a change for every session subscribed to it; the session's standalone
event stream (GET /mcp with its `Mcp-Session-Id`, then with `Last-Event-ID`) delivers each change as
`notifications/resources/updated`. That stream is polled (SEP-1699): each GET answers what changed since the last
one and ends, so no connection stays open on Lambda.

Items: `watch/<uri digest>` holds one subscription per session (`<session>.<uri digest>`: the sessions a change
goes to, in one query); `inbox/<session>` one change per URI, the newest (a resource that changed twice before the
next poll is reported once, as the spec allows: the client reads the resource anew either way). Both expire: a
subscription a day after it was made (subscribe again to keep it), a change an hour after it was left.

Bounds: a caller (its identity, or its address without one) holds at most MAX_SUBSCRIPTIONS_PER_CALLER places, an
unsubscribed one until the day it was kept for ends; a resource gains at most MAX_NEW_SUBSCRIBERS_PER_DAY
subscribers a day, so one query always reaches every subscriber of a change.

Exactly once: a poll reports the changes left up to DELIVERY_LAG_MS before it, and the next poll starts there. A
change is stamped just before its write, so one that lands while a poll reads is reported by the next, and none is
reported twice.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import time
from collections.abc import Callable

from widget_mcp.storage.documents import (
    AlreadyExists,
    Document,
    DocumentStore,
    ItemOverBudget,
    QuotaFull,
    StoreError,
    VersionConflict,
)
from widget_mcp.toolkit.resources import MAX_URI_LENGTH

logger = logging.getLogger(__name__)

SUBSCRIPTION, CHANGE = "subscription", "resource_change"
# How many resources one caller may follow at once: each is an item, and each change fans out to its subscribers.
MAX_SUBSCRIPTIONS_PER_CALLER = 64
# How many subscribes (new or renewed) a resource takes a day: a change then reaches at most twice this many live
# subscriptions, in one query and as many writes. Past it, a change is a broadcast to build differently (an app's own
# channel), not a table fan-out.
MAX_SUBSCRIBES_PER_DAY = 200
# Subscriptions live a day, and expired items linger until DynamoDB's TTL removes them (within about two days): a
# resource's partition holds at most this many items (about 100 bytes each, the URI not among them), all read by one
# query, whose page holds 1 MB.
_SUBSCRIBERS_READ = MAX_SUBSCRIBES_PER_DAY * 6
# MAX_URI_LENGTH (toolkit/resources.py) bounds the URI one may subscribe to (a change item carries it).
SUBSCRIPTION_SECONDS = 86_400
CHANGE_SECONDS = 3_600
# How long after its stamp a change is first reported: more than a write takes to land, and than instances' clocks
# differ.
DELIVERY_LAG_MS = 2_000


class SubscriptionRefused(ValueError):
    """A subscription this server will not keep; `uri` is the one asked for (cut, if it was too long)."""

    def __init__(self, message: str, uri: str) -> None:
        super().__init__(message)
        self.uri = uri


class TooManySubscriptions(SubscriptionRefused):
    def __init__(self, uri: str) -> None:
        super().__init__(
            f"You follow {MAX_SUBSCRIPTIONS_PER_CALLER} resources already (a place you unsubscribed from frees when "
            f"the day it was kept for ends); to follow {uri}, wait for one to lapse",
            uri,
        )


class TooManySubscribers(SubscriptionRefused):
    def __init__(self, uri: str) -> None:
        super().__init__(
            f"{uri[:200]} took {MAX_SUBSCRIBES_PER_DAY} subscriptions today, as many as its changes reach; subscribe "
            "again tomorrow, or read it when you need it",
            uri[:200],
        )


class UriTooLong(SubscriptionRefused):
    def __init__(self, uri: str, budget: int) -> None:
        super().__init__(
            f"This URI is too long to subscribe to ({len(uri):,} characters; at most {budget:,} are kept)",
            uri[:200],
        )


def _digest(uri: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(uri.encode()).digest()[:18]).decode()


class Subscriptions:
    def __init__(self, store: DocumentStore, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock

    def subscribe(self, session: str, uri: str, caller: str, owner: str | None = None) -> None:
        """Follow `uri` for a day from now (again: renewed), counted against `caller` (ownership.caller_key);
        `owner`, the verified caller (resumption's), alone hears of its changes. TooManySubscriptions past the
        caller's bound, TooManySubscribers past the resource's, UriTooLong past the item budget."""
        if len(uri) > MAX_URI_LENGTH:
            raise UriTooLong(uri, MAX_URI_LENGTH)
        digest, now = _digest(uri), int(self._clock())
        owner_key, doc_id, expires = f"watch/{digest}", f"{session}.{digest}", now + SUBSCRIPTION_SECONDS
        body = {"o": owner or ""}
        current = self._store.get(owner_key, SUBSCRIPTION, doc_id)
        if current is None:
            doc = Document(SUBSCRIPTION, doc_id, body, 1, now, now, expires).counted_for(f"subscriber/{caller}")
            try:
                self._store.create(owner_key, doc, quota=MAX_SUBSCRIPTIONS_PER_CALLER)
            except AlreadyExists:
                return  # a concurrent subscribe of the same session made it
            except QuotaFull as full:
                raise TooManySubscriptions(uri) from full
            except ItemOverBudget as over:
                raise UriTooLong(uri, over.budget) from over
            current = doc
        elif not self._counted(digest, now):
            raise TooManySubscribers(uri)
        else:
            # A concurrent subscribe or unsubscribe of the same session may win: either is an answer.
            with contextlib.suppress(VersionConflict):
                self._store.replace(owner_key, current.next(body, now=now, expires_at=expires), current.version)
            return
        if not self._counted(digest, now):
            # Counted once the place is taken, so a refused caller spends none of the resource's day; the new
            # subscription lapses at once (its place frees as an ended one does).
            ended = current.next(current.body, now=now, expires_at=now, live=False)
            with contextlib.suppress(VersionConflict):
                self._store.replace(owner_key, ended, current.version)
            raise TooManySubscribers(uri)

    def _counted(self, digest: str, now: int) -> bool:
        """Count one subscribe (new or renewed) on the resource's day; False when its day is full."""
        return self._store.hit(f"subscribers/{digest}", str(now // 86_400), MAX_SUBSCRIBES_PER_DAY, now + 2 * 86_400)

    def unsubscribe(self, session: str, uri: str) -> None:
        digest, now = _digest(uri), int(self._clock())
        owner_key = f"watch/{digest}"
        current = self._store.get(owner_key, SUBSCRIPTION, f"{session}.{digest}")
        if current is None or current.expires_at <= now:
            return
        # Still counted, for a day: a caller cannot free a place by unsubscribing and follow more.
        ended = current.next(current.body, now=now, expires_at=now)
        with contextlib.suppress(VersionConflict):
            self._store.replace(owner_key, ended, current.version)

    def updated(self, uri: str) -> int:
        """Leave a change of `uri` for every session subscribed to it; how many that was. Best effort: a change
        that cannot be left for a subscriber is logged, and the others are still told."""
        now = self._clock()
        try:
            subscribers = self._store.newest(f"watch/{_digest(uri)}", SUBSCRIPTION, _SUBSCRIBERS_READ)
        except StoreError as exc:
            logger.warning("subscribers of %s were not told of its change: %s", uri[:200], exc)
            return 0
        told = 0
        for subscription in subscribers:
            if subscription.expires_at <= now:
                continue
            session = subscription.doc_id.split(".")[0]
            try:
                self._leave_change(_inbox(session, subscription.body.get("o") or None), uri, int(self._clock() * 1000))
            except StoreError as exc:
                logger.warning("a subscriber of %s was not told of its change: %s", uri[:200], exc)
                continue
            told += 1
        return told

    def _leave_change(self, inbox: str, uri: str, at_ms: int) -> None:
        now = at_ms // 1000
        change = Document(CHANGE, _digest(uri), {"uri": uri, "at": at_ms}, 1, now, now, now + CHANGE_SECONDS)
        try:
            self._store.create(inbox, change)
        except AlreadyExists:
            current = self._store.get(inbox, CHANGE, change.doc_id)
            if current is not None and current.body.get("at", 0) < at_ms:
                newer = current.next(change.body, now=now, expires_at=change.expires_at)
                # Another change of the same resource may land first: one is reported either way.
                with contextlib.suppress(VersionConflict):
                    self._store.replace(inbox, newer, current.version)

    def changes(self, session: str, owner: str | None, since_ms: int) -> tuple[list[str], int]:
        """The URIs changed for `session` and its verified caller `owner` after `since_ms` and up to
        DELIVERY_LAG_MS ago, oldest first, and the cursor to ask from next."""
        now = self._clock()
        until = max(since_ms, int(now * 1000) - DELIVERY_LAG_MS)
        kept = self._store.newest(_inbox(session, owner), CHANGE, MAX_SUBSCRIPTIONS_PER_CALLER * 4)
        fresh = sorted(
            (c.body["at"], c.body["uri"]) for c in kept if c.expires_at > now and since_ms < c.body["at"] <= until
        )
        return [uri for _, uri in fresh], until


def _inbox(session: str, owner: str | None) -> str:
    """Where a session's changes wait: its verified caller's part of it (none when no one vouched for the caller)."""
    return f"inbox/{session}" if owner is None else f"inbox/{session}/{_digest(owner)}"
