"""Spaces (toolkit/spaces.py), on the in-memory store and on DynamoDB (moto, real boto3), behind the one port: members
reach the space's shared documents; a stranger, a removed member, a caller without identity and a made-up id are all
`space_not_found`, and nothing of one space is reachable through another."""

from __future__ import annotations

import secrets

import pytest
from widget_mcp.apps.my_data.service import MyData
from widget_mcp.storage.documents import Document, DocumentStore
from widget_mcp.toolkit.errors import IdentityRequired, QuotaExceeded
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.toolkit.spaces import (
    MAX_MEMBERS,
    InvalidMember,
    NotSpaceOwner,
    SpaceFull,
    SpaceNotFound,
    Spaces,
    member_id,
)

TABLE = "spaces-state"
ALICE, BOB, CAROL = StateOwner("openai:alice"), StateOwner("oauth:bob"), StateOwner("openai:carol")
NOBODY = StateOwner(None, "203.0.113.9")


@pytest.fixture
def spaces(store: DocumentStore) -> Spaces:
    return Spaces(store)


def note(doc_id: str, text: str) -> Document:
    return Document("note", doc_id, {"text": text}, 1, 1_000, 1_000, 2**40)


def test_a_member_writes_into_the_space_and_the_owner_reads_it(spaces: Spaces, store: DocumentStore) -> None:
    space = spaces.create(ALICE, "Team")
    spaces.add_member(ALICE, space.space_id, member_id(BOB))

    as_bob = spaces.enter(BOB, space.space_id)
    store.create(as_bob.partition("n1"), note("n1", "from Bob"))
    as_alice = spaces.enter(ALICE, space.space_id)

    assert store.get(as_alice.partition("n1"), "note", "n1") == note("n1", "from Bob")
    assert as_alice.partition("n1") == as_bob.partition("anything") == space.partition
    assert store.get(ALICE.partition("n1"), "note", "n1") is None  # not in anyone's own partition


@pytest.mark.parametrize("caller", [CAROL, NOBODY], ids=["stranger", "no identity"])
def test_a_stranger_and_a_caller_without_identity_are_refused_like_a_made_up_id(
    spaces: Spaces, caller: StateOwner
) -> None:
    space = spaces.create(ALICE, "Team")

    with pytest.raises(SpaceNotFound) as refused:
        spaces.enter(caller, space.space_id)
    with pytest.raises(SpaceNotFound) as made_up:
        spaces.enter(ALICE, "x" * len(space.space_id))

    assert refused.value.code == made_up.value.code == "space_not_found"
    assert str(refused.value).replace(space.space_id, "ID") == str(made_up.value).replace("x" * 24, "ID")


def test_a_removed_member_is_refused_from_the_next_call_on(spaces: Spaces) -> None:
    space = spaces.create(ALICE, "Team")
    spaces.add_member(ALICE, space.space_id, member_id(BOB))
    spaces.enter(BOB, space.space_id)

    spaces.remove_member(ALICE, space.space_id, member_id(BOB))

    with pytest.raises(SpaceNotFound):
        spaces.enter(BOB, space.space_id)
    with pytest.raises(SpaceNotFound):
        spaces.add_member(BOB, space.space_id, member_id(BOB))


def test_nothing_of_one_space_is_reachable_through_another(spaces: Spaces, store: DocumentStore) -> None:
    ours = spaces.create(ALICE, "Ours")
    theirs = spaces.create(CAROL, "Theirs")
    store.create(spaces.enter(ALICE, ours.space_id).partition("n1"), note("n1", "ours"))

    in_theirs = spaces.enter(CAROL, theirs.space_id)

    assert store.get(in_theirs.partition("n1"), "note", "n1") is None
    assert store.every(in_theirs.partition(""), "note", 10) == []
    with pytest.raises(SpaceNotFound):
        spaces.enter(CAROL, ours.space_id)


def test_only_the_owner_adds_or_removes_others_and_a_member_may_leave(spaces: Spaces) -> None:
    space = spaces.create(ALICE, "Team")
    spaces.add_member(ALICE, space.space_id, member_id(BOB))
    spaces.add_member(ALICE, space.space_id, member_id(CAROL))

    with pytest.raises(NotSpaceOwner):
        spaces.add_member(BOB, space.space_id, "openai:dave")
    with pytest.raises(NotSpaceOwner):
        spaces.remove_member(BOB, space.space_id, member_id(CAROL))
    left = spaces.remove_member(BOB, space.space_id, member_id(BOB))

    assert left.members == (member_id(CAROL),)


