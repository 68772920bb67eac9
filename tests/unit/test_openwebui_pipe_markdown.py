"""The Open WebUI Pipe's message is markdown that quotes tool results, the model's words and the server's refusals:
rendered by a real GFM renderer (markdown-to-jsx's HTML compiler, from widget_bundles/node_modules, which links
bare URLs, `www.` hosts, emails and `<...>` autolinks as GFM does), no hostile text becomes a link, and each still
reads as the text it quotes."""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from openwebui_plugin import load_plugin

ROOT = Path(__file__).resolve().parents[2]
RENDERER = ROOT / "widget_bundles" / "node_modules" / "markdown-to-jsx" / "dist" / "html.js"
# Reads a JSON list of markdown documents on stdin, writes the list of their HTML.
RENDER = f"""
import {{ compiler }} from {json.dumps(RENDERER.as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(JSON.parse(input).map((doc) => compiler(doc))));
"""
# What every GFM renderer links.
LINKED = [
    "see https://evil.example/pay now",
    "http://evil.example:8080/a?b=c#d and ftp://files.evil.example/x",
    "www.evil.example/login",
    "write to admin@evil.example today",
    "mailto:admin@evil.example xmpp:bot@evil.example/res",
    "<https://evil.example/angle> and <admin@evil.example>",
]
HOSTILE = [
    *LINKED,
    # What some renderers link (marked matches schemes and `www.` in any case).
    "HTTPS://EVIL.EXAMPLE/caps",
    "WWW.Evil.Example and Www.evil.example",
    "&lt;https://evil.example&gt; https&#58;//evil.example",
    "already escaped: https\\://evil.example www\\.evil.example a\\@evil.example",
    "(https://evil.example/in-parens), https://evil.example/trailing.",
    "[click](https://evil.example) ![img](https://evil.example/i.png) [ref]: https://evil.example",
    "*www.evil.example* **https://evil.example** ~~ftp://evil.example~~ `https://evil.example`",
]


@pytest.fixture(scope="module")
def integration() -> ModuleType:
    return load_plugin("openwebui_widget_mcp_markdown")


def render(documents: list[str]) -> list[str]:
    node = shutil.which("node")
    if node is None or not RENDERER.is_file():
        pytest.fail("node and widget_bundles/node_modules (markdown-to-jsx) are needed: run `make widgets`")
    done = subprocess.run(
        [node, "--input-type=module", "-e", RENDER],
        input=json.dumps(documents),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    rendered: list[str] = json.loads(done.stdout)
    return rendered


def as_read(rendered: str) -> str:
    """What a person reads: the HTML's text (a word joiner is not seen)."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", rendered)).replace("\u2060", "").split())


def test_the_renderer_links_each_hostile_text_when_it_is_not_escaped() -> None:
    # Otherwise the tests below would pass for a renderer that links nothing.
    assert all("<a" in out for out in render(LINKED))


def test_no_hostile_text_in_the_steps_block_becomes_a_link_and_each_reads_as_itself(integration: ModuleType) -> None:
    steps = []
    for text in HOSTILE:
        outcome = integration.Outcome("display_demo", {"content": [{"type": "text", "text": text}]}, {})
        steps += [
            f"**🤖 AI:** {integration._escaped(text)}",
            f"**🔧 display_demo:** {integration._step_preview(outcome)}",
        ]
    documents = [integration._steps_block([step], 1) for step in steps]

    for text, rendered in zip([t for t in HOSTILE for _ in (0, 1)], render(documents), strict=True):
        assert "<a" not in rendered, (text, rendered)
        assert as_read(rendered).endswith(" ".join(text.split())), (text, rendered)


def test_a_tool_name_and_a_failure_in_the_steps_block_make_no_link(integration: ModuleType) -> None:
    name = "www.evil.example"
    outcome = integration.Outcome(name, None, {}, failure="The MCP server refused the call: see admin@evil.example")
    block = integration._steps_block([f"**🔧 {integration._escaped(name)}:** {integration._step_preview(outcome)}"], 1)

    (rendered,) = render([block])

    assert "<a" not in rendered
    assert "www.evil.example: ✗ The MCP server refused the call: see admin@evil.example" in as_read(rendered)


def test_the_pipe_s_message_when_the_server_is_unreachable_names_its_url_without_linking_it(
    integration: ModuleType,
) -> None:
    pipe = integration.Pipe()
    pipe.valves = integration.Pipe.Valves(MCP_URL="http://127.0.0.1:9/mcp", MODEL_ID="wrapped")

    message = asyncio.run(pipe.pipe({"model": "widget_mcp", "messages": []}))
    (rendered,) = render([message])

    assert "http://127.0.0.1:9/mcp" in as_read(rendered)
    assert "<a" not in rendered
