"""The Team List app's rules, with no I/O of their own: a list is a space, its items are the space's documents, and a
check over a stale version is a conflict, never a silent overwrite."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from widget_mcp.apps.team_list.repository import Items
from widget_mcp.storage.documents import Document, VersionConflict, time_ordered_id
from widget_mcp.toolkit import ToolError
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.toolkit.spaces import Space, Spaces, member_id


class ItemNotFound(ToolError):
    """Also an item of another list: answered exactly like an id that never existed."""

    code = "item_not_found"

    def __init__(self, item_id: str) -> None:
        super().__init__(f"The list has no item {item_id}. Check the id, or see them all with team_list_items.")


class CheckConflict(ToolError):
    """The item changed since the version the caller saw; nothing was written."""

    code = "conflict"

    def __init__(self, seen: int, current: Document) -> None:
        state = "checked" if current.body["checked"] else "not checked"
        super().__init__(
            f"The item changed since version {seen}: it is at version {current.version} now and {state}. "
            f"Nothing was overwritten; check it again with version {current.version}.",
            details={"version": current.version, "checked": current.body["checked"]},
        )


class EmptyItem(ToolError):
    code = "empty_item"

    def __init__(self) -> None:
        super().__init__("The item is empty: name what to buy.")


@dataclass(frozen=True)
class Item:
    item_id: str
    text: str
    quantity: int
    checked: bool
    checked_by: str | None
    version: int


def item_of(doc: Document) -> Item:
    body = doc.body
    return Item(doc.doc_id, body["text"], body["quantity"], body["checked"], body.get("checked_by"), doc.version)


class ListService:
    def __init__(self, spaces: Spaces, items: Items, *, quota: int, clock: Callable[[], float] = time.time) -> None:
        self.spaces, self.items, self.quota, self.clock = spaces, items, quota, clock

    def create_list(self, caller: StateOwner, name: str) -> Space:
        return self.spaces.create(caller, name)

    def add_member(self, caller: StateOwner, list_id: str, member: str) -> Space:
        return self.spaces.add_member(caller, list_id, member)

    def remove_member(self, caller: StateOwner, list_id: str, member: str) -> Space:
        return self.spaces.remove_member(caller, list_id, member)

    def add_item(self, caller: StateOwner, list_id: str, text: str, quantity: int) -> Item:
        tidied = " ".join(text.split())
        if not tidied:
            raise EmptyItem
        owner = self.spaces.enter(caller, list_id)  # space_not_found for anyone not in it
        clock = self.clock()
        item_id = time_ordered_id(int(clock * 1000))  # sorts by creation, to the millisecond
        body: dict[str, object] = {"text": tidied, "quantity": quantity, "checked": False}
        return item_of(self.items.create(owner, item_id, body, now=int(clock), quota=self.quota))

    def items_of(self, caller: StateOwner, list_id: str) -> tuple[Space, list[Item]]:
        space = self.spaces.get(caller, list_id)
        owner = self.spaces.enter(caller, list_id)
        return space, [item_of(doc) for doc in self.items.newest(owner, list_id)]

    def check(self, caller: StateOwner, list_id: str, item_id: str, checked: bool, version: int) -> Item:
        """Writes only over the version the caller saw: two members checking one item at once cannot both think
        they bought it; the later one learns who did (the conflict carries the item as it is now)."""
        owner = self.spaces.enter(caller, list_id)
        doc = self.items.get(owner, item_id)
        if doc is None:
            raise ItemNotFound(item_id)
        if doc.version != version:
            raise CheckConflict(version, doc)
        by = member_id(caller) if checked else None
        body = {**doc.body, "checked": checked, "checked_by": by}
        try:
            return item_of(self.items.replace(owner, doc, body, now=int(self.clock())))
        except VersionConflict as exc:
            if exc.current is None:
                raise ItemNotFound(item_id) from exc
            raise CheckConflict(version, exc.current) from exc
