"""This repository's stack: one `WidgetMcpService`, the toolkit's construct, serving the toolkit's registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aws_cdk as cdk
from constructs import Construct
from widget_mcp.cdk import ServiceOptions, WidgetMcpService
from widget_mcp.local.paths import TOOLKIT_BUNDLES

# This checkout's widget_bundles/dist.
BUNDLE_DIR = TOOLKIT_BUNDLES


class WidgetMcpStack(cdk.Stack):
    """The stack `make deploy` deploys (`WidgetMcp` unless `-c stackName=…`)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: ServiceOptions,
        bundle_dir: Path = BUNDLE_DIR,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, description="widget-mcp: widget-backed MCP tools", **kwargs)
        # `Default` leaves the construct out of every logical id: the resources keep the ids they had when the stack
        # held them itself, so a deploy never replaces the table or the bucket.
        self.service = WidgetMcpService(self, "Default", options=config, bundle_dir=bundle_dir)
