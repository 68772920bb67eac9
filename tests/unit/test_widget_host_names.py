"""Hosts that render MCP Apps without declaring the extension, known by the name they give (`clientInfo.name`):
what a 2025-11-25 session keeps of that name, and what the name makes of a client."""

from __future__ import annotations

from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import CallerClient
from widget_mcp.toolkit.client_surface import WIDGET_HOST_NAMES, shows_widgets, widget_signal
from widget_mcp.toolkit.request_state import RequestStates
from widget_mcp.transport.resumption import Streams

VS_CODE = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}


def _streams() -> Streams:
    return Streams(InMemoryDocumentStore(), RequestStates(lambda: b"k" * 32, 60), ttl_seconds=60, work_seconds=20)


def test_a_session_keeps_the_name_its_client_gave_cut_to_a_bound() -> None:
    streams = _streams()
    named = streams.session(streams.issue_session(VS_CODE, {"name": "Visual Studio Code", "version": "1.109.0"}))
    long = streams.session(streams.issue_session(VS_CODE, {"name": "x" * 10_000}))
    nameless = streams.session(streams.issue_session(VS_CODE, {"name": 3}))
    assert named is not None
    assert named.client_name == "Visual Studio Code"
    assert long is not None
    assert long.client_name is not None
    assert 0 < len(long.client_name) < 100
    assert nameless is not None
    assert nameless.client_name is None
    assert named.capabilities == {k: VS_CODE[k] for k in ("elicitation", "sampling", "roots")}


def test_a_client_named_as_a_widget_host_shows_widgets_without_declaring_the_extension() -> None:
    for name in WIDGET_HOST_NAMES:
        for spelled in (name, f"{name} - Insiders"):
            client = CallerClient("2025-11-25", False, VS_CODE, resumable_stream=True, client_name=spelled)
            assert shows_widgets(client, None) is True
            assert widget_signal(client, None) == "clientInfo.name"
    # Any other name, with the same capabilities, is known not to show them.
    other = CallerClient("2025-11-25", False, VS_CODE, resumable_stream=True, client_name="openai-agents")
    assert shows_widgets(other, None) is False
