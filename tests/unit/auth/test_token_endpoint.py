"""The token endpoint's https port (client_flow.HttpsTokenEndpoint) against a local server: the form is posted as
it is and the answer passed through, and an answer past MAX_TOKEN_ANSWER_BYTES is a 502 as soon as it is past it,
without waiting for (or holding) the rest."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import pytest
from widget_mcp.auth.client_flow import MAX_TOKEN_ANSWER_BYTES, HttpsTokenEndpoint

TOKENS = b'{"access_token":"a","token_type":"Bearer","expires_in":3600}'


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    posted: list[dict[str, str]] = []
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            posted.append(dict(parse_qsl(self.rfile.read(length).decode())))
            if self.path == "/huge":
                # Past the bound, then a body that never ends: only a reader that stops at the bound answers.
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(100 * MAX_TOKEN_ANSWER_BYTES))
                self.end_headers()
                self.wfile.write(b"x" * (MAX_TOKEN_ANSWER_BYTES + 1))
                self.wfile.flush()
                release.wait(10)
                return
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(TOKENS)))
            self.end_headers()
            self.wfile.write(TOKENS)

        def log_message(self, *args: object) -> None:
            return None

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", posted
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


async def test_the_form_is_posted_as_it_is_and_the_answer_comes_back_as_sent(
    server: tuple[str, list[dict[str, str]]],
) -> None:
    url, posted = server
    form = {"grant_type": "authorization_code", "code": "c", "client_id": "pool-client", "code_verifier": "v"}

    answer = await HttpsTokenEndpoint(f"{url}/token").exchange(form)

    assert (answer.status, answer.body, answer.content_type) == (200, TOKENS, "application/json")
    assert posted == [form]


async def test_an_answer_past_its_bound_is_a_server_error_not_passed_on(
    server: tuple[str, list[dict[str, str]]],
) -> None:
    url, _ = server

    # Well inside its timeout: the rest of the body never comes, so waiting for it would time out instead.
    answer = await HttpsTokenEndpoint(f"{url}/huge", timeout=30).exchange({"grant_type": "refresh_token"})

    assert answer.status == 502
    assert answer.body == b'{"error":"server_error"}'
