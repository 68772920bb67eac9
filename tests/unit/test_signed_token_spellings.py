"""Every token this server signs has exactly one accepted spelling: its MAC as the server writes it (unpadded
base64url). A lenient base64 decoder reads the same bytes from a padded MAC, from `+`/`/` in place of `-`/`_`,
and from a last character whose unused low bits differ; each such respelling of a genuine token is refused.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from widget_mcp.auth.host_tokens import HostTokenRejected, HostTokens, sign
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.request_state import InvalidRequestState, RequestStates
from widget_mcp.transport.resumption import EventId, ListenEvent, Streams

KEY = "a-signing-key-of-at-least-32-characters"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def lenient(text: str) -> bytes:
    """What Python's default base64url decoding reads from `text`."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def padded(mac: str) -> str:
    return mac + "=="


def low_bits_flipped(mac: str) -> str:
    """The same bytes with the last character's unused low bit set otherwise (32 bytes use 4 of its 6 bits)."""
    return mac[:-1] + ALPHABET[ALPHABET.index(mac[-1]) ^ 1]


def standard_alphabet(mac: str) -> str:
    """The same bytes in the standard alphabet, which the URL-safe decoder also reads."""
    return mac.replace("-", "+").replace("_", "/")


def a_mac_with_a_url_safe_character(make: Callable[[int], str]) -> tuple[int, str]:
    """The first `n` whose token `make(n)` has a `-` or `_` in its MAC (after the last dot), and that token: one
    the standard alphabet spells otherwise."""
    return next((n, t) for n, t in ((n, make(n)) for n in range(200)) if {"-", "_"} & set(t.rpartition(".")[2]))


RESPELLINGS = [padded, low_bits_flipped, standard_alphabet]


def respelled(token: str, respell: Callable[[str], str]) -> str:
    head, _, mac = token.rpartition(".")
    changed = respell(mac)
    assert changed != mac
    assert lenient(changed) == lenient(mac)  # a decoder would not tell them apart
    return f"{head}.{changed}"


@pytest.mark.parametrize("respell", RESPELLINGS)
def test_a_request_state_with_its_mac_respelled_is_refused_as_tampered(respell: Callable[[str], str]) -> None:
    states = RequestStates(lambda: KEY.encode(), ttl_seconds=60)
    n, token = a_mac_with_a_url_safe_character(lambda n: states.seal("t", {"n": n}, "p", {}))
    arguments = {"n": n}
    assert states.open(token, "t", arguments, "p") == {}
    with pytest.raises(InvalidRequestState) as refused:
        states.open(respelled(token, respell), "t", arguments, "p")
    assert refused.value.reason == "tampered"


def streams() -> Streams:
    return Streams(InMemoryDocumentStore(), RequestStates(lambda: KEY.encode(), 60), ttl_seconds=60, work_seconds=20)


@pytest.mark.parametrize("respell", RESPELLINGS)
def test_a_session_id_with_its_mac_respelled_names_no_session(respell: Callable[[str], str]) -> None:
    kept = streams()
    _, session = a_mac_with_a_url_safe_character(lambda n: kept.issue_session({"elicitation": {}}))
    assert kept.session(session) is not None
    assert kept.session(respelled(session, respell)) is None


def event_id(reply: bytes) -> str:
    return reply.decode().split("\n")[0].removeprefix("id: ")


@pytest.mark.parametrize("respell", RESPELLINGS)
def test_an_event_id_with_its_mac_respelled_names_no_event(respell: Callable[[str], str]) -> None:
    kept = streams()
    _, stream_event = a_mac_with_a_url_safe_character(lambda n: event_id(kept.priming(EventId("s" * 22, 0, n, 1))))
    _, listen_event = a_mac_with_a_url_safe_character(lambda n: event_id(kept.listen_priming(ListenEvent("x", n))))
    assert kept.event(stream_event) is not None
    assert kept.listening(listen_event) is not None
    assert kept.event(respelled(stream_event, respell)) is None
    assert kept.listening(respelled(listen_event, respell)) is None


@pytest.mark.parametrize("respell", RESPELLINGS)
def test_a_host_token_with_its_signature_respelled_does_not_verify(respell: Callable[[str], str]) -> None:
    tokens = HostTokens(KEY)
    _, token = a_mac_with_a_url_safe_character(lambda n: sign(KEY, "openwebui", f"user{n}", "call", 600))
    assert tokens.verify(token).subject.startswith("user")
    with pytest.raises(HostTokenRejected, match="signature does not verify"):
        tokens.verify(respelled(token, respell))


def test_a_host_token_whose_signature_is_not_ascii_is_refused_not_a_server_error() -> None:
    token = sign(KEY, "openwebui", "alice", "call", 600)
    with pytest.raises(HostTokenRejected, match="signature does not verify"):
        HostTokens(KEY).verify(token[:-1] + "é")
