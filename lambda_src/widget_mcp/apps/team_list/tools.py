"""The Team List app's tools, declared only: handlers.py builds each handler on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from widget_mcp.toolkit import DISPLAY_HOST, ToolBook, ToolCall, ToolResult

if TYPE_CHECKING:
    from widget_mcp.apps.registry import AppContext
    from widget_mcp.apps.team_list.handlers import Handlers

# Declared, so the playground and the test clients make a list (and an item) first: nothing guesses ids.
LIST_ID = {"list_id": "team_list_create_list.list_id"}
ITEM_IDS = {**LIST_ID, "item_id": "team_list_add_item.item_id"}
MEMBER_IDS = {**LIST_ID, "member": "team_list_my_member_id.member_id"}


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewListInput(NoArgs):
    name: str = Field(min_length=1, max_length=60, description="What the list is for.", examples=["Office kitchen"])


class InList(NoArgs):
    list_id: str = Field(min_length=1, max_length=32, description="The list_id team_list_create_list answered.")


class MemberInput(InList):
    member: str = Field(min_length=1, max_length=220, description="The member id team_list_my_member_id answered.")


class AddItemInput(InList):
    text: str = Field(min_length=1, max_length=100, description="What to buy.", examples=["Oat milk"])
    quantity: int = Field(default=1, ge=1, le=99, description="How many.")


class CheckInput(InList):
    item_id: str = Field(min_length=1, max_length=32, description="The item_id team_list_add_item answered.")
    checked: bool = Field(default=True, description="True: bought; false: still to buy.")
    version: int = Field(
        ge=1,
        le=1_000_000,
        description="The item's version you last saw: an item changed since is not overwritten.",
        examples=[1],
    )


class MemberOutput(BaseModel):
    member_id: str


class ListOutput(BaseModel):
    list_id: str = Field(description="The list's id, which the other tools take.")
    name: str
    owner: str
    members: list[str]


class ItemOutput(BaseModel):
    item_id: str = Field(description="The item's id, which team_list_check_item takes.")
    text: str
    quantity: int
    checked: bool
    checked_by: str | None = Field(description="The member id of who checked it.")
    version: int = Field(description="Its version: pass it to team_list_check_item.")


class ItemsOutput(BaseModel):
    list_id: str
    name: str
    items: list[ItemOutput] = Field(description="The newest 100, newest first.")


def declare(context: AppContext) -> ToolBook:
    # Validated now, at start: a bad TEAM_LIST_QUOTA_LIVE_ITEMS stops the server naming it.
    quota = context.app_settings("team_list").quota_live_items
    # Every tool but the reads writes, so the warm-up keeps state: it runs on an in-memory store, never the table.
    book = ToolBook(warm_up=("team_list_create_list", {"name": "warm-up"}), warm_up_keeps_state=True)
    built: list[Handlers] = []

    def handlers() -> Handlers:
        if not built:
            from widget_mcp.apps.team_list.handlers import Handlers

            built.append(Handlers(context.store, quota=quota))
        return built[0]

    @book.tool(
        name="team_list_my_member_id",
        title="My member id",
        description="Answers the member id a list's owner adds this user by.",
        output=MemberOutput,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Looking up…",
        invoked="Found",
    )
    def team_list_my_member_id(args: NoArgs, call: ToolCall) -> ToolResult:
        return handlers().my_member_id(call)

    @book.tool(
        name="team_list_create_list",
        title="Create a shopping list",
        description="Starts a shopping list the user owns and can share with named users.",
        output=ListOutput,
        read_only=False,
        destructive=False,
        open_world=False,
        invoking="Creating the list…",
        invoked="List created",
    )
    def team_list_create_list(args: NewListInput, call: ToolCall) -> ToolResult:
        return handlers().create_list(args, call)

    @book.tool(
        name="team_list_add_member",
        title="Share a shopping list",
        description="Lets a user into a list the caller owns, by the member id team_list_my_member_id gave that user.",
        output=ListOutput,
        read_only=False,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Sharing…",
        invoked="Shared",
        ids=MEMBER_IDS,
    )
    def team_list_add_member(args: MemberInput, call: ToolCall) -> ToolResult:
        return handlers().add_member(args, call)

    @book.tool(
        name="team_list_remove_member",
        title="Unshare a shopping list",
        description="Takes a user out of a list: its owner removes anyone, a member itself.",
        output=ListOutput,
        read_only=False,
        destructive=True,
        open_world=False,
        idempotent=True,
        invoking="Removing…",
        invoked="Removed",
        ids=MEMBER_IDS,
    )
    def team_list_remove_member(args: MemberInput, call: ToolCall) -> ToolResult:
        return handlers().remove_member(args, call)

    @book.tool(
        name="team_list_add_item",
        title="Add an item",
        description="Adds an item to buy to a shopping list the user owns or was added to.",
        output=ItemOutput,
        read_only=False,
        destructive=False,
        open_world=False,
        invoking="Adding…",
        invoked="Added",
        widget=DISPLAY_HOST,
        ids=LIST_ID,
    )
    def team_list_add_item(args: AddItemInput, call: ToolCall) -> ToolResult:
        return handlers().add_item(args, call)

    @book.tool(
        name="team_list_check_item",
        title="Check off an item",
        description="Marks an item bought (or not), unless it changed since the version given (then says so).",
        output=ItemOutput,
        read_only=False,
        destructive=False,
        open_world=False,
        invoking="Checking…",
        invoked="Checked",
        widget=DISPLAY_HOST,
        ids=ITEM_IDS,
    )
    def team_list_check_item(args: CheckInput, call: ToolCall) -> ToolResult:
        return handlers().check(args, call)

    @book.tool(
        name="team_list_items",
        title="Show a shopping list",
        description="Shows a list's items, newest first, with who checked what. Changes nothing.",
        output=ItemsOutput,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Fetching the list…",
        invoked="List shown",
        widget=DISPLAY_HOST,
        ids=LIST_ID,
    )
    def team_list_items(args: InList, call: ToolCall) -> ToolResult:
        return handlers().items(args, call)

    return book
