"""An app's own settings (`context.app_settings`): read from `<APP>_<FIELD>` variables, validated when the app's
book is built; its live-items quota enforced when the owner creates a document (`StateOwner.create`)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from pydantic import Field
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.settings import Settings, SettingsError
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import AppSettings, QuotaExceeded, TooLarge, ToolBook
from widget_mcp.toolkit.app_settings import QUOTA_LIVE_ITEMS_DEFAULT
from widget_mcp.toolkit.ownership import StateOwner

NOW = 1_800_000_000


class PollSettings(AppSettings):
    max_options: int = Field(default=8, ge=2, le=20)


@pytest.fixture
def context() -> AppContext:
    return AppContext(Settings(), InMemoryDocumentStore(max_item_bytes=64 * 1024, clock=lambda: NOW))


def test_an_app_without_its_variables_gets_the_defaults(context: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEAM_POLL_QUOTA_LIVE_ITEMS", raising=False)
    assert context.app_settings("team_poll").quota_live_items == QUOTA_LIVE_ITEMS_DEFAULT


def test_an_apps_settings_are_read_from_its_own_variables_in_any_letter_case(
    context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("team_poll_quota_live_items", "3")
    monkeypatch.setenv("TEAM_POLL_MAX_OPTIONS", "12")
    monkeypatch.setenv("OTHER_APP_QUOTA_LIVE_ITEMS", "7")
    settings = context.app_settings("team_poll", PollSettings)
    assert (settings.quota_live_items, settings.max_options) == (3, 12)
    assert context.app_settings("other_app").quota_live_items == 7


@pytest.fixture
def fake_app(context: AppContext) -> Iterator[types.ModuleType]:
    module = types.ModuleType("fake_poll_app")

    def tool_book(context: AppContext) -> ToolBook:
        context.app_settings("fake_poll", PollSettings)
        return ToolBook()

    module.tool_book = tool_book  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("FAKE_POLL_QUOTA_LIVE_ITEMS", "0", "FAKE_POLL_QUOTA_LIVE_ITEMS: Input should be greater than or equal to 1"),
        ("FAKE_POLL_QUOTA_LIVE_ITEMS", "many", "FAKE_POLL_QUOTA_LIVE_ITEMS: Input should be a valid integer"),
        ("FAKE_POLL_MAX_OPTIONS", "99", "FAKE_POLL_MAX_OPTIONS: Input should be less than or equal to 20"),
    ],
)
def test_a_bad_value_stops_the_app_being_built_naming_the_variable(
    context: AppContext,
    fake_app: types.ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    problem: str,
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=problem):
        load_books(context, (fake_app.__name__,))


def poll(doc_id: str, body: dict[str, object] | None = None) -> Document:
    return Document("poll", doc_id, body or {"question": "Lunch?"}, 1, NOW, NOW, NOW + 86_400)


def test_past_the_quota_an_owners_create_is_quota_exceeded_and_writes_nothing(context: AppContext) -> None:
    owner, other = StateOwner("openai:ada"), StateOwner("openai:bob")
    for number in range(2):
        stored = owner.create(context.store, poll(f"p{number}"), quota=2, what="live polls")
        assert stored.quota_holder == "openai:ada"
    with pytest.raises(QuotaExceeded) as refused:
        owner.create(context.store, poll("p2"), quota=2, what="live polls", ending="Closing one of them")
    assert refused.value.code == "quota_exceeded"
    assert "You already keep 2 live polls" in str(refused.value)
    assert "Closing one of them frees its place" in str(refused.value)
    assert context.store.get("openai:ada", "poll", "p2") is None
    assert other.create(context.store, poll("p2"), quota=2, what="live polls").doc_id == "p2"  # per owner


def test_callers_without_identity_share_their_addresses_quota_across_capability_ids(context: AppContext) -> None:
    first, second = StateOwner(None, "198.51.100.7"), StateOwner(None, "198.51.100.7")
    first.create(context.store, poll("capabilityA"), quota=1, what="live polls")
    with pytest.raises(QuotaExceeded):
        second.create(context.store, poll("capabilityB"), quota=1, what="live polls")
    assert context.store.get(first.partition("capabilityA"), "poll", "capabilityA") is not None


def test_a_document_past_the_item_budget_is_too_large_and_writes_nothing(context: AppContext) -> None:
    owner = StateOwner("openai:ada")
    with pytest.raises(TooLarge) as refused:
        owner.create(context.store, poll("big", {"text": "x" * 70_000}), quota=5, what="live polls")
    assert refused.value.code == "too_large"
    assert context.store.get("openai:ada", "poll", "big") is None
