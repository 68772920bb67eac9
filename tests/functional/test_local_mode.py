"""`make dev`'s server as a user runs it: a separate process with moto embedded, stopped with Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from mcp import Client
from widget_mcp.local.aws import free_port

ROOT = Path(__file__).resolve().parents[2]


class DevServer:
    def __init__(self, proc: subprocess.Popen[str], base: str, aws: str, output: list[str]) -> None:
        self.proc, self.base, self.aws, self.output = proc, base, aws, output


@pytest.fixture
def dev_server() -> Iterator[DevServer]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "ALLOWED_HOSTS", "WIDGET_"))}
    env.update({"PORT": str(port), "PYTHONPATH": f"{ROOT / 'lambda_src'}", "TABLE_NAME": "dev-state"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "widget_mcp.local"],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    output: list[str] = []
    deadline = time.monotonic() + 30
    while not any("Press Ctrl-C" in line for line in output):
        line = proc.stdout.readline()
        if not line or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("dev server did not start:\n" + "".join(output))
        output.append(line)
    aws = re.search(r"AWS \(moto\)\s+(\S+)", "".join(output))
    assert aws is not None
    server = DevServer(proc, f"http://127.0.0.1:{port}", aws.group(1), output)
    try:
        yield server
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


async def test_dev_server_prints_its_urls_serves_mcp_and_stops_cleanly_on_ctrl_c(dev_server: DevServer) -> None:
    banner = "".join(dev_server.output)
    for url in ("/mcp", "/healthz", "/widgets/"):
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

    dev_server.proc.send_signal(signal.SIGINT)
    rest, _ = dev_server.proc.communicate(timeout=15)
    assert dev_server.proc.returncode == 0
    assert "Traceback" not in rest
    assert rest.strip().endswith("stopped")
