"""The export's cursor: where the next `export_my_data` call resumes, sealed to the caller it was given to.

It holds a position in the caller's own partition (an app, a kind, the last id exported) and an HMAC over that
position and the caller's partition key under the server's requestState key, for its own label. The export only ever
reads the caller's own partition, so even a cursor that opened would show another user nothing of anyone else's; the
seal makes a cursor replayed by another user, altered or made up an `invalid_cursor` error rather than a silent
position. It is signed, not encrypted: it carries one id the caller's own export already showed it."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from widget_mcp.toolkit import ToolError
from widget_mcp.toolkit.call import Signer


@dataclass(frozen=True)
class Position:
    """Where a paged export resumes: after the document `after` of `kind` (in `app`), in the export's order."""

    app: str
    kind: str
    after: str


LABEL = "export-cursor"
# Far above any cursor this server writes (an app, a kind and an id); a longer one is refused before any work.
MAX_CURSOR = 512


class InvalidCursor(ToolError):
    code = "invalid_cursor"

    def __init__(self) -> None:
        super().__init__(
            "The cursor was not issued to you by this server's export, or was altered. Call export_my_data without "
            "a cursor to start from the newest item.",
            details={"fields": {"cursor": "not a cursor this server gave this user"}},
        )


def _signed_text(partition: str, body: str) -> str:
    return f"{partition}\n{body}"


def seal(signer: Signer, partition: str, position: Position) -> str:
    raw = json.dumps([position.app, position.kind, position.after], separators=(",", ":"), ensure_ascii=True)
    body = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    return f"{body}.{signer.sign(LABEL, _signed_text(partition, body))}"


def open_cursor(signer: Signer, partition: str, cursor: str) -> Position:
    """The position a cursor names, once its seal shows this server gave it to this caller; else InvalidCursor."""
    body, dot, mac = cursor.partition(".")
    if len(cursor) > MAX_CURSOR or not dot or not signer.verify(LABEL, _signed_text(partition, body), mac):
        raise InvalidCursor()
    try:
        fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error):
        raise InvalidCursor() from None
    if not (isinstance(fields, list) and len(fields) == 3 and all(isinstance(f, str) for f in fields)):
        raise InvalidCursor()
    return Position(*fields)
