"""The integration installed as a Pipe (a model of its own wrapping the scripted model) inside the real Open WebUI:
it runs the tool calls itself and writes seed 003's message, one collapsed "Execution Steps (N tools)" block with
200-character HTML-escaped previews, then the answer; checked on the stored chats and in Open WebUI's page."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Server
from openwebui_client import OpenWebUIClient
from openwebui_page import EMBED, signed_in_page
from playwright.sync_api import Browser, Page, expect
from scripted_model import ScriptedModel

STEP_PREVIEW = 200
HOSTILE = (
    '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"></details> **bold** [link](javascript:x)'
)
BLOCK = re.compile(
    r"^<details>\n<summary>🔍 Execution Steps \((\d+) tools?\)</summary>\n\n(.*?)\n\n</details>\n\n(.*)$", re.S
)


def _model_visible(tool: dict[str, Any]) -> bool:
    visibility = ((tool.get("_meta") or {}).get("ui") or {}).get("visibility")
    return not isinstance(visibility, list) or "model" in visibility


def _steps(content: str) -> tuple[int, list[str], str]:
    match = BLOCK.match(content)
    assert match, content
    return int(match.group(1)), match.group(2).split("\n\n"), match.group(3)


def _as_text(markdown: str) -> str:
    """What a step's escaped text reads as: markdown's backslash escapes and HTML's entities undone, and the
    invisible word joiners that keep a URL from becoming a link left out."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown)).replace("\u2060", "")


def _expected_preview(source: dict[str, Any]) -> str:
    text = " ".join(source["document"][0].split())  # the citation's preview: the same result text, 500 characters
    return text if len(text) <= STEP_PREVIEW else text[:STEP_PREVIEW] + "..."


def test_the_pipe_writes_every_step_in_one_collapsed_block_then_the_answer(
    piped: OpenWebUIClient, server: Server, model: ScriptedModel
) -> None:
    chat = piped.chat(
        'say Let me set up the board.\ncall chess_new_game {"opponent": "engine"}\ncall display_demo {"message": "hi"}'
    )
    tools, steps, answer = _steps(chat.message["content"])
    assert tools == 2
    assert steps[0] == "**🤖 AI:** Let me set up the board."
    assert [s.split(":**")[0] for s in steps[1:]] == ["**🔧 chess_new_game", "**🔧 display_demo"]
    assert answer.startswith("Done. The tools said: ")
    assert chat.message["content"].count("<details") == 1
    game = json.loads(chat.message["sources"][0]["metadata"][0]["full_result"])["structuredContent"]["gameId"]
    assert game in answer, "the model read the tool result"
    for step, source in zip(steps[1:], chat.message["sources"], strict=True):
        assert _as_text(step.split(":** ", 1)[1]) == _expected_preview(source)
    descriptions = [s["description"] for s in chat.message["statusHistory"]]
    meta = next(t["_meta"] for t in server.tools() if t["name"] == "chess_new_game")
    assert descriptions[:2] == [meta["openai/toolInvocation/invoking"], meta["openai/toolInvocation/invoked"]]
    assert len(chat.message.get("embeds") or []) == 2, "both results have a widget, embedded under the message"
    offered = {f["name"] for f in model.offered_functions()}
    assert offered == {t["name"] for t in server.tools() if _model_visible(t)}


def test_a_hostile_tool_result_stays_text_in_the_steps_block_and_a_long_one_is_cut_at_200_characters(
    piped: OpenWebUIClient,
) -> None:
    chat = piped.chat(f"call display_demo {json.dumps({'message': HOSTILE + ' tail' * 100})}")
    tools, (step,), _answer = _steps(chat.message["content"])
    assert tools == 1
    for raw in ("<script", "<img", "</details>\n\n</details>", "**bold**", "[link]("):
        assert raw not in step, raw
    preview = _as_text(step.split(":** ", 1)[1])
    assert preview == _expected_preview(chat.message["sources"][0])
    assert preview.endswith("...")
    assert HOSTILE[:40] in preview


@pytest.fixture
def page(browser: Browser, piped: OpenWebUIClient) -> Iterator[Page]:
    with signed_in_page(browser, piped) as page:
        yield page


def test_in_open_webui_s_page_the_steps_are_collapsed_a_hostile_result_reads_as_text_and_its_widget_shows(
    page: Page, piped: OpenWebUIClient
) -> None:
    chat = piped.chat(f"call display_demo {json.dumps({'message': HOSTILE})}")
    page.goto(f"{piped.base}/c/{chat.id}")
    notes = page.get_by_role("button", name="Okay, Let's Go!")
    summary = page.get_by_text("Execution Steps (1 tool)")
    expect(summary.or_(notes).first).to_be_visible()
    if notes.is_visible():
        notes.click()
    expect(summary).to_be_visible()
    expect(page.get_by_text("Done. The tools said:")).to_be_visible()
    step = page.locator("p").filter(has_text="🔧 display_demo:")
    expect(step).to_be_hidden()  # collapsed until opened
    summary.click()
    expect(step).to_contain_text('<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">')
    assert page.evaluate("() => window.pwned") is None
    # The result's widget is embedded under the message, as text there too.
    widget = page.frame_locator(EMBED).first.frame_locator("#widget")
    expect(widget.get_by_text("<script>window.pwned = 1</script>", exact=False).first).to_be_visible()


def test_in_open_webui_s_page_urls_hosts_and_emails_in_a_result_read_as_text_and_link_nowhere(
    page: Page, piped: OpenWebUIClient
) -> None:
    links = "see https://evil.example/pay or www.evil.example/login, write to admin@evil.example"
    chat = piped.chat(f"call display_demo {json.dumps({'message': links})}")
    page.goto(f"{piped.base}/c/{chat.id}")
    notes = page.get_by_role("button", name="Okay, Let's Go!")
    summary = page.get_by_text("Execution Steps (1 tool)")
    expect(summary.or_(notes).first).to_be_visible()
    if notes.is_visible():
        notes.click()
    summary.click()
    step = page.locator("p").filter(has_text="🔧 display_demo:")
    expect(step).to_be_visible()
    assert links in step.inner_text().replace("\u2060", "")  # as typed: the word joiners are not seen
    assert step.locator("a").count() == 0  # Open WebUI's own renderer made no link of them
