"""Resource subscriptions for MCP 2025-11-25 clients, kept in the state table (with RESUMABLE_STREAMS).

A client subscribes to a resource an app declared `subscribable`; a tool that changes it says so with
`call.resource_updated(uri)`, which stamps the resource's one change item; the session's standalone event stream
(GET /mcp with its `Mcp-Session-Id`, then with `Last-Event-ID`) delivers each change of a resource it follows as
`notifications/resources/updated`. That stream is polled (SEP-1699): each GET answers what changed since the last
one and ends, so no connection stays open on Lambda.

Items: `follows/<session>[/<verified caller digest>]` holds the session's subscriptions (`<session>.<uri digest>`,
about 250 bytes, no URI: a poll reads them all in one query); `changed/<uri digest>` one item per resource, its URI
and the stamps of its latest changes (a resource that changed twice before the next poll is reported once, as the
spec allows: the client reads the resource anew either way). A subscription lasts a day (subscribe again to keep
it), a change item an hour after the last change.

Costs (strongly consistent reads; items under 1 KB but a change item, ≤ 2.3 KB with its URI, and a caller's ledger,
≤ 4 KB; on-demand us-east-1, $0.625 per million write units and $0.125 per million read units):
- subscribe: 1 read, then 1 write unit, $0.75 a million (a new one: 1 ledger read and a 2-item transaction of at
  most 10 units, its place in the caller's quota, $6.5 a million); a refused one writes nothing.
- a change (`resource_updated`): 1 read and 1 write (3 units), $2 a million, however many sessions follow it.
- a poll: 1 query of the session's subscriptions (at most FOLLOWS_READ items of ~250 bytes, at most 16 read units),
  then 1 batch read of the change items of the resources it follows (at most MAX_SUBSCRIPTIONS_PER_CALLER, a unit
  each, one round trip): at most 80 read units ($10 a million), 2 with one subscription ($0.25 a million).

Bounds: a caller (its identity, or its address without one) holds at most MAX_SUBSCRIPTIONS_PER_CALLER places, an
unsubscribed one until the day it was kept for ends. A resource has no bound of its own: its subscribers cost its
changes nothing, so no caller can use up anyone else's subscriptions.

Exactly once: a poll reports the changes stamped up to DELIVERY_LAG_MS before it, and the next poll starts there. A
change is stamped just before its write, so one that lands while a poll reads is reported by the next, and none is
reported twice. The change item keeps the newest stamp of each of the last STAMPS_KEPT slices of STAMP_SLICE_MS, so
a resource that changes all the time is still reported: a stamp leaves only once STAMPS_KEPT newer slices came,
which span more than the lag (and the clocks' skew) a poll looks back.
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
# How many resources one caller may follow at once: each is an item, and a poll reads one change item for each.
MAX_SUBSCRIPTIONS_PER_CALLER = 64
# MAX_URI_LENGTH (toolkit/resources.py) bounds the URI one may subscribe to (a change item carries it).
SUBSCRIPTION_SECONDS = 86_400
CHANGE_SECONDS = 3_600
# How long after its stamp a change is first reported: more than a write takes to land, and than instances' clocks
# differ.
DELIVERY_LAG_MS = 2_000
# A change item keeps the newest stamp of each of its last STAMPS_KEPT slices: together they span
# (STAMPS_KEPT - 1) x STAMP_SLICE_MS = 4.5 s, more than the lag (2 s) plus the clocks' skew (under 2 s).
STAMP_SLICE_MS = DELIVERY_LAG_MS // 4
STAMPS_KEPT = 10
# A session's subscriptions, live and lapsed (until DynamoDB's TTL takes them, within about two days): a caller
# makes at most MAX_SUBSCRIPTIONS_PER_CALLER new places a day, so a session's partition holds about four days' worth
# at most; one query of ~250-byte items reads them.
FOLLOWS_READ = MAX_SUBSCRIPTIONS_PER_CALLER * 4
# Attempts at a change item other changes of the same resource keep landing on first.
_CHANGE_ATTEMPTS = 4
_LAST = "last"


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


class UriTooLong(SubscriptionRefused):
    def __init__(self, uri: str, budget: int) -> None:
        super().__init__(
            f"This URI is too long to subscribe to ({len(uri):,} characters; at most {budget:,} are kept)",
            uri[:200],
        )


def check_uri(uri: str) -> None:
    """UriTooLong past MAX_URI_LENGTH: checked first, before any matching or read."""
    if len(uri) > MAX_URI_LENGTH:
        raise UriTooLong(uri, MAX_URI_LENGTH)


def _digest(uri: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(uri.encode()).digest()[:18]).decode()


class Subscriptions:
    def __init__(self, store: DocumentStore, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock

    def subscribe(self, session: str, uri: str, caller: str, owner: str | None = None) -> None:
        """Follow `uri` for a day from now (again: renewed), counted against `caller` (ownership.caller_key);
        `owner`, the verified caller (resumption's), alone hears of its changes. TooManySubscriptions past the
        caller's bound, UriTooLong past MAX_URI_LENGTH; a refused subscribe writes nothing."""
        check_uri(uri)
        now_ms = int(self._clock() * 1000)
        now = now_ms // 1000
        follows, doc_id, expires = _follows(session, owner), f"{session}.{_digest(uri)}", now + SUBSCRIPTION_SECONDS
        # Changes stamped from this millisecond on are its own (`from`: the one before).
        fresh = {"from": now_ms - 1}
        current = self._store.get(follows, SUBSCRIPTION, doc_id)
        if current is None:
            doc = Document(SUBSCRIPTION, doc_id, fresh, 1, now, now, expires)
            try:
                self._store.create(follows, doc.counted_for(f"subscriber/{caller}"), quota=MAX_SUBSCRIPTIONS_PER_CALLER)
            except AlreadyExists:
                return  # a concurrent subscribe of the same session made it
            except QuotaFull as full:
                raise TooManySubscriptions(uri) from full
            except ItemOverBudget as over:
                raise UriTooLong(uri, over.budget) from over
            return
        # A lapsed (or unsubscribed) subscription starts anew: changes made while it was not live are not its own.
        body = current.body if current.expires_at > now else fresh
        # A concurrent subscribe or unsubscribe of the same session may win: either is an answer.
        with contextlib.suppress(VersionConflict):
            self._store.replace(follows, current.next(body, now=now, expires_at=expires), current.version)

    def unsubscribe(self, session: str, uri: str, owner: str | None = None) -> None:
        now_ms = int(self._clock() * 1000)
        now = now_ms // 1000
        follows = _follows(session, owner)
        current = self._store.get(follows, SUBSCRIPTION, f"{session}.{_digest(uri)}")
        if current is None or current.expires_at <= now:
            return
        # Still counted, for a day: a caller cannot free a place by unsubscribing and follow more. Changes stamped
        # before this millisecond stay its own.
        ended = current.next({**current.body, "to": now_ms - 1}, now=now, expires_at=now)
        with contextlib.suppress(VersionConflict):
            self._store.replace(follows, ended, current.version)

    def updated(self, uri: str) -> None:
        """Stamp `uri`'s change item: one read and one write, whoever follows it. Best effort: a change that cannot
        be kept is logged, never raised (the tool's own change is stored already)."""
        if len(uri) > MAX_URI_LENGTH:
            return  # no one can follow it
        owner = f"changed/{_digest(uri)}"
        try:
            for _ in range(_CHANGE_ATTEMPTS):
                current = self._store.get(owner, CHANGE, _LAST)
                at_ms = int(self._clock() * 1000)  # stamped just before its write
                now = at_ms // 1000
                stamps = _stamped(current.body["at"] if current is not None else [], at_ms)
                body, expires = {"uri": uri, "at": stamps}, now + CHANGE_SECONDS
                try:
                    if current is None:
                        self._store.create(owner, Document(CHANGE, _LAST, body, 1, now, now, expires))
                    else:
                        self._store.replace(owner, current.next(body, now=now, expires_at=expires), current.version)
                    return
                except (AlreadyExists, VersionConflict):
                    continue  # another change of it landed first: stamp again on top of it
            logger.warning("the change of %s was not kept: other changes of it kept landing first", uri[:200])
        except StoreError as exc:
            logger.warning("the change of %s was not kept: %s", uri[:200], exc)

    def changes(self, session: str, owner: str | None, since_ms: int) -> tuple[list[str], int]:
        """The URIs changed for `session` and its verified caller `owner` after `since_ms` and up to
        DELIVERY_LAG_MS ago, oldest first, and the cursor to ask from next. Reads: one query, then one batch of
        one read per resource followed (at most MAX_SUBSCRIPTIONS_PER_CALLER, one round trip)."""
        now = self._clock()
        until = max(since_ms, int(now * 1000) - DELIVERY_LAG_MS)
        follows = self._store.newest(_follows(session, owner), SUBSCRIPTION, FOLLOWS_READ)
        # The ones live at some point after the cursor (a change made before one lapsed is still its own), the
        # latest to lapse first.
        followed = sorted(
            (f for f in follows if _last_ms(f) > max(since_ms, f.body["from"])),
            key=lambda f: f.expires_at,
            reverse=True,
        )[:MAX_SUBSCRIPTIONS_PER_CALLER]
        keys = [(f"changed/{follow.doc_id.rpartition('.')[2]}", CHANGE, _LAST) for follow in followed]
        fresh: list[tuple[int, str]] = []
        for follow, change in zip(followed, self._store.get_many(keys) if keys else [], strict=True):
            if change is None or change.expires_at <= now:
                continue
            after, upto = max(since_ms, follow.body["from"]), min(until, _last_ms(follow))
            stamps = [at for at in change.body["at"] if after < at <= upto]
            if stamps:
                fresh.append((max(stamps), change.body["uri"]))
        return [uri for _, uri in sorted(fresh)], until


def _last_ms(follow: Document) -> int:
    """The last millisecond whose changes are a subscription's: before it lapses, or before it was unsubscribed."""
    last: int = follow.body.get("to", follow.expires_at * 1000 - 1)
    return last


def _stamped(stamps: list[int], at_ms: int) -> list[int]:
    """`stamps` with `at_ms`: the newest of each slice, the last STAMPS_KEPT slices."""
    newest: dict[int, int] = {}
    for stamp in [*stamps, at_ms]:
        newest[stamp // STAMP_SLICE_MS] = max(stamp, newest.get(stamp // STAMP_SLICE_MS, stamp))
    return sorted(newest.values())[-STAMPS_KEPT:]


def _follows(session: str, owner: str | None) -> str:
    """Where a session's subscriptions are kept: its verified caller's part of it (none when no one vouched)."""
    return f"follows/{session}" if owner is None else f"follows/{session}/{_digest(owner)}"
