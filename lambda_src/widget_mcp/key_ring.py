"""A signing key read from where it is kept (a secret in AWS), read again every REFRESH_SECONDS so a rotation reaches
warm instances without a deploy, with the key it replaced still accepted for a bounded grace.

Nothing is read before the first use, so no key is in a SnapStart snapshot. When a read finds a new value, the one
before it still verifies for `grace_seconds`, counted from when the change could first have been seen (REFRESH_SECONDS
after the last read of the old value), so a replaced value verifies at most REFRESH_SECONDS + `grace_seconds` after
the rotation, however long the instance went unused. A failed read keeps the value read before, tried again every
RETRY_SECONDS, for no longer than a replaced value would verify: a deleted secret revokes within the same bound.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

# How long a key read from AWS is used before it is read again, and how soon a read that failed is tried again.
REFRESH_SECONDS = 300
RETRY_SECONDS = 30


class KeyRing:
    """The key to sign with (`current`) and the keys a signature may verify with (`accepted`: current first).

    `source` is called on first use; with `refresh_seconds` None, never again (a fixed value, or a key made for this
    process alone). What its first read raises reaches the caller; a later failure (ValueError, as SecretUnavailable)
    keeps the value read before. `clock`: monotonic seconds. `what` names the key in the log.
    """

    def __init__(
        self,
        source: Callable[[], bytes],
        *,
        grace_seconds: float,
        refresh_seconds: float | None = REFRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        what: str = "key",
    ) -> None:
        self._source = source
        self._grace = grace_seconds
        self._refresh = refresh_seconds
        self._clock = clock
        self._what = what
        self._current: bytes | None = None
        self._previous: bytes | None = None
        self._previous_until = 0.0
        self._next_read = 0.0
        self._read_at = 0.0  # when the value in _current was last read

    @classmethod
    def fixed(cls, key: bytes) -> KeyRing:
        """A key given as it is: never read again."""
        return cls(lambda: key, grace_seconds=0, refresh_seconds=None)

    def current(self) -> bytes:
        """The key new signatures use."""
        return self.accepted()[0]

    def accepted(self) -> tuple[bytes, ...]:
        """The keys a signature verifies with: the current one, then the one it replaced while in its grace."""
        now = self._clock()
        if self._current is None or (self._refresh is not None and now >= self._next_read):
            self._read(now)
        assert self._current is not None
        if self._previous is not None and now < self._previous_until:
            return (self._current, self._previous)
        return (self._current,)

    def _read(self, now: float) -> None:
        refresh = self._refresh or 0.0
        try:
            value = self._source()
        except ValueError as exc:  # SecretUnavailable: passing, as long as a value read before is at hand
            kept_until = self._read_at + refresh + self._grace
            if self._current is None or now >= kept_until:
                raise  # kept no longer than a replaced value verifies: a deleted secret revokes within that
            logger.warning("%s not re-read, the value read before is kept: %s", self._what, exc)
            self._next_read = min(now + RETRY_SECONDS, kept_until)
            return
        if self._current is not None and value != self._current:
            # Replaced at any time since the last read: its grace starts from when this could have been seen.
            seen = min(now, self._read_at + refresh)
            self._previous, self._previous_until = self._current, seen + self._grace
        self._current, self._read_at = value, now
        self._next_read = now + refresh
