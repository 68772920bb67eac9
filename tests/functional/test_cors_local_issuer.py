"""`make dev` with sign-in, as a browser-based host on another loopback port sees it (its default CORS_ORIGINS
lists every loopback port): every step of discovery, registration and the code exchange the host's page makes
itself is readable by it, preflights included, and ends in a signed-in `/mcp` call; an unlisted origin is
refused there as on `/mcp`."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from widget_mcp.local.process import LocalServer, local_server

BROWSER_HOST = "http://localhost:6274"  # the MCP Inspector's web UI
CALLBACK = f"{BROWSER_HOST}/oauth/callback"


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with local_server("cors-issuer-state", settings={"AUTH_MODE": "oauth"}) as running:
        yield running


def _readable(answer: httpx.Response) -> httpx.Response:
    assert answer.headers.get("access-control-allow-origin") == BROWSER_HOST, (answer.request.url, answer.text)
    assert answer.headers.get("vary") == "Origin"
    return answer


def _preflight(http: httpx.Client, url: str, method: str, headers: str) -> None:
    asked = {"origin": BROWSER_HOST, "access-control-request-method": method, "access-control-request-headers": headers}
    answer = _readable(http.options(url, headers=asked))
    assert answer.status_code == 204, url
    assert method in answer.headers["access-control-allow-methods"]


def test_a_browser_host_on_another_port_signs_in_through_the_local_issuer(server: LocalServer) -> None:
    page = {"origin": BROWSER_HOST}
    with httpx.Client() as http:
        resource_url = f"{server.base}/.well-known/oauth-protected-resource/mcp"
        _preflight(http, resource_url, "GET", "mcp-protocol-version")
        resource = _readable(http.get(resource_url, headers={**page, "mcp-protocol-version": "2025-11-25"})).json()
        (issuer,) = resource["authorization_servers"]
        path = urlsplit(issuer).path
        metadata_url = f"{server.base}/.well-known/oauth-authorization-server{path}"
        _preflight(http, metadata_url, "GET", "mcp-protocol-version")
        metadata = _readable(http.get(metadata_url, headers=page)).json()

        _preflight(http, metadata["registration_endpoint"], "POST", "content-type")
        registered = _readable(
            http.post(metadata["registration_endpoint"], json={"redirect_uris": [CALLBACK]}, headers=page)
        )
        assert registered.status_code == 201
        client_id = registered.json()["client_id"]

        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = {
            "client_id": client_id,
            "redirect_uri": CALLBACK,
            "response_type": "code",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "scope": " ".join(resource["scopes_supported"]),
        }
        # A navigation of the host's window: no Origin, no CORS.
        redirect = http.get(f"{metadata['authorization_endpoint']}?{urlencode(query)}")
        assert redirect.status_code == 302
        (code,) = parse_qs(urlsplit(redirect.headers["location"]).query)["code"]

        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client_id,
            "redirect_uri": CALLBACK,
            "code_verifier": verifier,
        }
        # A form POST is a simple request (no preflight), but the page must still be allowed to read the token.
        token = _readable(http.post(metadata["token_endpoint"], data=form, headers=page)).json()["access_token"]

        ping = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        bearer = {**page, "authorization": f"Bearer {token}", "accept": "application/json"}
        listed = _readable(http.post(f"{server.base}/mcp", json=ping, headers=bearer))
        assert listed.status_code == 200
        assert listed.json()["result"]["tools"]


def test_an_unlisted_origin_is_refused_by_the_local_issuer_as_by_mcp(server: LocalServer) -> None:
    evil = {"origin": "https://evil.example.com"}
    with httpx.Client() as http:
        token = http.post(f"{server.base}/issuer/token", data={"grant_type": "refresh_token"}, headers=evil)
        preflight = http.options(
            f"{server.base}/issuer/register", headers={**evil, "access-control-request-method": "POST"}
        )
        mcp = http.post(f"{server.base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=evil)
    for answer in (token, preflight, mcp):
        assert answer.status_code == 403
        assert "access-control-allow-origin" not in answer.headers


def test_the_playground_on_the_servers_own_origin_still_redeems_its_code(server: LocalServer) -> None:
    own = {"origin": server.base}
    with httpx.Client() as http:
        answer = http.post(f"{server.base}/issuer/token", data={"grant_type": "refresh_token"}, headers=own)
    # Refused for the grant (no such refresh token), not for the origin.
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"
