"""Whose state a call reaches: users by their principal key, callers without identity by capability ids."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.errors import IdentityRequired
from widget_mcp.toolkit.ownership import (
    CAPABILITY_ID_LENGTH,
    AnonymousState,
    StateOwner,
    capability_id,
    state_owner,
)
from widget_mcp.toolkit.principal import ANONYMOUS, Principal
from widget_mcp.toolkit.runtime import TemplateSettings, ToolRuntime
from widget_mcp.toolkit.tools import SignInDeclaration

TEMPLATES = TemplateSettings(base_url="https://cdn.example.com/w", origin="https://cdn.example.com")


def test_a_capability_id_is_24_url_safe_characters_carrying_144_random_bits() -> None:
    ids = {capability_id() for _ in range(2_000)}

    assert len(ids) == 2_000
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{24}", i) for i in ids)
    assert CAPABILITY_ID_LENGTH == 24  # 18 bytes in base64url: 144 bits, above the 128 the contract asks
    assert set("".join(ids)) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_an_identified_owner_keeps_every_document_in_its_own_partition_and_may_list() -> None:
    owner = state_owner(Principal("openai", "alice"), "capability", "Games")

    assert owner == StateOwner("openai:alice")
    assert {owner.partition("g1"), owner.partition("g2")} == {"openai:alice"}
    assert (owner.can_list, owner.by_capability) == (True, False)


def test_a_caller_without_identity_reaches_each_document_through_the_partition_its_id_names() -> None:
    owner = state_owner(ANONYMOUS, "capability", "Games")

    assert owner.partition("g1") == "capability:g1"
    assert owner.partition("g2") == "capability:g2"
    assert (owner.can_list, owner.by_capability) == (False, True)


@pytest.mark.parametrize("source", ["oauth", "openai", "host"])
def test_no_principal_key_can_name_a_capability_partition(source: Any) -> None:
    # A subject is free text from the host; its key is prefixed by its source, never by "capability".
    key = Principal(source, "capability:g1").key
    assert key != StateOwner(None).partition("g1")
    assert not key.startswith("capability:")


def test_with_anonymous_state_refused_a_caller_without_identity_is_asked_to_identify() -> None:
    with pytest.raises(IdentityRequired, match=r"^Forms are kept per user"):
        state_owner(ANONYMOUS, "refuse", "Forms")
    assert state_owner(Principal("host", "u1"), "refuse", "Forms") == StateOwner("host:u1")


class Empty(BaseModel):
    pass


class Owner(BaseModel):
    partition: str


book = ToolBook()


@book.tool(
    name="whose",
    title="Whose",
    description="Reports the partition of document d1 for this caller.",
    output=Owner,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Looking…",
    invoked="Found",
)
def whose(args: Empty, call: ToolCall) -> ToolResult:
    return ToolResult(structured=Owner(partition=call.owner("Things").partition("d1")), narration="found")


def runtime(anonymous_state: AnonymousState, sign_in: SignInDeclaration | None = None) -> ToolRuntime:
    return ToolRuntime([book], TEMPLATES, BundleManifest(), sign_in=sign_in, anonymous_state=anonymous_state)


async def test_the_runtime_hands_tools_the_anonymous_state_setting() -> None:
    allowed = await runtime("capability").call("whose", {}, None)
    refused = await runtime("refuse").call("whose", {}, None)

    assert allowed["structuredContent"] == {"partition": "capability:d1"}
    assert refused["_meta"]["error"]["code"] == "identity_required"


async def test_with_sign_in_on_a_call_without_a_verified_subject_owns_nothing_whatever_the_setting() -> None:
    signed = runtime("capability", SignInDeclaration())

    unverified = await signed.call("whose", {}, {"openai/subject": "alice"})
    verified = await signed.call("whose", {}, None, subject="user-7")

    assert unverified["_meta"]["error"]["code"] == "identity_required"
    assert verified["structuredContent"] == {"partition": "oauth:user-7"}
