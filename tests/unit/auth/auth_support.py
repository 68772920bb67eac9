"""The local issuer's keys read in process, and the names the auth unit tests share."""

from __future__ import annotations

from typing import Any

import jwt
from widget_mcp.auth.tokens import TokenRejected
from widget_mcp.local.issuer import LocalIssuer

ISSUER = "http://127.0.0.1:9/issuer"
RESOURCE = "http://127.0.0.1:9/mcp"
NOW = 1_800_000_000.0


class IssuerKeys:
    """The issuer's published JWKS, read in process (the loopback fetch is tested in tests/functional)."""

    def __init__(self, issuer: LocalIssuer) -> None:
        self._set = jwt.PyJWKSet.from_dict(issuer.jwks())

    def key_for(self, token: str) -> Any:
        kid = jwt.get_unverified_header(token).get("kid")
        for key in self._set.keys:
            if key.key_id == kid:
                return key.key
        raise TokenRejected("the token is not signed by a key of the issuer")
