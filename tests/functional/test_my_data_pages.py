"""`export_my_data` in pages: past one export's bounds it answers `nextCursor`, and calls with it reach every item
exactly once, on the in-memory store and on DynamoDB (moto, real boto3). A cursor is sealed to the user it was given
to: another user, an altered cursor or a made-up one get `invalid_cursor`, and nothing of anyone's."""

from __future__ import annotations

import base64
import secrets
from typing import Any

import pytest
from mcp_types import CallToolResult
from tool_results import call_as, structured
from widget_mcp.apps.books import AppContext
from widget_mcp.apps.my_data.service import BATCH
from widget_mcp.apps.my_data.tools import declared_kinds
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import Document, DocumentStore
from widget_mcp.wiring import Core, build_core

TABLE = "my-data-pages"
ITEMS = 1_200  # more than two exports' worth (BATCH each)


def owner(meta: dict[str, str]) -> str:
    return "openai:" + meta["openai/subject"]


def kinds(settings: Settings, store: DocumentStore) -> list[tuple[str, str]]:
    """Every (app, kind) the registry's apps declare they keep, in the export's order."""
    return [(app, kind) for app, ks in declared_kinds(AppContext(settings, store)).items() for kind in ks]


def fill(store: DocumentStore, who: dict[str, str], pairs: list[tuple[str, str]], count: int) -> set[tuple[str, str]]:
    """`count` small documents in `who`'s partition, spread over the declared kinds: their (kind, id)."""
    made = set()
    for n in range(count):
        _, kind = pairs[n % len(pairs)]
        store.create(owner(who), Document(kind, f"{n:06d}", {"n": n}, 1, 1, 1, 2**40))
        made.add((kind, f"{n:06d}"))
    return made


async def export(core: Core, who: dict[str, str], cursor: str | None = None) -> CallToolResult:
    return await call_as(core, "export_my_data", {"cursor": cursor} if cursor is not None else {}, who)


@pytest.fixture
def core(settings: Settings, store: DocumentStore) -> Core:
    return build_core(settings, store=store)


def user() -> dict[str, str]:
    """A user of its own (the moto table lives as long as the module)."""
    return {"openai/subject": f"v1/{secrets.token_hex(8)}"}


async def test_an_export_past_its_bound_pages_with_a_cursor_and_every_item_comes_out_exactly_once(
    core: Core, settings: Settings, store: DocumentStore
) -> None:
    alice, bob = user(), user()
    pairs = kinds(settings, store)
    made = fill(store, alice, pairs, ITEMS)
    fill(store, bob, pairs, 10)

    seen: list[tuple[str, str]] = []
    pages: list[dict[str, Any]] = []
    cursor = None
    for _ in range(ITEMS // BATCH + 2):  # bounded: a cursor that never ends fails the test
        page = structured(await export(core, alice, cursor))
        pages.append(page)
        seen += [(item["kind"], item["id"]) for item in page["items"]]
        if page["complete"]:
            break
        cursor = page["nextCursor"]

    assert [len(p["items"]) for p in pages] == [BATCH, BATCH, ITEMS - 2 * BATCH]
    assert [p["complete"] for p in pages] == [False, False, True]
    assert "nextCursor" not in pages[-1] or pages[-1]["nextCursor"] is None
    assert len(seen) == len(set(seen)) == ITEMS
    assert set(seen) == made  # the other user's ten never appear


async def test_a_cursor_given_to_one_user_is_refused_for_another_and_shows_nothing_of_the_first(
    core: Core, settings: Settings, store: DocumentStore
) -> None:
    alice, bob = user(), user()
    pairs = kinds(settings, store)
    fill(store, alice, pairs, BATCH + 5)
    fill(store, bob, pairs, BATCH + 5)
    alices = structured(await export(core, alice))["nextCursor"]

    bob = await export(core, bob, alices)

    assert bob.is_error
    assert bob.meta is not None
    assert bob.meta["error"]["code"] == "invalid_cursor"
    assert "cursor" in bob.meta["error"]["fields"]
    assert bob.structured_content is None  # no items at all, Alice's or Bob's
    assert structured(await export(core, alice, alices))["complete"] is True  # still good for Alice


def _altered(cursor: str) -> str:
    body, _, mac = cursor.partition(".")
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).replace(b'"', b"'", 1)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=") + "." + mac


@pytest.mark.parametrize(
    "forge",
    [
        _altered,  # the position changed, its seal kept
        lambda c: c.partition(".")[0] + ".",  # the seal dropped
        lambda c: "not-a-cursor",
        lambda c: c + "A",
    ],
)
async def test_a_forged_cursor_is_refused_clearly_and_nothing_is_read(
    core: Core, settings: Settings, store: DocumentStore, forge: Any
) -> None:
    alice = user()
    fill(store, alice, kinds(settings, store), BATCH + 1)
    cursor = structured(await export(core, alice))["nextCursor"]

    refused = await export(core, alice, forge(cursor))

    assert refused.is_error
    assert refused.meta is not None
    assert refused.meta["error"]["code"] == "invalid_cursor"
    assert "export_my_data without a cursor" in refused.content[0].text


async def test_a_caller_without_identity_has_no_cursor_to_give(core: Core) -> None:
    refused = await export(core, {}, "anything")

    assert refused.is_error
    assert refused.meta is not None
    assert refused.meta["error"]["code"] == "invalid_cursor"
