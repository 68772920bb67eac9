"""`make dev`'s server as a user runs it: a separate process with moto embedded, stopped with Ctrl-C."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator

import boto3
import httpx
import pytest
from mcp import Client
from widget_mcp.local.__main__ import StartError
from widget_mcp.local.__main__ import _port as check_port
from widget_mcp.local.aws import free_port
from widget_mcp.local.process import ROOT, LocalServer, local_server


class DevServer:
    def __init__(self, server: LocalServer, aws: str) -> None:
        self.server, self.proc, self.base, self.aws, self.output = server, server.proc, server.base, aws, server.output


@pytest.fixture
def dev_server() -> Iterator[DevServer]:
    with local_server("dev-state") as server:
        aws = re.search(r"AWS \(moto\)\s+(\S+)", "".join(server.output))
        assert aws is not None
        yield DevServer(server, aws.group(1))


async def test_dev_server_prints_its_urls_serves_mcp_and_stops_cleanly_on_ctrl_c(dev_server: DevServer) -> None:
    banner = "".join(dev_server.output)
    for url in ("/mcp", "/healthz", "/widgets/manifest.json", "/playground", "/events"):
        assert f"{dev_server.base}{url}" in banner
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{dev_server.base}/healthz")).json()["status"] == "ok"
        widgets = await http.get(f"{dev_server.base}/widgets/manifest.json")
    # Served once the bundles are built (`make test` builds them); until then a 404 that says why.
    assert widgets.status_code == 200 or "not built" in widgets.json()["hint"]
    async with Client(f"{dev_server.base}/mcp", mode="legacy") as client:
        result = await client.call_tool("display_demo", {"message": "local"})
    assert result.structured_content == {"message": "local", "length": 5, "words": 1}

    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=dev_server.aws,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    table = dynamodb.describe_table(TableName="dev-state")["Table"]
    assert {(k["AttributeName"], k["KeyType"]) for k in table["KeySchema"]} == {("pk", "HASH"), ("sk", "RANGE")}
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    ttl = dynamodb.describe_time_to_live(TableName="dev-state")["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "ttl")

    rest = dev_server.server.interrupt(timeout=15)
    assert dev_server.proc.returncode == 0
    assert "Traceback" not in rest
    assert rest.strip().endswith("stopped")


async def test_the_servers_root_sends_a_browser_to_the_playground(dev_server: DevServer) -> None:
    async with httpx.AsyncClient() as http:
        root = await http.get(f"{dev_server.base}/")
    assert (root.status_code, root.headers["location"]) == (307, "/playground")


@pytest.mark.parametrize("path", ["/playground", "/widgets/manifest.json", "/widgets/no-such-file.js"])
async def test_the_playground_and_widget_files_refuse_a_foreign_host_so_a_dns_rebinding_page_cannot_read_them(
    dev_server: DevServer, path: str
) -> None:
    # A page on attacker.example whose name now resolves to 127.0.0.1 sends its own name as Host.
    async with httpx.AsyncClient() as http:
        refused = await http.get(f"{dev_server.base}{path}", headers={"host": "attacker.example:8000"})
        served = await http.get(f"{dev_server.base}{path}")
    assert refused.status_code == 421
    assert refused.json()["error"] == "invalid_host"
    assert served.status_code != 421
    assert "invalid_host" not in served.text


def start(port: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PORT", "RELOAD"))}
    env.update({"PORT": port, "PYTHONPATH": str(ROOT / "lambda_src"), **settings})
    return subprocess.run(
        [sys.executable, "-m", "widget_mcp.local"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("port", ["0x1F90", "70000", "-1", "", "80 80"])
def test_a_port_that_is_not_a_port_number_is_refused_in_one_sentence(port: str) -> None:
    with pytest.raises(StartError) as caught:
        check_port(port)
    assert str(caught.value) == f"PORT must be a TCP port number from 1 to 65535, got {port!r}"


def test_make_dev_with_port_notaport_prints_that_sentence_and_exits_2() -> None:
    ran = start("notaport")
    assert ran.returncode == 2
    assert ran.stderr.strip() == "PORT must be a TCP port number from 1 to 65535, got 'notaport'"
    assert ran.stdout == ""


def test_make_dev_with_a_reload_that_is_not_on_or_off_prints_one_sentence_and_exits_2() -> None:
    ran = start(str(free_port()), RELOAD="sometimes")
    assert ran.returncode == 2
    assert ran.stderr.strip() == "RELOAD must be 1 (restart on changes) or 0 (serve once), got 'sometimes'"
    assert ran.stdout == ""


def test_a_busy_port_is_one_sentence_suggesting_another_and_starts_nothing() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        ran = start(str(port))
    assert ran.returncode == 2
    assert ran.stderr.strip() == (
        f"port {port} on 127.0.0.1 is already in use (another `make dev`?): stop it, or choose another port, "
        f"e.g. PORT={port + 1} make dev"
    )
    assert "Traceback" not in ran.stderr + ran.stdout
    assert "AWS (moto)" not in ran.stdout
