"""WidgetMcpService: the whole deployment as one construct a CDK app instantiates (state table, widget CDN, sign-in,
keys, the MCP API, operations, outputs), one construct per capability inside it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import aws_cdk as cdk
from constructs import Construct

from widget_mcp.cdk.alarms import Alarms, Watched
from widget_mcp.cdk.config import ServiceOptions
from widget_mcp.cdk.dashboard import OperationsDashboard
from widget_mcp.cdk.log_queries import SavedQueries
from widget_mcp.cdk.mcp_api import McpApi
from widget_mcp.cdk.served_apps import registry_of, serve_tasks, served_books, served_tools
from widget_mcp.cdk.shared_secrets import SharedSecrets
from widget_mcp.cdk.sign_in import SignIn, default_domain_prefix
from widget_mcp.cdk.state_table import StateTable
from widget_mcp.cdk.widget_cdn import WidgetCdn
from widget_mcp.lambda_asset.source import LambdaSource
from widget_mcp.local.paths import WIDGET_DIST
from widget_mcp.publishing.legal import Deployment, legal_pages
from widget_mcp.settings import Settings


class WidgetMcpService(Construct):
    """widget-mcp on AWS: the MCP endpoint (API Gateway HTTP API → Lambda with SnapStart), its DynamoDB state table,
    the widget bundles on CloudFront, the function's keys, with `options.sign_in` a Cognito user pool, and with
    `options.monitoring` alarms, a dashboard and saved log queries; the stack outputs `McpUrl` and the rest.

    - `options`: every deployment choice (`ServiceOptions`, or `options_from_context(app.node)` for `-c` keys).
    - `apps`: the app packages the function serves, as import paths (`["weather"]`), set as its WIDGET_MCP_APPS
      (the toolkit's own my-data app is served beside them); None serves the toolkit's registry.
    - `bundle_dir`: the built widget bundles (a dist folder with manifest.json); by default the folder the
      WIDGET_DIST variable names (a project's merged bundles), else the toolkit's own.
    - `lambda_source`: what the function's code is built from; by default the project in the working directory
      with `apps`, or this checkout of the toolkit without them.

    Given the id `Default`, the resources' logical ids are those the stack would give them directly, so a stack
    that used to hold them keeps its table and bucket.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        options: ServiceOptions | None = None,
        apps: Sequence[str] | None = None,
        bundle_dir: Path | None = None,
        lambda_source: LambdaSource | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        options = options or ServiceOptions()
        apps = tuple(apps) if apps is not None else None
        if apps is not None and lambda_source is None:
            lambda_source = LambdaSource.project(Path.cwd(), apps=apps)
        self.options = options
        self.served = _served(options, apps)
        bundle_dir = bundle_dir if bundle_dir is not None else WIDGET_DIST
        stack = cdk.Stack.of(self)
        self.state = StateTable(
            self, "State", removal_policy=options.removal_policy, deletion_protection=options.deletion_protection
        )
        self.cdn = WidgetCdn(
            self,
            "WidgetCdn",
            bundle_dir=bundle_dir,
            removal_policy=options.removal_policy,
            domain=options.widget_cdn_domain,
            legal_pages=legal_pages(served_books(self.served), _deployment(options)),
        )
        self.sign_in: SignIn | None = None
        if options.sign_in:
            self.sign_in = SignIn(
                self,
                "SignIn",
                domain_prefix=options.sign_in_domain_prefix or default_domain_prefix(stack.stack_name, stack.account),
                callback_urls=list(options.callback_urls),
                removal_policy=options.removal_policy,
            )
        self.keys = SharedSecrets(
            self, "Keys", removal_policy=options.removal_policy, existing=dict(options.existing_secrets)
        )
        registered = {"WIDGET_MCP_APPS": ",".join(apps)} if apps is not None else {}
        self.api = McpApi(
            self,
            "McpApi",
            table=self.state.table,
            widget_base_url=self.cdn.base_url,
            widget_domain=options.widget_domain,
            removal_policy=options.removal_policy,
            log_retention=options.log_retention,
            bundle_manifest=self.cdn.manifest,
            snap_start=options.snap_start,
            domain=options.api_domain,
            throttle=options.api_throttle,
            reserved_concurrency=options.reserved_concurrency,
            sign_in=self.sign_in,
            cors_origins=options.cors_origins,
            anonymous_state=options.anonymous_state,
            resumable_streams=options.resumable_streams,
            secrets=self.keys.refs,
            function_limits={
                **options.function_limits,
                **options.directory_tokens,
                **options.profile_environment,
                **registered,
            },
            task_rounds=serve_tasks(self.served),
            lambda_source=lambda_source,
        )
        self.alarms: Alarms | None = None
        if options.monitoring:
            self._operations()
        self._outputs()

    @property
    def mcp_url(self) -> str:
        """What a host is given: `https://…/mcp` (a token until deploy)."""
        return self.api.mcp_url

    def _operations(self) -> None:
        watched = Watched(endpoint=self.api, table=self.state.table, tools=served_tools(self.served))
        options = self.options
        self.alarms = Alarms(
            self, "Alarms", watched=watched, email=options.alarm_email, removal_policy=options.removal_policy
        )
        OperationsDashboard(self, "Dashboard", watched=watched, alarms=self.alarms)
        SavedQueries(self, "Queries", function_logs=self.api.function_logs, access_logs=self.api.access_logs)
        cdk.CfnOutput(
            self, "AlarmTopicArn", value=self.alarms.topic.topic_arn, description="every alarm; subscribe here"
        )

    def _outputs(self) -> None:
        api, cdn, sign_in = self.api, self.cdn, self.sign_in
        cdk.CfnOutput(self, "McpUrl", value=api.mcp_url, description="paste into ChatGPT: Settings → Apps")
        cdk.CfnOutput(self, "WidgetBaseUrl", value=cdn.base_url, description="origin and path of the bundles")
        cdk.CfnOutput(self, "TableName", value=self.state.table.table_name, description="the apps' state table")
        host_token_secret = self.keys.arn_of("HOST_TOKEN_SECRET_ARN")
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
        if self.options.widget_cdn_domain:
            cdk.CfnOutput(self, "WidgetDomainTarget", value=cdn.distribution.distribution_domain_name)
        for page, url in cdn.legal_urls.items():
            # The directories' forms and `make submission PAGES=…` take these (infra/README.md, "Publish").
            cdk.CfnOutput(self, f"{page.title()}Url", value=url, description=f"the {page} page, for the directories")


def _served(options: ServiceOptions, apps: tuple[str, ...] | None) -> tuple[str, ...]:
    """The registry entries the function serves: those `options.apps` names (`options_from_context` checks them
    against the registry `apps` make), or that whole registry."""
    return registry_of(apps) if options.apps is None else options.apps


def _deployment(options: ServiceOptions) -> Deployment:
    """What the privacy page says the deployment keeps: the log retention, rate window and sign-in it sets."""
    limits = options.function_limits
    defaults = Settings.model_fields
    calls = int(limits.get("RATE_LIMIT_CALLS", defaults["rate_limit_calls"].default))
    window = int(limits.get("RATE_LIMIT_WINDOW_SECONDS", defaults["rate_limit_window_seconds"].default))
    return Deployment(
        publisher=options.publisher or Deployment.publisher,
        contact=options.support_contact or "",
        log_retention_days=options.log_retention_days,
        rate_window_seconds=window,
        rate_limited=calls > 0,
        sign_in=options.sign_in,
    )
