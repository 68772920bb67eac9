"""HTTP transport for the MCP endpoint: one JSON-RPC exchange per POST, no sessions."""
