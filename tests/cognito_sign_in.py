"""A `-c signIn=true` deployment in front of Cognito: its settings, and its web app over ASGI, for the tests of the
sign-in routes beside `/mcp`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core

HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
API = f"https://{HOST}"
COGNITO = "https://widget-mcp-dev-123456789012.auth.eu-west-1.amazoncognito.com"
ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc"


def cognito_sign_in(redirect_uri: str, **overrides: Any) -> Settings:
    """The deployment's settings, registering clients that redirect to `redirect_uri`; `overrides` win."""
    fields: dict[str, Any] = {
        "allowed_hosts": (HOST,),
        "auth_mode": "oauth",
        "oauth_issuer": ISSUER,
        "oauth_audience": ("client-1",),
        "oauth_scope_prefix": "widget-mcp/",
        "oauth_authorization_server": API,
        "oauth_authorize_url": f"{COGNITO}/oauth2/authorize",
        "oauth_token_url": f"{COGNITO}/oauth2/token",
        "oauth_registration_client_id": "client-1",
        "oauth_redirect_uris": (redirect_uri,),
    }
    return Settings(**{**fields, **overrides})


@asynccontextmanager
async def web_app_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the web app built on `settings` (state in memory), at the deployment's URL."""
    app = build_app(build_core(settings, store=InMemoryDocumentStore()))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=API) as client:
        yield client
