"""`export_my_data` and `erase_my_data`: what an identified caller keeps across this server's apps, read or deleted.

Which kinds each app keeps comes from the registry's books (`ToolBook(keeps=…)`), read on the first call, so an app
added to the registry is exported and erased by its declaration alone."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from widget_mcp.apps.my_data.cursor import MAX_CURSOR, InvalidCursor, open_cursor, seal
from widget_mcp.apps.my_data.names import ERASE_TOOL, EXPORT_TOOL
from widget_mcp.toolkit import ToolBook, ToolCall, ToolError, ToolResult

if TYPE_CHECKING:
    from widget_mcp.apps.books import AppContext
    from widget_mcp.apps.my_data.service import MyData

WHAT = "Your data"


class NoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cursor: str | None = Field(
        default=None,
        max_length=MAX_CURSOR,
        description="The nextCursor of the previous export_my_data result, to continue where it stopped.",
    )


class StoredItem(BaseModel):
    app: str = Field(description="The app that keeps it.")
    kind: str
    id: str
    created_at: int = Field(description="Epoch seconds.")
    updated_at: int
    expires_at: int = Field(description="When it is deleted anyway (epoch seconds).")
    body: dict[str, Any]
    counts: dict[str, int]


class ExportOut(BaseModel):
    items: list[StoredItem]
    complete: bool = Field(description="False: there are more items; call again with nextCursor for the next ones.")
    nextCursor: str | None = Field(  # noqa: N815 (the wire name, as MCP spells its own cursors)
        default=None, description="Present while incomplete: pass it as `cursor` to the next export_my_data call."
    )


class EraseOut(BaseModel):
    erased: dict[str, int] = Field(description="How many items of each kind were deleted.")
    complete: bool = Field(description="False: more remain; call erase_my_data again.")


# What a caller without identity is told: like chess_list_games, it is answered, with nothing, rather than refused.
NOTHING_OF_YOURS = (
    " This call carries no user identity, so nothing here is kept as yours: what was made without one is reachable "
    "only by its id and expires by itself. Sign in (or use a host that identifies you) to keep data you can erase."
)


def partition_of(call: ToolCall) -> str | None:
    """The caller's own partition; None for a caller without identity, who owns nothing to export or erase (with
    ANONYMOUS_STATE=refuse, `call.owner` refuses it with identity_required)."""
    return call.owner(WHAT).user_key


def declared_kinds(context: AppContext) -> dict[str, tuple[str, ...]]:
    """Each registered app's declared kinds, by the app's name (the last part of its package)."""
    from widget_mcp.apps import registry
    from widget_mcp.apps.books import load_books

    entries = [entry for entry in registry.APPS if entry != __package__.rsplit(".", 1)[0]]
    books = load_books(context, tuple(entries))
    return {entry.rsplit(".", 1)[-1]: book.keeps for entry, book in zip(entries, books, strict=True) if book.keeps}


def build_book(context: AppContext) -> ToolBook:
    book = ToolBook()

    @cache
    def my_data() -> MyData:
        from widget_mcp.apps.my_data.service import MyData

        return MyData(context.store, cache(lambda: declared_kinds(context)))

    @book.tool(
        name=EXPORT_TOOL,
        sign_in=(),
        title="Export my data",
        description=(
            "Returns every item this server keeps for the signed-in user, across its apps (games, forms and the "
            "like), with when each was made, last changed and will expire, a page at a time (nextCursor continues "
            "it). Changes nothing."
        ),
        output=ExportOut,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Gathering your data…",
        invoked="Data gathered",
    )
    def export_my_data(args: ExportIn, call: ToolCall) -> ToolResult:
        partition = partition_of(call)
        if partition is None:
            if args.cursor is not None:
                raise InvalidCursor()  # no export gave a caller without identity a cursor
            return ToolResult(structured=ExportOut(items=[], complete=True), narration="0 items." + NOTHING_OF_YOURS)
        if call.signer is None:
            raise ToolError("Export cannot run in the background; call it directly.", code="invalid_request")
        start = None
        if args.cursor is not None:
            start = open_cursor(call.signer, partition, args.cursor)
            if not my_data().knows(start):  # sealed by this server, for an app or kind it no longer serves
                raise InvalidCursor()
        docs, resume = my_data().export(partition, start)
        items = [
            StoredItem(
                app=d.app,
                kind=d.kind,
                id=d.doc_id,
                created_at=d.created_at,
                updated_at=d.updated_at,
                expires_at=d.expires_at,
                body=d.body,
                counts=d.counts,
            )
            for d in docs
        ]
        if resume is None:
            out = ExportOut(items=items, complete=True)
            return ToolResult(structured=out, narration=f"{len(items)} items.")
        out = ExportOut(items=items, complete=False, nextCursor=seal(call.signer, partition, resume))
        return ToolResult(structured=out, narration=f"{len(items)} items. There are more: call again with nextCursor.")

    @book.tool(
        name=ERASE_TOOL,
        sign_in=(),
        title="Erase my data",
        description=(
            "Permanently deletes every item this server keeps for the signed-in user, across all its apps: games, "
            "forms and the like. It cannot be undone; another user's items are untouched."
        ),
        output=EraseOut,
        read_only=False,
        destructive=True,
        open_world=False,
        idempotent=True,
        invoking="Erasing your data…",
        invoked="Data erased",
    )
    def erase_my_data(args: NoInput, call: ToolCall) -> ToolResult:
        partition = partition_of(call)
        if partition is None:
            return ToolResult(
                structured=EraseOut(erased={}, complete=True), narration="Erased 0 items." + NOTHING_OF_YOURS
            )
        erased, complete = my_data().erase(partition)
        total = sum(erased.values())
        more = "" if complete else " More remain: call erase_my_data again."
        return ToolResult(
            structured=EraseOut(erased=erased, complete=complete), narration=f"Erased {total} items.{more}"
        )

    return book
