"""Spaces (toolkit/spaces.py), on the in-memory store and on DynamoDB (moto, real boto3), behind the one port: members
reach the space's shared documents; a stranger, a removed member, a caller without identity and a made-up id are all
`space_not_found`, and nothing of one space is reachable through another."""

from __future__ import annotations

import pytest
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
