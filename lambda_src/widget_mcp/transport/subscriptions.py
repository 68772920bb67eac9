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
import time
from collections.abc import Callable

from widget_mcp.storage.documents import (
    AlreadyExists,
    Document,
    DocumentStore,
    ItemOverBudget,
    QuotaFull,
    VersionConflict,
)

SUBSCRIPTION, CHANGE = "subscription", "resource_change"
# How many resources one caller may follow at once: each is an item, and each change fans out to its subscribers.
MAX_SUBSCRIPTIONS_PER_CALLER = 64
# How many new subscribers a resource may gain a day: a change is then one query and at most twice this many
# writes. Past it, a change is a broadcast to build differently (an app's own channel), not a table fan-out.
MAX_NEW_SUBSCRIBERS_PER_DAY = 200
# Subscriptions live a day, and expired items linger until DynamoDB's TTL removes them (within about two days):
# a resource's partition holds at most this many items, all read by one query.
_SUBSCRIBERS_READ = MAX_NEW_SUBSCRIBERS_PER_DAY * 4
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
            f"{uri} gained {MAX_NEW_SUBSCRIBERS_PER_DAY} subscribers today, as many as its changes reach; subscribe "
            "again tomorrow, or read it when you need it",
            uri,
        )


class UriTooLong(SubscriptionRefused):
    def __init__(self, uri: str, budget: int) -> None:
        super().__init__(
            f"This URI is too long to subscribe to ({len(uri):,} characters; a subscription is kept in at most "
            f"{budget:,} bytes)",
            uri[:200],
        )


def _digest(uri: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(uri.encode()).digest()[:18]).decode()


class Subscriptions:
    def __init__(self, store: DocumentStore, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock

    def subscribe(self, session: str, uri: str, caller: str) -> None:
        """Follow `uri` for a day from now (again: renewed), counted against `caller` (ownership.caller_key).
        TooManySubscriptions past the caller's bound, TooManySubscribers past the resource's, UriTooLong past the
        item budget."""
        digest, now = _digest(uri), int(self._clock())
        owner, doc_id, expires = f"watch/{digest}", f"{session}.{digest}", now + SUBSCRIPTION_SECONDS
        current = self._store.get(owner, SUBSCRIPTION, doc_id)
        if current is None:
            doc = Document(SUBSCRIPTION, doc_id, {"uri": uri}, 1, now, now, expires).counted_for(f"subscriber/{caller}")
            day = str(now // 86_400)
            if not self._store.hit(f"subscribers/{digest}", day, MAX_NEW_SUBSCRIBERS_PER_DAY, now + 2 * 86_400):
                raise TooManySubscribers(uri)
            try:
                self._store.create(owner, doc, quota=MAX_SUBSCRIPTIONS_PER_CALLER)
            except AlreadyExists:
                pass  # a concurrent subscribe of the same session made it
            except QuotaFull as full:
                raise TooManySubscriptions(uri) from full
            except ItemOverBudget as over:
                raise UriTooLong(uri, over.budget) from over
            return
        # A concurrent subscribe or unsubscribe of the same session may win: either is an answer.
        with contextlib.suppress(VersionConflict):
            self._store.replace(owner, current.next({"uri": uri}, now=now, expires_at=expires), current.version)

    def unsubscribe(self, session: str, uri: str) -> None:
        digest, now = _digest(uri), int(self._clock())
        owner = f"watch/{digest}"
        current = self._store.get(owner, SUBSCRIPTION, f"{session}.{digest}")
        if current is None or current.expires_at <= now:
            return
        # Still counted (for the day it was kept for): a caller cannot free a place by unsubscribing and follow more.
        ended = current.next({"uri": uri}, now=now, expires_at=now)
        with contextlib.suppress(VersionConflict):
            self._store.replace(owner, ended, current.version)

    def updated(self, uri: str) -> int:
        """Leave a change of `uri` for every session subscribed to it; how many that was."""
        now = self._clock()
        subscribers = self._store.newest(f"watch/{_digest(uri)}", SUBSCRIPTION, _SUBSCRIBERS_READ)
        live = [s.doc_id.split(".")[0] for s in subscribers if s.expires_at > now and s.body.get("uri") == uri]
        for session in live:
            self._leave_change(f"inbox/{session}", uri, int(self._clock() * 1000))  # stamped as it is written
        return len(live)

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

    def changes(self, session: str, since_ms: int) -> tuple[list[str], int]:
        """The URIs changed for `session` after `since_ms` and up to DELIVERY_LAG_MS ago, oldest first, and the
        cursor to ask from next."""
        now = self._clock()
        until = max(since_ms, int(now * 1000) - DELIVERY_LAG_MS)
        kept = self._store.newest(f"inbox/{session}", CHANGE, MAX_SUBSCRIPTIONS_PER_CALLER * 4)
        fresh = sorted(
            (c.body["at"], c.body["uri"]) for c in kept if c.expires_at > now and since_ms < c.body["at"] <= until
        )
        return [uri for _, uri in fresh], until
