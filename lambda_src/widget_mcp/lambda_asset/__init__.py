"""The Lambda code asset, built without Docker from a project's uv.lock and its packages (`python -m
widget_mcp.lambda_asset.build`). A build tool: never part of the asset it builds."""
