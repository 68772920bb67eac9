"""The endpoint's steps, in the order a request meets them (endpoint.py composes them): screen (the refusals that
need no caller: method, Host, Origin, size, media types, JSON and JSON-RPC shape), identify (the caller and the
session), dispatch (a cached answer, the MCP server, the streams of resumed calls) and reply (the HTTP reply)."""