def test_bad_member_ids_a_full_space_and_callers_without_identity_get_clear_errors(
    spaces: Spaces, store: DocumentStore
) -> None:
    space = spaces.create(ALICE, "Team")
    for bad in ("anonymous:-", "alice", "capability:abc", "openai:" + "x" * 201):
        with pytest.raises(InvalidMember):
            spaces.add_member(ALICE, space.space_id, bad)
    for n in range(MAX_MEMBERS):
        spaces.add_member(ALICE, space.space_id, f"openai:m{n}")
    with pytest.raises(SpaceFull):
        spaces.add_member(ALICE, space.space_id, "openai:one-more")
    with pytest.raises(IdentityRequired):
        spaces.create(NOBODY, "Team")
    limited = Spaces(store, quota=1)
    limited.create(BOB, "one")
    with pytest.raises(QuotaExceeded):
        limited.create(BOB, "two")
    assert len(spaces.get(ALICE, space.space_id).members) == MAX_MEMBERS


def someone() -> StateOwner:
    """A user of this test alone (the moto table lives as long as the module)."""
    return StateOwner(f"openai:{secrets.token_hex(8)}")


def erase(store: DocumentStore, who: StateOwner, batches: int = 1) -> list[tuple[dict[str, int], bool]]:
    """`erase_my_data`'s service for `who`, called until complete (at most `batches` times)."""
    assert who.user_key is not None
    my_data = MyData(store, lambda: {"notes": ("note",)})
    calls = [my_data.erase(who.user_key)]
    while not calls[-1][1] and len(calls) < batches:
        calls.append(my_data.erase(who.user_key))
    return calls


def test_erasing_an_owner_deletes_its_spaces_with_their_documents_and_members_keep_their_own(
    spaces: Spaces, store: DocumentStore
) -> None:
    owner, member = someone(), someone()
    space = spaces.create(owner, "Team")
    spaces.add_member(owner, space.space_id, member_id(member))
    store.create(spaces.enter(member, space.space_id).partition("n1"), note("n1", "shared"))
    store.create(member.partition("own"), note("own", "the member's own"))

    [(erased, complete)] = erase(store, owner)

    assert complete is True
    assert erased == {"note": 1, "space": 1, "space_membership": 1}
    assert store.every(space.partition, "note", 10) == []
    assert store.get(space.partition, "space", space.space_id) is None
    with pytest.raises(SpaceNotFound):
        spaces.enter(member, space.space_id)
    assert store.get(member.partition("own"), "note", "own") == note("own", "the member's own")
    assert spaces.create(owner, "Again").owner == owner.user_key  # its quota place was given back too


def test_erasing_a_member_takes_it_out_of_others_spaces_and_leaves_the_space_and_the_others(
    spaces: Spaces, store: DocumentStore
) -> None:
    owner, member, other = someone(), someone(), someone()
    space = spaces.create(owner, "Team")
    for who in (member, other):
        spaces.add_member(owner, space.space_id, member_id(who))
    store.create(spaces.enter(member, space.space_id).partition("n1"), note("n1", "by the member"))

    [(erased, complete)] = erase(store, member)

    assert (erased, complete) == ({"space_membership": 1}, True)
    assert spaces.get(owner, space.space_id).members == (other.user_key,)
    with pytest.raises(SpaceNotFound):
        spaces.enter(member, space.space_id)
    assert spaces.enter(other, space.space_id).partition("") == space.partition
    assert store.get(space.partition, "note", "n1") == note("n1", "by the member")  # the group's, not the member's


def test_an_owners_erasure_past_one_calls_bound_says_so_and_the_next_call_finishes_it(
    spaces: Spaces, store: DocumentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("widget_mcp.apps.my_data.service.ERASE_BATCH", 3)
    owner = someone()
    space = spaces.create(owner, "Team")
    for n in range(5):
        store.create(space.partition, note(f"n{n}", "shared"))

    calls = erase(store, owner, batches=5)

    assert [complete for _, complete in calls] == [False, False, True]
    assert [sum(erased.values()) for erased, _ in calls] == [3, 3, 1]
    assert store.every(space.partition, "note", 10) == []
    assert store.every(owner.user_key or "", "space_membership", 10) == []


def test_the_export_lists_the_spaces_a_user_owns_and_belongs_to(spaces: Spaces, store: DocumentStore) -> None:
    owner, member = someone(), someone()
    mine = spaces.create(owner, "Mine")
    theirs = spaces.create(member, "Theirs")
    spaces.add_member(member, theirs.space_id, member_id(owner))
    left = spaces.create(member, "Left")
    spaces.add_member(member, left.space_id, member_id(owner))
    spaces.remove_member(owner, left.space_id, member_id(owner))
    assert owner.user_key is not None

    items, _ = MyData(store, dict).export(owner.user_key)

    listed = {(i.app, i.doc_id): i.body for i in items}
    assert listed == {
        ("spaces", mine.space_id): {"role": "owner", "name": "Mine"},
        ("spaces", theirs.space_id): {"role": "member", "name": "Theirs"},
    }
