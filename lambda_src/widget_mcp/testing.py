"""What a project's tests build on: the official MCP client, connected in memory to the server its apps make.

    from widget_mcp.testing import memory_client

    async def test_the_note_is_tidied() -> None:
        async with memory_client() as client:
            result = await client.call_tool("weather_note", {"text": " Rain  later"})
        assert result.structured_content == {"note": "Rain later", "words": 2}

The server is built as the Lambda handler and `make dev` build theirs (the same settings, the same apps: the
registry, or `WIDGET_MCP_APPS`), with state in the in-memory store, which is tested against the same contract as the
DynamoDB adapter. Part of the public API, like `widget_mcp.__all__`.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcp import Client

    from widget_mcp.storage.documents import DocumentStore

__all__ = ["memory_client"]

# A host the tests' settings allow; an in-memory connection sends no Host header, but Settings requires a list.
TEST_HOSTS = ("localhost:*", "127.0.0.1:*")


def memory_client(
    *,
    store: DocumentStore | None = None,
    mode: Literal["legacy", "auto"] = "legacy",
    **settings: Any,
) -> Client:
    """A client of a server built from the environment's settings, overridden by `settings` (the `Settings` fields,
    e.g. `anonymous_state="refuse"`), with its state in `store` (a fresh `InMemoryDocumentStore` by default).

    `mode="legacy"` speaks the 2025-11-25 handshake, `"auto"` the newest protocol both sides know. Use it as
    `async with memory_client() as client:`; each client is a server of its own, so tests share nothing."""
    from mcp import Client

    from widget_mcp.server import build_server
    from widget_mcp.settings import Settings
    from widget_mcp.storage.memory import InMemoryDocumentStore
    from widget_mcp.wiring import build_core

    unknown = sorted(set(settings) - set(Settings.model_fields))
    if unknown:
        raise TypeError(f"memory_client: {', '.join(unknown)} is no setting (the Settings fields are its keywords)")
    # Nothing here touches the process's environment: other tests in the same process read it (metrics, hosts).
    # One key per client: nothing it signs outlives it, as nothing a test's server keeps does.
    key = secrets.token_urlsafe(32)
    chosen: dict[str, Any] = {"allowed_hosts": TEST_HOSTS, "table_name": "test-state", "request_state_secret": key}
    chosen |= settings
    core = build_core(Settings(**chosen), store=store if store is not None else InMemoryDocumentStore())
    return Client(build_server(core.runtime), mode=mode)
