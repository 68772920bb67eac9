"""The Team List app's service on DynamoDB (moto, real boto3), with racing members: of checks racing from one
version exactly one lands and the others conflict, and racing adds to one list all land."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from widget_mcp.apps.team_list.repository import Items
from widget_mcp.apps.team_list.service import CheckConflict, Item, ListService
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.toolkit.spaces import Spaces, member_id

TABLE = "team_list-race"
MEMBERS = [StateOwner(f"openai:member{i}") for i in range(8)]
ADA = MEMBERS[0]


@pytest.fixture(scope="module")
def service() -> Iterator[ListService]:
    with moto_dynamodb(TABLE) as url:
        store = DynamoDbDocumentStore(client_for(url), TABLE)
        yield ListService(Spaces(store), Items(store), quota=10)


@pytest.fixture
def list_id(service: ListService) -> str:
    space = service.create_list(ADA, "Kitchen")
    for member in MEMBERS[1:]:
        service.add_member(ADA, space.space_id, member_id(member))
    return space.space_id


def racing(count: int, work: Callable[[int], Item]) -> list[Item | Exception]:
    """`work(i)` in `count` threads released together; each one's item or exception."""
    start, outcomes = threading.Barrier(count), [Exception("did not run")] * count

    def run(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = work(i)
        except Exception as exc:  # kept, to assert on
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return list(outcomes)


def test_of_members_checking_one_item_at_once_exactly_one_lands_and_the_others_conflict(
    service: ListService, list_id: str
) -> None:
    milk = service.add_item(ADA, list_id, "Oat milk", 1)
    outcomes = racing(8, lambda i: service.check(MEMBERS[i], list_id, milk.item_id, True, milk.version))
    landed = [o for o in outcomes if isinstance(o, Item)]
    assert len(landed) == 1
    assert all(isinstance(o, CheckConflict) for o in outcomes if not isinstance(o, Item)), outcomes
    assert service.items_of(ADA, list_id)[1] == landed


def test_items_added_by_members_at_once_all_land(service: ListService, list_id: str) -> None:
    outcomes = racing(8, lambda i: service.add_item(MEMBERS[i], list_id, f"Item {i}", 1))
    assert [o for o in outcomes if not isinstance(o, Item)] == []
    assert sorted(i.text for i in service.items_of(ADA, list_id)[1]) == [f"Item {i}" for i in range(8)]
