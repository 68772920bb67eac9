"""The Team List app's handlers: take the caller's owner, call the service, shape the result."""

from __future__ import annotations

from widget_mcp.apps.team_list.repository import Items
from widget_mcp.apps.team_list.service import Item, ListService
from widget_mcp.apps.team_list.tools import (
    AddItemInput,
    CheckInput,
    InList,
    ItemOutput,
    ItemsOutput,
    ListOutput,
    MemberInput,
    MemberOutput,
    NewListInput,
)
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.toolkit import ToolCall, ToolResult
from widget_mcp.toolkit.spaces import Space, Spaces, member_id

WHAT = "Shopping lists"  # names the state in an identity_required error


class Handlers:
    def __init__(self, store: DocumentStore, *, quota: int) -> None:
        self.service = ListService(Spaces(store), Items(store), quota=quota)

    def my_member_id(self, call: ToolCall) -> ToolResult:
        mine = member_id(call.owner(WHAT))
        return ToolResult(structured=MemberOutput(member_id=mine), narration=f"Your member id is {mine}.")

    def create_list(self, args: NewListInput, call: ToolCall) -> ToolResult:
        space = self.service.create_list(call.owner(WHAT), args.name)
        return ToolResult(structured=list_out(space), narration=f"Created the list {space.space_id}.")

    def add_member(self, args: MemberInput, call: ToolCall) -> ToolResult:
        space = self.service.add_member(call.owner(WHAT), args.list_id, args.member)
        return ToolResult(structured=list_out(space), narration=f"The list has {len(space.members)} members.")

    def remove_member(self, args: MemberInput, call: ToolCall) -> ToolResult:
        space = self.service.remove_member(call.owner(WHAT), args.list_id, args.member)
        return ToolResult(structured=list_out(space), narration=f"The list has {len(space.members)} members.")

    def add_item(self, args: AddItemInput, call: ToolCall) -> ToolResult:
        item = self.service.add_item(call.owner(WHAT), args.list_id, args.text, args.quantity)
        return shown(call, item, "Added")

    def check(self, args: CheckInput, call: ToolCall) -> ToolResult:
        item = self.service.check(call.owner(WHAT), args.list_id, args.item_id, args.checked, args.version)
        return shown(call, item, "Checked" if item.checked else "Unchecked")

    def items(self, args: InList, call: ToolCall) -> ToolResult:
        space, items = self.service.items_of(call.owner(WHAT), args.list_id)
        rows = [[("✓ " if i.checked else "") + i.text, str(i.quantity)] for i in items]
        left = sum(not i.checked for i in items)
        call.emit("table", {"rows": rows}, fallback="\n".join(" × ".join(row) for row in rows) or "(empty)")
        out = ItemsOutput(list_id=space.space_id, name=space.name, items=[item_out(i) for i in items])
        return ToolResult(structured=out, narration=f"{space.name}: {len(items)} items, {left} still to buy.")


def list_out(space: Space) -> ListOutput:
    return ListOutput(list_id=space.space_id, name=space.name, owner=space.owner, members=list(space.members))


def item_out(item: Item) -> ItemOutput:
    return ItemOutput(
        item_id=item.item_id,
        text=item.text,
        quantity=item.quantity,
        checked=item.checked,
        checked_by=item.checked_by,
        version=item.version,
    )


def shown(call: ToolCall, item: Item, what: str) -> ToolResult:
    line = f"{item.quantity} × {item.text}" + (" (bought)" if item.checked else "")
    call.emit("text", {"text": line}, fallback=line)  # a display widget; its fallback is also in `content`
    return ToolResult(structured=item_out(item), narration=f"{what}: {line} (version {item.version}).")
