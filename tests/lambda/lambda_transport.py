"""An HTTP transport for the official MCP client that delivers each request to the Lambda handler as an
API Gateway v2 event, so the client talks to the handler exactly as it would through API Gateway."""

from __future__ import annotations

import base64

import anyio.to_thread
import httpx2
from apigw_events import Context, Handler, v2

HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
URL = f"https://{HOST}/mcp"


class LambdaTransport(httpx2.AsyncBaseTransport):
    def __init__(self, handler: Handler) -> None:
        self._handler = handler

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = (await request.aread()).decode()
        headers = {name.lower(): value for name, value in request.headers.items()}
        event = v2(body, method=request.method, path=request.url.path, headers=headers)
        # The handler runs its own event loop, as in Lambda; keep it off the client's loop.
        reply = await anyio.to_thread.run_sync(self._handler, event, Context())
        content = reply.get("body") or ""
        raw = base64.b64decode(content) if reply.get("isBase64Encoded") else content.encode()
        return httpx2.Response(reply["statusCode"], headers=reply.get("headers") or {}, content=raw)


def lambda_http_client(handler: Handler) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=LambdaTransport(handler), timeout=30)
