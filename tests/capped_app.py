"""A team-poll app whose arguments are capped in every way the guide asks for (a string's length, a number's
maximum, a list's length, a dict's size, an enum, a nullable argument), written with the toolkit's public API only:
tests/functional/test_argument_cap_planning.py serves it beside the registry's apps (`served_with_capped_app`) and
plans a call past each cap as the derived tests do. `loose_book` holds a tool whose object argument no schema caps,
as a user's app may declare it (the toolkit leaves objects to validators), for the tests to name what to add."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.toolkit import DISPLAY_HOST, NullMeansSomething, ToolBook, ToolCall, ToolResult

if TYPE_CHECKING:
    from widget_mcp.apps.books import AppContext

MODULE = "capped_app"

book = ToolBook()
loose_book = ToolBook()


class PollInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(max_length=200)
    options: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(min_length=2, max_length=8)
    weights: dict[str, Annotated[int, Field(ge=0, le=10)]] = Field(default_factory=dict, max_length=8)
    quorum: float = Field(default=0.5, gt=0, lt=1)
    days: int = Field(default=7, ge=1, le=30)
    kind: Literal["single", "multiple"] = "single"
    anonymous: bool = False
    tags: list[Literal["team", "lunch", "release"]] | None = Field(default=None, max_length=3)
    note: Annotated[str | None, NullMeansSomething()] = Field(default=None, max_length=100)


class PollOutput(BaseModel):
    question: str
    options: int


@book.tool(
    name="capped_create_poll",
    title="Create a poll",
    description="Opens a poll on a question with two to eight options.",
    output=PollOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Opening…",
    invoked="Opened",
    widget=DISPLAY_HOST,
)
def capped_create_poll(args: PollInput, call: ToolCall) -> ToolResult:
    return ToolResult(
        structured=PollOutput(question=args.question, options=len(args.options)),
        narration=f"Poll opened with {len(args.options)} options.",
    )


class LooseInput(BaseModel):
    settings: dict[str, Any]


@loose_book.tool(
    name="loose_configure",
    title="Configure",
    description="Takes settings of any size.",
    output=PollOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Configuring…",
    invoked="Configured",
    widget=DISPLAY_HOST,
)
def loose_configure(args: LooseInput, call: ToolCall) -> ToolResult:
    return ToolResult(structured=PollOutput(question="", options=0), narration="Configured.")


def tool_book(context: AppContext) -> ToolBook:
    return book


@pytest.fixture
def served_with_capped_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry serves this app after its own (the server builds its apps from `APPS`)."""
    from widget_mcp.apps import registry

    monkeypatch.setattr(registry, "APPS", (*registry.APPS, MODULE))
