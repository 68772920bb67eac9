"""Prompts, completion, app resources and templates, non-text content and header arguments, as an app declares them
(tests/library_app.py) and as the official client reads them: in process in both protocol eras, then over HTTP."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from library_app import BOOKS, CATALOG, COVER, GENRES, LOGO, READS, served_with_library
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequestParams, ElicitResult, PromptReference, ResourceTemplateReference
from servers import serve
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_app, build_core

__all__ = ["served_with_library"]

MODES = ["legacy", "2026-07-28"]
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture
def library(settings: Settings, served_with_library: None) -> Core:
    return build_core(settings, store=InMemoryDocumentStore())


@pytest.fixture
def base_url(library: Core) -> Iterator[str]:
    with serve(build_app(library)) as url:
        yield url


def in_memory(core: Core, mode: str) -> Client:
    return Client(build_server(core.runtime), mode=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
async def test_a_result_carries_an_image_and_a_resource_link_after_the_narration_and_its_json_before_fallbacks(
    library: Core, mode: str
) -> None:
    async with in_memory(library, mode) as client:
        result = await client.call_tool("library_cover", {"isbn": "9780441013593"})
    wire = [block.model_dump(by_alias=True, exclude_none=True) for block in result.content]
    assert wire == [
        {"type": "text", "text": "Here is the cover."},
        {"type": "text", "text": '{"isbn":"9780441013593"}'},
        {"type": "image", "data": base64.b64encode(COVER).decode(), "mimeType": "image/png"},
        {
            "type": "resource_link",
            "uri": "library://books/9780441013593",
            "name": "record",
            "mimeType": "application/json",
        },
        {"type": "text", "text": "ISBN 9780441013593"},
    ]
    assert result.structured_content == {"isbn": "9780441013593"}
    assert result.meta is not None
    assert result.meta["widgets"][0]["fallback"] == "ISBN 9780441013593"


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_are_listed_with_their_arguments_and_got_with_them_filled_in(library: Core, mode: str) -> None:
    async with in_memory(library, mode) as client:
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        got = await client.get_prompt("library_recommend", {"genre": "satire", "mood": "gloomy"})
        judged = await client.get_prompt("library_judge_cover")
    assert set(listed) == set(library.runtime.catalog.prompts)
    arguments = [(a.name, a.required, a.description) for a in listed["library_recommend"].arguments or []]
    assert arguments == [("genre", True, "What kind of book"), ("mood", False, "How the reader feels")]
    assert [m.model_dump(by_alias=True, exclude_none=True) for m in got.messages] == [
        {"role": "user", "content": {"type": "text", "text": "Recommend a satire book for a gloomy reader."}},
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {"uri": "library://catalog", "mimeType": "text/plain", "text": CATALOG},
            },
        },
    ]
    image = judged.messages[0].content.model_dump(by_alias=True)
    assert (image["type"], image["mimeType"], image["data"]) == ("image", "image/png", base64.b64encode(COVER).decode())
    assert judged.messages[1].role == "assistant"


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_without_its_required_argument_or_an_unknown_prompt_is_invalid_params(
    library: Core, mode: str
) -> None:
    async with in_memory(library, mode) as client:
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("library_recommend", {"mood": "calm"})
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("library_nothing")
    assert missing.value.error.code == unknown.value.error.code == -32602
    assert "genre" in missing.value.error.message
    assert "library_nothing" in unknown.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_completion_suggests_prompt_arguments_and_template_variables(library: Core, mode: str) -> None:
    async with in_memory(library, mode) as client:
        genre = await client.complete(
            PromptReference(type="ref/prompt", name="library_recommend"), {"name": "genre", "value": "SA"}
        )
        isbn = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="library://books/{isbn}"),
            {"name": "isbn", "value": "978044"},
        )
        mood = await client.complete(
            PromptReference(type="ref/prompt", name="library_recommend"), {"name": "mood", "value": ""}
        )
    assert genre.completion.values == [g for g in GENRES if g.startswith("sa")]
    assert (genre.completion.total, genre.completion.has_more) == (2, False)
    assert isbn.completion.values == [i for i in BOOKS if i.startswith("978044")]
    assert mood.completion.values == []  # an argument without a completer


@pytest.mark.parametrize("mode", MODES)
async def test_app_resources_are_listed_after_the_widget_templates_and_read_as_text_or_blob(
    library: Core, mode: str
) -> None:
    async with in_memory(library, mode) as client:
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        templates = (await client.list_resource_templates()).resource_templates
        text = (await client.read_resource("library://catalog")).contents[0]
        blob = (await client.read_resource("library://logo.png")).contents[0]
        record = (await client.read_resource("library://books/9780141439587")).contents[0]
    assert listed == [*library.runtime.templates, *library.runtime.catalog.resources]
    assert [(t.uri_template, t.mime_type) for t in templates] == [("library://books/{isbn}", "application/json")]
    assert text.model_dump(by_alias=True, exclude_none=True) == {
        "uri": "library://catalog",
        "mimeType": "text/plain",
        "text": CATALOG,
    }
    assert base64.b64decode(blob.model_dump(by_alias=True)["blob"]) == LOGO
    assert json.loads(record.model_dump()["text"]) == {"isbn": "9780141439587", "title": "Emma"}


@pytest.mark.parametrize(("mode", "code"), [("legacy", -32002), ("2026-07-28", -32602)])
async def test_a_uri_no_resource_answers_is_not_found_in_the_code_of_the_era(
    library: Core, mode: str, code: int
) -> None:
    async with in_memory(library, mode) as client:
        for uri in ("library://books/0000000000", "library://nothing"):
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert caught.value.error.code == code
            assert caught.value.error.data == {"uri": uri}


def post(base_url: str, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return httpx.post(f"{base_url}/mcp", json=body, headers={"accept": "application/json", **headers})


def modern(
    base_url: str, method: str, params: dict[str, Any], name: str | None = None, **headers: str
) -> httpx.Response:
    routing = {"mcp-protocol-version": "2026-07-28", "mcp-method": method, **headers}
    if name is not None:
        routing["mcp-name"] = name
    return post(base_url, method, {"_meta": ENVELOPE, **params}, **routing)


@pytest.mark.parametrize("mode", MODES)
async def test_over_http_the_official_client_gets_prompts_resources_and_completions(base_url: str, mode: str) -> None:
    async with Client(f"{base_url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
        prompt = await client.get_prompt("library_recommend", {"genre": "saga"})
        blob = (await client.read_resource("library://logo.png")).contents[0]
        genre = await client.complete(
            PromptReference(type="ref/prompt", name="library_recommend"), {"name": "genre", "value": "r"}
        )
        shelf = await client.call_tool("library_shelf", {"shelf": "Crime & Mystery"})
    assert prompt.messages[0].content.model_dump()["text"] == "Recommend a saga book."
    assert base64.b64decode(blob.model_dump(by_alias=True)["blob"]) == LOGO
    assert genre.completion.values == ["romance"]
    # In 2026-07-28 the client mirrors the argument in Mcp-Param-Shelf (base64, as it is not a token) and the server
    # checks that it agrees with the body.
    assert shelf.structured_content == {"shelf": "Crime & Mystery"}


class Reader:
    """The client's side of a prompt's input request: answers the form with a mood, noting each question."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params.message)
        return ElicitResult(action="accept", content={"mood": "calm"})


