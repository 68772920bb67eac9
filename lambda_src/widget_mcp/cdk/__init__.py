"""widget-mcp on AWS as a CDK construct (the `cdk` extra: aws-cdk-lib, constructs, cdk-nag).

In a CDK app::

    from widget_mcp.cdk import WidgetMcpService, options_from_context

    WidgetMcpService(stack, "Service", apps=["weather"], options=options_from_context(app.node, apps=["weather"]))

Never part of the Lambda asset: the function imports nothing from here.
"""

from widget_mcp.cdk.config import CustomDomain, ServiceOptions, options_from_context
from widget_mcp.cdk.context_values import ConfigError
from widget_mcp.cdk.service import WidgetMcpService
from widget_mcp.lambda_asset.source import LambdaSource

__all__ = ["ConfigError", "CustomDomain", "LambdaSource", "ServiceOptions", "WidgetMcpService", "options_from_context"]
