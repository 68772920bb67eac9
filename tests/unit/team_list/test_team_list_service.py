"""The Team List app's service on the in-memory store (the same contract as DynamoDB's): a list shared by its
members and no one else, version-checked checks, a quota of live items per member."""

from __future__ import annotations

import pytest
from widget_mcp.apps.team_list.repository import Items
from widget_mcp.apps.team_list.service import CheckConflict, EmptyItem, ItemNotFound, ListService
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import QuotaExceeded
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.toolkit.spaces import SpaceNotFound, Spaces, member_id

ADA, BOB, CAROL = StateOwner("openai:ada"), StateOwner("openai:bob"), StateOwner("openai:carol")
ANONYMOUS = StateOwner(None)


@pytest.fixture
def service() -> ListService:
    store = InMemoryDocumentStore()
    return ListService(Spaces(store), Items(store), quota=2, clock=lambda: 1_800_000_000)


def shared_list(service: ListService) -> str:
    space = service.create_list(ADA, "Kitchen")
    service.add_member(ADA, space.space_id, member_id(BOB))
    return space.space_id


def test_what_one_member_adds_the_others_see_and_check(service: ListService) -> None:
    list_id = shared_list(service)
    milk = service.add_item(BOB, list_id, "  Oat   milk ", 2)
    checked = service.check(ADA, list_id, milk.item_id, True, milk.version)
    _, seen_by_bob = service.items_of(BOB, list_id)
    assert (milk.text, milk.quantity, milk.checked) == ("Oat milk", 2, False)
    assert (checked.checked, checked.checked_by, checked.version) == (True, member_id(ADA), 2)
    assert seen_by_bob == [checked]


@pytest.mark.parametrize("stranger", [CAROL, ANONYMOUS], ids=["another user", "a caller without identity"])
def test_a_stranger_cannot_read_add_to_or_check_a_list_and_learns_nothing_of_it(
    service: ListService, stranger: StateOwner
) -> None:
    list_id = shared_list(service)
    milk = service.add_item(ADA, list_id, "Oat milk", 1)
    with pytest.raises(SpaceNotFound):
        service.items_of(stranger, list_id)
    with pytest.raises(SpaceNotFound):
        service.add_item(stranger, list_id, "Crisps", 1)
    with pytest.raises(SpaceNotFound):
        service.check(stranger, list_id, milk.item_id, True, milk.version)
    with pytest.raises(SpaceNotFound):  # the same answer as for a list that never existed
        service.items_of(stranger, "no-such-list")
    assert service.items_of(ADA, list_id)[1] == [milk]


def test_a_removed_member_is_refused_from_the_next_call_on(service: ListService) -> None:
    list_id = shared_list(service)
    service.add_item(BOB, list_id, "Oat milk", 1)
    service.remove_member(ADA, list_id, member_id(BOB))
    with pytest.raises(SpaceNotFound):
        service.items_of(BOB, list_id)


def test_an_item_of_another_list_is_not_found_in_this_one(service: ListService) -> None:
    kitchen, garage = shared_list(service), service.create_list(ADA, "Garage").space_id
    oil = service.add_item(ADA, garage, "Motor oil", 1)
    with pytest.raises(ItemNotFound):
        service.check(ADA, kitchen, oil.item_id, True, oil.version)
    assert service.items_of(ADA, kitchen)[1] == []


def test_a_check_over_a_stale_version_is_a_conflict_carrying_the_current_item_and_writes_nothing(
    service: ListService,
) -> None:
    list_id = shared_list(service)
    milk = service.add_item(ADA, list_id, "Oat milk", 1)
    bought = service.check(BOB, list_id, milk.item_id, True, milk.version)
    with pytest.raises(CheckConflict) as caught:
        service.check(ADA, list_id, milk.item_id, False, milk.version)
    assert caught.value.details == {"version": 2, "checked": True}
    assert service.items_of(ADA, list_id)[1] == [bought]


def test_past_the_quota_of_live_items_an_add_is_refused_and_nothing_written(service: ListService) -> None:
    list_id = shared_list(service)
    service.add_item(ADA, list_id, "Oat milk", 1)
    service.add_item(ADA, list_id, "Bread", 1)
    with pytest.raises(QuotaExceeded):
        service.add_item(ADA, list_id, "Crisps", 1)
    service.add_item(BOB, list_id, "Crisps", 1)  # the quota is each member's own
    assert sorted(i.text for i in service.items_of(ADA, list_id)[1]) == ["Bread", "Crisps", "Oat milk"]


def test_an_item_of_only_spaces_is_refused(service: ListService) -> None:
    with pytest.raises(EmptyItem):
        service.add_item(ADA, shared_list(service), "   ", 1)