async def test_over_http_a_prompt_asks_the_official_client_and_completes_with_its_answer(base_url: str) -> None:
    reader = Reader()
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=reader.elicit) as client:
        got = await client.get_prompt("library_suggest", {"genre": "saga"})
    assert reader.asked == ["Before I suggest a saga book: how do you feel?"]
    assert got.messages[0].content.model_dump()["text"] == "Suggest a saga book for a calm reader."


async def test_over_http_a_handshake_client_gets_the_prompt_that_does_not_ask(base_url: str) -> None:
    reader = Reader()
    async with Client(f"{base_url}/mcp", mode="legacy", elicitation_callback=reader.elicit) as client:
        got = await client.get_prompt("library_suggest", {"genre": "saga"})
    assert reader.asked == []
    assert got.messages[0].content.model_dump()["text"] == "Suggest a saga book."


def test_over_http_a_prompts_altered_request_state_is_refused_as_invalid_params(base_url: str) -> None:
    envelope = {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    params = {"name": "library_suggest", "arguments": {"genre": "saga"}, "_meta": envelope}
    first = modern(base_url, "prompts/get", params, "library_suggest").json()["result"]
    assert first["resultType"] == "input_required"
    answer = {"reader": {"action": "accept", "content": {"mood": "calm"}}}
    state = first["requestState"]
    altered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
    retried = {**params, "inputResponses": answer}
    done = modern(base_url, "prompts/get", {**retried, "requestState": state}, "library_suggest")
    refused = modern(base_url, "prompts/get", {**retried, "requestState": altered}, "library_suggest")
    assert done.json()["result"]["messages"][0]["content"]["text"] == "Suggest a saga book for a calm reader."
    assert refused.json()["error"]["code"] == -32602
    assert refused.json()["error"]["data"] == {"reason": "request_state_tampered"}


def test_lists_and_fixed_resources_carry_caching_hints_and_template_reads_are_never_kept(base_url: str) -> None:
    prompts = modern(base_url, "prompts/list", {}).json()["result"]
    assert (prompts["ttlMs"], prompts["cacheScope"]) == (300_000, "public")
    fixed = [modern(base_url, "resources/read", {"uri": "library://catalog"}, "library://catalog") for _ in range(2)]
    record = "library://books/9780441013593"
    templated = [modern(base_url, "resources/read", {"uri": record}, record) for _ in range(2)]
    assert fixed[0].json()["result"] == fixed[1].json()["result"]
    assert (fixed[0].json()["result"]["ttlMs"], fixed[0].json()["result"]["cacheScope"]) == (300_000, "public")
    assert (templated[0].json()["result"]["ttlMs"], templated[0].json()["result"]["cacheScope"]) == (0, "private")
    # The fixed resource's answer is kept like the lists'; a template's answer may change, so it runs each time.
    assert READS == {"catalog": 1, "book": 2}


def test_a_header_argument_that_disagrees_with_the_body_or_is_missing_is_refused_with_header_mismatch(
    base_url: str,
) -> None:
    call = {"name": "library_shelf", "arguments": {"shelf": "poetry"}}
    agreed = modern(base_url, "tools/call", call, "library_shelf", **{"mcp-param-shelf": "poetry"})
    encoded = modern(base_url, "tools/call", call, "library_shelf", **{"mcp-param-shelf": "=?base64?cG9ldHJ5?="})
    other = modern(base_url, "tools/call", call, "library_shelf", **{"mcp-param-shelf": "prose"})
    missing = modern(base_url, "tools/call", call, "library_shelf")
    broken = modern(
        base_url, "tools/call", call, "library_shelf", **{"mcp-param-shelf": "=?base64?cG9ldHJ5?="[:-3] + "!?="}
    )
    assert (
        agreed.json()["result"]["structuredContent"]
        == encoded.json()["result"]["structuredContent"]
        == {"shelf": "poetry"}
    )
    for refused in (other, missing, broken):
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32020
        assert refused.json()["id"] == 7
    # The 2025-11-25 handshake era has no such headers: the body alone counts there.
    legacy = post(base_url, "tools/call", call, **{"mcp-protocol-version": "2025-11-25"})
    assert legacy.json()["result"]["structuredContent"] == {"shelf": "poetry"}
