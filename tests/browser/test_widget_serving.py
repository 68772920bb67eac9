"""Local mode serves the built bundles as a CDN would; the Lambda app serves no playground, feed or files."""

from __future__ import annotations

import re

import httpx
from browser_support import DevServer
from fastapi.testclient import TestClient
from widget_mcp.wiring import Core, build_app


def rpc(server: DevServer, method: str, params: dict[str, object]) -> dict[str, object]:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = httpx.post(f"{server.base}/mcp", json=message, headers={"accept": "application/json"}, timeout=10)
    result: dict[str, object] = answer.json()["result"]
    return result


def templates(server: DevServer) -> list[dict[str, object]]:
    listed = rpc(server, "resources/list", {})["resources"]
    assert isinstance(listed, list)
    return listed


def test_every_template_shell_loads_hashed_files_that_are_served_cached_for_a_year_and_readable_cross_origin(
    dev_server: DevServer,
) -> None:
    names = set()
    for resource in templates(dev_server):
        names.add(resource["name"])
        contents = rpc(dev_server, "resources/read", {"uri": resource["uri"]})["contents"]
        assert isinstance(contents, list)
        shell = contents[0]["text"]
        urls = re.findall(r'(?:src|href)="([^"]+)"', shell)
        assert any(u.endswith(".js") for u in urls)
        assert all(u.startswith(f"{dev_server.base}/widgets/") for u in urls)
        for url in urls:
            answer = httpx.get(url, headers={"origin": "null"})
            assert answer.status_code == 200, url
            assert re.search(r"/assets/[\w-]+-[\w-]{8}\.(js|css)$", url)
            kind = "text/javascript" if url.endswith(".js") else "text/css"
            assert answer.headers["content-type"].startswith(kind)
            assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert answer.headers["access-control-allow-origin"] == "*"
    assert {"display", "chess-board"} <= names


def test_template_csp_allows_exactly_the_widget_origin(dev_server: DevServer) -> None:
    for resource in templates(dev_server):
        meta = resource["_meta"]
        assert isinstance(meta, dict)
        csp = meta["ui"]["csp"]
        assert csp["resourceDomains"] == [dev_server.base]
        assert csp["connectDomains"] == [dev_server.base]
        assert meta["openai/widgetCSP"]["resource_domains"] == [dev_server.base]


def test_the_bundle_manifest_is_revalidated_on_every_use(dev_server: DevServer) -> None:
    answer = httpx.get(f"{dev_server.base}/widgets/manifest.json")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-cache"
    assert set(answer.json()["entries"]) >= {"display", "chess-board", "playground"}


def test_the_playground_page_loads_its_script_from_the_bundles(dev_server: DevServer) -> None:
    page = httpx.get(f"{dev_server.base}/playground")
    assert page.status_code == 200
    script = re.search(r'<script type="module" src="(/widgets/assets/playground-[^"]+\.js)"', page.text)
    assert script
    assert httpx.get(f"{dev_server.base}{script.group(1)}").status_code == 200


def test_the_lambda_app_serves_no_playground_event_feed_or_widget_files(core: Core) -> None:
    client = TestClient(build_app(core))
    for path in ("/playground", "/events", "/widgets/manifest.json"):
        assert client.get(path).status_code == 404, path
    assert client.get("/healthz").status_code == 200
