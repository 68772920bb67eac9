"""The stack: one construct per capability, wired together, and the outputs a deployer needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aws_cdk as cdk
from constructs import Construct
from widget_mcp.publishing.legal import Deployment, legal_pages
from widget_mcp.settings import Settings

from infra.alarms import Alarms, Watched
from infra.config import StackConfig
from infra.dashboard import OperationsDashboard
from infra.log_queries import SavedQueries
from infra.mcp_api import McpApi
from infra.served_apps import serve_tasks, served_books, served_tools
from infra.shared_secrets import SharedSecrets
from infra.sign_in import SignIn, default_domain_prefix
from infra.state_table import StateTable
from infra.widget_cdn import WidgetCdn

BUNDLE_DIR = Path(__file__).resolve().parents[1] / "widget_bundles" / "dist"


class WidgetMcpStack(cdk.Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: StackConfig,
        bundle_dir: Path = BUNDLE_DIR,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, description="widget-mcp: widget-backed MCP tools", **kwargs)
        state = StateTable(
            self, "State", removal_policy=config.removal_policy, deletion_protection=config.deletion_protection
        )
        cdn = WidgetCdn(
            self,
            "WidgetCdn",
            bundle_dir=bundle_dir,
            removal_policy=config.removal_policy,
            domain=config.widget_cdn_domain,
            legal_pages=legal_pages(served_books(config.apps), _deployment(config)),
        )
        sign_in = None
        if config.sign_in:
            sign_in = SignIn(
                self,
                "SignIn",
                domain_prefix=config.sign_in_domain_prefix or default_domain_prefix(self.stack_name, self.account),
                callback_urls=list(config.callback_urls),
                removal_policy=config.removal_policy,
            )
        keys = SharedSecrets(self, "Keys", removal_policy=config.removal_policy, existing=dict(config.existing_secrets))
        api = McpApi(
            self,
            "McpApi",
            table=state.table,
            widget_base_url=cdn.base_url,
            widget_domain=config.widget_domain,
            removal_policy=config.removal_policy,
            log_retention=config.log_retention,
            bundle_manifest=cdn.manifest,
            snap_start=config.snap_start,
            domain=config.api_domain,
            throttle=config.api_throttle,
            reserved_concurrency=config.reserved_concurrency,
            sign_in=sign_in,
            cors_origins=config.cors_origins,
            anonymous_state=config.anonymous_state,
            resumable_streams=config.resumable_streams,
            secrets=keys.refs,
            function_limits={**config.function_limits, **config.directory_tokens, **config.profile_environment},
            task_rounds=serve_tasks(config.apps),
        )
        if config.monitoring:
            self._operations(config, api, state)
        cdk.CfnOutput(self, "McpUrl", value=api.mcp_url, description="paste into ChatGPT: Settings → Apps")
        cdk.CfnOutput(self, "WidgetBaseUrl", value=cdn.base_url, description="origin and path of the bundles")
        cdk.CfnOutput(self, "TableName", value=state.table.table_name, description="the apps' state table")
        host_token_secret = keys.arn_of("HOST_TOKEN_SECRET_ARN")
        if host_token_secret is not None:
            # The ARN, never the value: the deployer reads the value with their own credentials (infra/README.md).
            cdk.CfnOutput(
                self,
                "HostTokenSecretArn",
                value=host_token_secret,
                description="the secret whose value goes in Open WebUI's HOST_TOKEN_SECRET valve (infra/README.md)",
            )
        if sign_in is not None:
            cdk.CfnOutput(self, "SignInUrl", value=sign_in.base_url, description="Cognito's hosted sign-in")
            cdk.CfnOutput(self, "UserPoolId", value=sign_in.pool.user_pool_id, description="manage users here")
        if config.widget_cdn_domain:
            cdk.CfnOutput(self, "WidgetDomainTarget", value=cdn.distribution.distribution_domain_name)
        for page, url in cdn.legal_urls.items():
            # The directories' forms and `make submission PAGES=…` take these (infra/README.md, "Publish").
            cdk.CfnOutput(self, f"{page.title()}Url", value=url, description=f"the {page} page, for the directories")

    def _operations(self, config: StackConfig, api: McpApi, state: StateTable) -> None:
        watched = Watched(endpoint=api, table=state.table, tools=served_tools(config.apps))
        alarms = Alarms(self, "Alarms", watched=watched, email=config.alarm_email, removal_policy=config.removal_policy)
        OperationsDashboard(self, "Dashboard", watched=watched, alarms=alarms)
        SavedQueries(self, "Queries", function_logs=api.function_logs, access_logs=api.access_logs)
        cdk.CfnOutput(self, "AlarmTopicArn", value=alarms.topic.topic_arn, description="every alarm; subscribe here")


def _deployment(config: StackConfig) -> Deployment:
    """What the privacy page says the deployment keeps: the log retention, rate window and sign-in this stack sets."""
    limits = config.function_limits
    defaults = Settings.model_fields
    calls = int(limits.get("RATE_LIMIT_CALLS", defaults["rate_limit_calls"].default))
    window = int(limits.get("RATE_LIMIT_WINDOW_SECONDS", defaults["rate_limit_window_seconds"].default))
    return Deployment(
        publisher=config.publisher or Deployment.publisher,
        contact=config.support_contact or "",
        log_retention_days=config.log_retention_days,
        rate_window_seconds=window,
        rate_limited=calls > 0,
        sign_in=config.sign_in,
    )
