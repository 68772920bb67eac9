import pytest
from widget_mcp.transport.guards import HostAllowlist, accepts_json, media_type, too_deep


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("api.example.com", True),
        ("API.EXAMPLE.COM", True),
        ("api.example.com:443", True),
        ("localhost:8000", True),
        ("localhost", True),
        ("[::1]:8000", True),
        ("evil.example.com", False),
        ("api.example.com.evil.net", False),
        ("localhost.evil.net:80", False),
        ("", False),
        (None, False),
        ("localhost:²", False),  # str.isdigit() takes superscripts and other scripts' digits: a port is ASCII
        ("localhost:١٢", False),
    ],
)
def test_host_allowlist_matches_exact_names_and_any_port_patterns(host: str | None, allowed: bool) -> None:
    hosts = HostAllowlist(["api.example.com", "localhost:*", "[::1]:*"])
    assert hosts.allows(host) is allowed


def test_origins_are_checked_against_the_same_allowlist() -> None:
    hosts = HostAllowlist(["127.0.0.1:*"])
    assert hosts.allows_origin("http://127.0.0.1:8000")
    assert not hosts.allows_origin("http://attacker.example:8000")
    assert not hosts.allows_origin("null")


@pytest.mark.parametrize(
    ("accept", "ok"),
    [
        (None, True),
        ("application/json, text/event-stream", True),
        ("*/*", True),
        ("application/json;q=0.9", True),
        ("text/event-stream", False),
        ("text/html", False),
    ],
)
def test_accept_must_allow_json(accept: str | None, ok: bool) -> None:
    headers = {} if accept is None else {"accept": accept}
    assert accepts_json(headers) is ok


def test_media_type_ignores_parameters_and_case() -> None:
    assert media_type({"content-type": "Application/JSON; charset=utf-8"}, "content-type") == "application/json"


def test_depth_is_measured_without_recursion_on_hostile_nesting() -> None:
    deep: object = []
    for _ in range(100_000):
        deep = [deep]
    assert too_deep(deep, 64)
    assert not too_deep({"a": [{"b": 1}]}, 3)
    assert too_deep({"a": [{"b": [1]}]}, 3)
