"""The PyJWT the project accepts has the JWKS refetch cooldown SECURITY.md counts on: a token naming an unknown
`kid` refetches the issuer's keys at most once per 30 s. PyJWT 2.14.0 brought it (`cooldown_duration`); before,
every unknown `kid` refetched the set."""

from __future__ import annotations

import inspect
import re
import tomllib

import jwt
from widget_mcp.local.paths import REPO

COOLDOWN_SINCE = (2, 14)


def test_the_declared_pyjwt_floor_is_the_first_release_with_the_jwks_refetch_cooldown() -> None:
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (requirement,) = [d for d in dependencies if re.match(r"pyjwt\b", d, re.IGNORECASE)]
    floor = re.search(r">=\s*(\d+)\.(\d+)", requirement)
    assert floor, f"{requirement!r} has no >= floor"
    assert (int(floor.group(1)), int(floor.group(2))) >= COOLDOWN_SINCE, requirement


def test_the_installed_pyjwt_waits_30_s_between_refetches_for_unknown_keys() -> None:
    assert inspect.signature(jwt.PyJWKClient).parameters["cooldown_duration"].default == 30
