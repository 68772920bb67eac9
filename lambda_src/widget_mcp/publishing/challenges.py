"""The directories' ownership proofs: a token at a well-known path of the MCP host, answered as text/plain.

OpenAI's app submission fetches `/.well-known/openai-apps-challenge`; the MCP Registry's HTTP namespace proof
fetches `/.well-known/mcp-registry-auth`. Each path exists only while its setting is set, so an unset one is 404.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from widget_mcp.transport.guards import HostAllowlist

if TYPE_CHECKING:
    from widget_mcp.settings import Settings

OPENAI_CHALLENGE_PATH = "/.well-known/openai-apps-challenge"
REGISTRY_AUTH_PATH = "/.well-known/mcp-registry-auth"


def challenge_paths(settings: Settings) -> dict[str, str]:
    """Path → token for each proof the settings set."""
    tokens = {OPENAI_CHALLENGE_PATH: settings.openai_apps_challenge, REGISTRY_AUTH_PATH: settings.mcp_registry_auth}
    return {path: token for path, token in tokens.items() if token}


def challenge_routes(settings: Settings) -> list[BaseRoute]:
    hosts = HostAllowlist(settings.allowed_hosts)
    return [_route(path, token, hosts) for path, token in challenge_paths(settings).items()]


def _route(path: str, token: str, hosts: HostAllowlist) -> Route:
    async def answer(request: Request) -> Response:
        # Behind the same Host allowlist as /mcp: the proof is about this host, served only under its names.
        if not hosts.allows(request.headers.get("host")):
            return PlainTextResponse("Misdirected request\n", status_code=421)
        # No trailing newline: the directories compare the body with the token exactly.
        return PlainTextResponse(token, headers={"cache-control": "no-store"})

    return Route(path, answer, methods=["GET"])
