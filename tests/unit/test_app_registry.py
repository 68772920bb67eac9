"""The app registry: one list of app packages, each building its own tool book."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.registry import APPS, RegistryError
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.argument_rules import uncapped_arguments
from widget_mcp.toolkit.errors import DeclarationError

CONTEXT = AppContext(Settings(), InMemoryDocumentStore())


@pytest.fixture
def fake_app() -> Iterator[types.ModuleType]:
    module = types.ModuleType("fake_weather_app")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


# The apps this project ships, with the first tool each declares. Apps added after them (`make app`) may follow.
REFERENCE_APPS = {
    "widget_mcp.apps.demo": "display_demo",
    "widget_mcp.apps.chess": "chess_new_game",
    "widget_mcp.apps.forms": "ask_question",
}


def test_the_reference_apps_come_first_and_every_app_is_served_in_registry_order() -> None:
    books = load_books(CONTEXT)
    assert APPS[: len(REFERENCE_APPS)] == tuple(REFERENCE_APPS)
    assert len(books) == len(APPS)
    assert [next(iter(book.tools)) for book in books[: len(REFERENCE_APPS)]] == list(REFERENCE_APPS.values())
    # Each entry's tools are its own package's, in the order listed.
    assert [list(load_books(CONTEXT, (entry,))[0].tools) for entry in APPS] == [list(book.tools) for book in books]


def test_an_app_is_served_by_naming_its_package(fake_app: types.ModuleType) -> None:
    book = ToolBook()
    fake_app.tool_book = lambda context: book  # type: ignore[attr-defined]
    assert load_books(CONTEXT, ("fake_weather_app",)) == [book]


def test_a_misspelled_app_names_the_entry_and_where_to_fix_it() -> None:
    with pytest.raises(RegistryError, match=r"app 'widget_mcp.apps.chesss': no such package on the path; check"):
        load_books(CONTEXT, ("widget_mcp.apps.chesss",))


def test_a_package_without_tool_book_says_what_it_must_define(fake_app: types.ModuleType) -> None:
    with pytest.raises(RegistryError, match=r"must define tool_book\(context: AppContext\)"):
        load_books(CONTEXT, ("fake_weather_app",))


class Uncapped(BaseModel):
    city: str
    days: int | None = None
    tags: list[str] = Field(default_factory=list, max_length=3)


class Out(BaseModel):
    ok: bool


def test_a_tool_with_an_uncapped_string_or_number_fails_to_declare_naming_each_argument() -> None:
    book = ToolBook()
    with pytest.raises(DeclarationError) as caught:

        @book.tool(
            name="forecast",
            title="Forecast",
            description="Tells the weather.",
            output=Out,
            read_only=True,
            destructive=False,
            open_world=True,
            invoking="Looking…",
            invoked="Looked",
        )
        def forecast(args: Uncapped, call: ToolCall) -> ToolResult:
            raise AssertionError("never called")

    assert str(caught.value) == (
        "forecast: argument 'city' is a string without a length cap: give it max_length=…; "
        "argument 'days' is a number without a maximum: give it le=…"
    )


def test_enums_and_capped_values_count_as_capped() -> None:
    schema = {
        "properties": {
            "a": {"type": "string", "enum": ["x"]},
            "b": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]},
            "c": {"type": "integer", "maximum": 9},
            "d": {"type": "array", "maxItems": 2},
            "e": {"type": "object"},
            "f": {"type": "array"},
        }
    }
    assert uncapped_arguments(schema) == [("f", "is a list without a length cap: give it max_length=…")]
