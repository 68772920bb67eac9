"""What a client can show on one call: widgets (MCP Apps or ChatGPT), native forms (elicitation), or text alone.

A client says it shows widgets by declaring the MCP Apps extension (`io.modelcontextprotocol/ui`: in `initialize`,
kept in a 2025-11-25 session, or in every 2026-07-28 request's capabilities). Some hosts show them without
declaring it; these signals count too (docs/forms.md, "Which clients see which form"):
- ChatGPT sends `openai/userAgent` and `openai/locale` in every tools/call's `_meta` (its `openai/subject` names a
  user, and other platforms and test clients send it too: identity, not display);
- the Open WebUI integration signs its calls with a host token (`signed:openwebui/<user>`) and embeds widgets;
- VS Code renders MCP Apps without declaring the extension (microsoft/vscode#291432): its `clientInfo.name` is its
  product name, `Visual Studio Code` (or `Visual Studio Code - Insiders`).
A name is no proof, nor need it be: refusing app-only tools keeps a model from calling what it should not, while a
form's answer still needs the key only its widget received (apps/forms/answer_keys.py). A client that claims a
widget host's name gets what a client declaring the extension gets.

`shows_widgets` is three-valued: True (declared or signalled), False (the client's capabilities are known and say
neither), None (they are not known: a 2025-11-25 call without a session, which a stateless server cannot ask).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from widget_mcp.toolkit.call import APPS_EXTENSION, CallerClient
from widget_mcp.toolkit.errors import ToolError
from widget_mcp.toolkit.principal import Principal

# ChatGPT's per-call hints (the Apps SDK reference, "client-provided metadata"); either is enough.
CHATGPT_SIGNALS = ("openai/userAgent", "openai/locale")
# Verified host tokens (auth/host_tokens.py) of hosts that embed every result's widget.
WIDGET_HOST_TOKENS = ("openwebui/",)
# `clientInfo.name` prefixes of hosts that render MCP Apps without declaring the extension.
WIDGET_HOST_NAMES = ("Visual Studio Code",)
CLIENT_NAME_SIGNAL = "clientInfo.name"


def widget_signal(
    client: CallerClient, meta: Mapping[str, Any] | None, principal: Principal | None = None
) -> str | None:
    """What says this call's client shows widgets (the extension's name, a `_meta` key, a host), or None."""
    if client.shows_apps:
        return APPS_EXTENSION
    if client.client_name is not None and client.client_name.startswith(WIDGET_HOST_NAMES):
        return CLIENT_NAME_SIGNAL
    meta = meta or {}
    for key in CHATGPT_SIGNALS:
        value = meta.get(key)
        if (isinstance(value, str) and value) or isinstance(value, Mapping):
            return key
    if principal is not None and principal.source == "signed" and principal.subject.startswith(WIDGET_HOST_TOKENS):
        return principal.subject.split("/", 1)[0]
    return None


def shows_widgets(
    client: CallerClient, meta: Mapping[str, Any] | None, principal: Principal | None = None
) -> bool | None:
    """True: the client shows widgets; False: it declared what it can do, and that is not it; None: unknown."""
    if widget_signal(client, meta, principal) is not None:
        return True
    return None if client.capabilities is None else False


def elicits_forms(client: CallerClient) -> bool:
    """Whether an elicitation in form mode can reach the client on this call: it takes input requests and declared
    `elicitation` with form mode (an empty object means form mode; `{"url": {}}` alone does not)."""
    declared = client.capabilities.get("elicitation") if client.capabilities is not None else None
    if not client.takes_input_requests or not isinstance(declared, Mapping):
        return False
    return "form" in declared or "url" not in declared


def app_only(tool: Mapping[str, Any]) -> bool:
    """Whether a tool (as `tools/list` describes it) is for its widget alone (`ui.visibility: ["app"]`)."""
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    return isinstance(visibility, list) and "model" not in visibility


def offered_tools(
    tools: list[dict[str, Any]], client: CallerClient, meta: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """`tools/list` for this client: app-only tools are left out where it is known not to show widgets, since
    only a model could call them there."""
    if shows_widgets(client, meta) is not False:
        return tools
    return [tool for tool in tools if not app_only(tool)]


class AppOnly(ToolError):
    """An app-only tool called by a client known not to show its app: only a model could have called it there."""

    code = "app_only"

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"{tool} is called by its app's widget, which this client does not show; it is not for the model. "
            "Use the tools this client lists instead."
        )
