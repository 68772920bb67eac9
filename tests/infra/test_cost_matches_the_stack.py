"""`make cost` (bench/cost.py) prices the function at the stack's memory: it cannot import the CDK stack (make cost
installs no CDK), so its copy of the figure is held to the stack's here."""

from __future__ import annotations

from widget_mcp.cdk import mcp_api

from bench import cost


def test_make_cost_prices_the_function_at_the_memory_the_stack_gives_it() -> None:
    assert cost.MEMORY_MB == mcp_api.MEMORY_MB
