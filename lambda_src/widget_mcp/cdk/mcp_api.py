"""The MCP API: the Lambda (SnapStart on a published alias) behind an API Gateway HTTP API."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import jsii
from aws_cdk import aws_apigateway as apigateway
from aws_cdk import aws_apigatewayv2 as apigw
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from widget_mcp.cdk.config import CustomDomain
from widget_mcp.cdk.function_telemetry import NAMESPACE, service_of
from widget_mcp.cdk.lambda_code import lambda_code
from widget_mcp.cdk.shared_secrets import SecretRef
from widget_mcp.cdk.sign_in import SignIn
from widget_mcp.lambda_asset.build import MANIFEST_NAME
from widget_mcp.lambda_asset.source import LambdaSource
from widget_mcp.lambda_asset.target import Target
from widget_mcp.toolkit.task_service import QUEUE_SLACK_SECONDS

HANDLER = "widget_mcp.handler.handler"
# CPU scales with memory; 1024 MB (~0.6 vCPU) keeps engine replies and restore fast at half the 1 vCPU price.
MEMORY_MB = 1024
# Above the worst case of a failing storage call (about 12 s, with botocore's retries; storage/dynamodb.py) plus
# the engine's budget, so the caller gets a retryable error; under the HTTP API's 30 s integration cap.
TIMEOUT = cdk.Duration.seconds(20)
LOG_LEVEL = "INFO"
# Requests per second (steady, burst) for the routes that only ever answer 405 or a health check; POST /mcp and
# the stage default take the deployer's `apiRateLimit`/`apiBurstLimit`, and so does GET /mcp with resumable
# streams on (each client waiting for a person's answer polls it).
SIDE_ROUTE_THROTTLE = {"GET /mcp": (5, 10), "DELETE /mcp": (5, 10), "GET /healthz": (5, 10)}
# Exactly what the storage adapter calls (widget_mcp/storage/dynamodb.py; tests/infra/test_least_privilege.py
# derives the list from it): strongly consistent reads, conditional puts (alone, or as the parts of a document's
# and its quota ledger's transaction, which IAM authorizes as PutItem), batched reads of known keys (a subscribed
# session's changes), the per-owner listing query, and the rate counters' conditional updates.
TABLE_ACTIONS = [
    "dynamodb:BatchGetItem",
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
]
# Deletes (erase_my_data: widget_mcp/storage/dynamodb_erase.py, alone or as the part of a transaction that also takes a
# counted document out of its quota ledger) are granted apart, and only on items whose partition is a user's or a
# capability's (`USER#…`): never a quota ledger's or a rate counter's (`LIMIT#…`), which a delete could reset.
DELETE_ACTIONS = ["dynamodb:DeleteItem"]
DELETE_PARTITIONS = ["USER#*"]
# A task's next round is an asynchronous invocation the function sends itself, through the alias it was invoked by
# (widget_mcp/task_invokers.py): never retried (a round's handler runs again from the top, so a retry could repeat
# what it did; a lost round is reported failed at its deadline), and dropped after the queue slack it is given.
TASK_ROUND_MAX_AGE = cdk.Duration.seconds(QUEUE_SLACK_SECONDS)
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "requestTime": "$context.requestTime",
        "routeKey": "$context.routeKey",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "latency": "$context.responseLatency",
        "integrationLatency": "$context.integrationLatency",
        "integrationError": "$context.integrationErrorMessage",
    }
)


@jsii.implements(apigw.IAccessLogSettings)
class _AccessLogs:
    """Access logs as JSON lines in a log group (the L2 takes them only through this interface)."""

    def __init__(self, log_group: logs.ILogGroup) -> None:
        self._destination = apigw.LogGroupLogDestination(log_group)

    @property
    def destination(self) -> apigw.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigateway.AccessLogFormat:
        return apigateway.AccessLogFormat.custom(ACCESS_LOG_FORMAT)


class McpApi(Construct):
    """The function (arm64, Python 3.13, SnapStart on its `live` alias, least privilege) behind an HTTP API whose
    every route is throttled, with JSON access logs."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        table: dynamodb.ITable,
        widget_base_url: str,
        widget_domain: str | None,
        removal_policy: cdk.RemovalPolicy,
        log_retention: logs.RetentionDays,
        bundle_manifest: Path | None = None,
        snap_start: bool = True,
        domain: CustomDomain | None = None,
        throttle: tuple[int, int] = (50, 100),
        reserved_concurrency: int | None = None,
        sign_in: SignIn | None = None,
        cors_origins: tuple[str, ...] = (),
        anonymous_state: str | None = None,
        secrets: tuple[SecretRef, ...] = (),
        function_limits: dict[str, str] | None = None,
        resumable_streams: bool = True,
        task_rounds: bool = False,
        lambda_source: LambdaSource | None = None,
    ) -> None:
        """`task_rounds`: some app declares a tool that may run as a task (cdk/served_apps.py), whose
        rounds the function sends itself through its `live` alias; only then may it invoke that alias.
        `lambda_source`: what the function's code is built from (by default this checkout of the toolkit)."""
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        retention = log_retention
        self.api = apigw.HttpApi(self, "Api", description="widget-mcp MCP endpoint", create_default_stage=False)
        hosts = [f"{self.api.api_id}.execute-api.{stack.region}.{stack.url_suffix}"]
        if domain:
            hosts.append(domain.name)
        base = f"https://{domain.name}" if domain else self.api.api_endpoint
        self.mcp_url = f"{base}/mcp"

        fn_logs = logs.LogGroup(self, "FunctionLogs", retention=retention, removal_policy=removal_policy)
        self.function_logs = fn_logs
        role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="widget-mcp function: its own log group, the state table's items and its keys, nothing else",
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"], resources=[fn_logs.log_group_arn]
            )
        )
        role.add_to_policy(iam.PolicyStatement(actions=TABLE_ACTIONS, resources=[table.table_arn]))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=DELETE_ACTIONS,
                resources=[table.table_arn],
                conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": DELETE_PARTITIONS}},
            )
        )
        for secret in secrets:  # read by ARN on first use (widget_mcp.secrets), one action on that secret alone
            secret.grant(role)

        self.service = service_of(cdk.Stack.of(self).stack_name)
        env = {
            "TABLE_NAME": table.table_name,
            "WIDGET_BASE_URL": widget_base_url,
            "ALLOWED_HOSTS": ",".join(hosts),
            "LOG_LEVEL": LOG_LEVEL,
            # The alarms and the dashboard read the metrics under these names (cdk/function_telemetry.py); the
            # service is the stack's, so another stack in the account never adds to this one's tool metrics.
            "POWERTOOLS_SERVICE_NAME": self.service,
            "POWERTOOLS_METRICS_NAMESPACE": NAMESPACE,
            # One round of a task's work must end within the function's timeout.
            "TASK_WORK_SECONDS": str(int(TIMEOUT.to_seconds())),
        }
        if bundle_manifest is not None:
            env["WIDGET_MANIFEST"] = f"/var/task/{MANIFEST_NAME}"  # packaged beside the code by the asset build
        if widget_domain:
            env["WIDGET_DOMAIN"] = widget_domain
        if cors_origins:
            env["CORS_ORIGINS"] = ",".join(cors_origins)
        if anonymous_state is not None:
            env["ANONYMOUS_STATE"] = anonymous_state  # unset, the function's default (capability) applies
        # 2025-11-25 clients resume a call that asks for input with GET /mcp and Last-Event-ID. Said either way, so
        # the deployment does what its context says whatever the function's own default.
        env["RESUMABLE_STREAMS"] = "true" if resumable_streams else "false"
        env.update(function_limits or {})  # only those the context sets: the others keep the function's defaults
        env.update({secret.variable: secret.arn for secret in secrets})
        if sign_in is not None:
            sign_in.protect(self.mcp_url)
            env.update(self._sign_in_env(sign_in, base))
        self.function = lambda_.Function(
            self,
            "Function",
            description="widget-mcp MCP endpoint",
            runtime=lambda_.Runtime.PYTHON_3_13,
            architecture=lambda_.Architecture.ARM_64,
            handler=HANDLER,
            code=lambda_code(Target("arm64", "3.13", sign_in=sign_in is not None), bundle_manifest, lambda_source),
            memory_size=MEMORY_MB,
            timeout=TIMEOUT,
            role=role,
            environment=env,
            log_group=fn_logs,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if snap_start else None,
            reserved_concurrent_executions=reserved_concurrency,
            # Superseded versions are deleted, so no stale snapshot stays cached (and billed).
            current_version_options=lambda_.VersionOptions(removal_policy=cdk.RemovalPolicy.DESTROY),
        )
        cdk.Validations.of(self.function).acknowledge(
            cdk.Acknowledgment(
                id="Annotation::@aws-cdk/aws-lambda:snapStartRequirePublish",
                reason="A version is published (current_version) and the API invokes it through the 'live' alias.",
            ),
            cdk.Acknowledgment(
                id="AwsSolutions-L1",
                reason="Pinned to Python 3.13 on purpose: the asset's compiled wheels are built for cp313, and "
                "moving runtimes is a tested change of its own.",
            ),
        )
        self.reserved_concurrency = reserved_concurrency
        self.sign_in = sign_in
        self.cors_origins = cors_origins
        self.resumable_streams = resumable_streams
        # With host tokens on, Open WebUI's embedded widgets call /mcp from a sandboxed frame (`Origin: null`) with
        # the token header, so their browser preflights first; the function answers it (transport/host_identity.py).
        self.opaque_preflight = any(secret.variable == "HOST_TOKEN_SECRET_ARN" for secret in secrets)
        self.alias = lambda_.Alias(
            self,
            "Live",
            alias_name="live",
            version=self.function.current_version,
            retry_attempts=0,
            max_event_age=TASK_ROUND_MAX_AGE,
        )
        if task_rounds:
            # A policy of its own, not the role's default one: the function depends on that, and this names the alias.
            iam.Policy(
                self,
                "TaskRounds",
                roles=[role],
                statements=[
                    iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[self.alias.function_arn])
                ],
            )
        self._routes(apigw_integration=integrations.HttpLambdaIntegration("Mcp", self.alias))
        self._stage(retention, removal_policy, domain, throttle)

    def _routes(self, apigw_integration: apigw.HttpRouteIntegration) -> None:
        self.routes: list[apigw.HttpRoute] = []
        # GET/DELETE reach the function so clients get its 405 with Allow: POST, as the MCP contract says (API
        # Gateway would answer an unrouted method 404). With resumable streams on, a GET whose Last-Event-ID the
        # function issued resumes a call's stream there; any other GET still gets its 405.
        mcp = [apigw.HttpMethod.POST, apigw.HttpMethod.GET, apigw.HttpMethod.DELETE]
        # Browser hosts' preflights go to the function, which answers the listed origins only. API Gateway's own
        # CORS would answer every preflight itself, before the function can check the origin. A browser host
        # preflights the OAuth discovery and registration too, before its first call.
        preflight = [apigw.HttpMethod.OPTIONS] if self.cors_origins else []
        mcp_preflight = [apigw.HttpMethod.OPTIONS] if self.cors_origins or self.opaque_preflight else []
        self.routes += self.api.add_routes(path="/mcp", methods=mcp + mcp_preflight, integration=apigw_integration)
        self.routes += self.api.add_routes(
            path="/healthz", methods=[apigw.HttpMethod.GET], integration=apigw_integration
        )
        # OAuth metadata: the protected resource's, and with sign-in the authorization server's.
        self.routes += self.api.add_routes(
            path="/.well-known/{proxy+}", methods=[apigw.HttpMethod.GET, *preflight], integration=apigw_integration
        )
        if self.sign_in is not None:
            self.routes += self.api.add_routes(
                path="/oauth/register", methods=[apigw.HttpMethod.POST, *preflight], integration=apigw_integration
            )
            # A signed-in user's export (GET) and erasure (DELETE) of its data, by bearer token.
            self.routes += self.api.add_routes(
                path="/account/data",
                methods=[apigw.HttpMethod.GET, apigw.HttpMethod.DELETE],
                integration=apigw_integration,
            )
            # Clients identified by a metadata document sign in through these (widget_mcp.auth.client_flow).
            self.routes += self.api.add_routes(
                path="/oauth/authorize", methods=[apigw.HttpMethod.GET], integration=apigw_integration
            )
            self.routes += self.api.add_routes(
                path="/oauth/token", methods=[apigw.HttpMethod.POST, *preflight], integration=apigw_integration
            )
        for route in self.routes:
            cdk.Validations.of(route).acknowledge(
                cdk.Acknowledgment(
                    id="AwsSolutions-APIG4",
                    reason="The function authorizes each call itself: with sign-in it verifies the Cognito access "
                    "token per tool (public tools stay public, as MCP per-tool auth expects), without it the "
                    "endpoint is public by design; it checks Host and Origin, and the stage throttles every route.",
                )
            )

    def _sign_in_env(self, sign_in: SignIn, base: str) -> dict[str, str]:
        # The function is the authorization server clients see (metadata + registration); Cognito signs in.
        return {
            "AUTH_MODE": "oauth",
            "OAUTH_ISSUER": sign_in.issuer,
            # Cognito names the client in `client_id`, and the bound resource in `aud` when one was asked for.
            "OAUTH_AUDIENCE": f"{sign_in.client.user_pool_client_id},{sign_in.resource}",
            "OAUTH_RESOURCE": sign_in.resource,
            "OAUTH_SCOPE_PREFIX": sign_in.scope_prefix,
            "OAUTH_AUTHORIZATION_SERVER": base,
            "OAUTH_AUTHORIZE_URL": f"{sign_in.base_url}/oauth2/authorize",
            "OAUTH_TOKEN_URL": f"{sign_in.base_url}/oauth2/token",
            "OAUTH_REGISTRATION_CLIENT_ID": sign_in.client.user_pool_client_id,
            "OAUTH_REDIRECT_URIS": ",".join(sign_in.callback_urls),
        }

    def _stage(
        self,
        retention: logs.RetentionDays,
        removal: cdk.RemovalPolicy,
        domain: CustomDomain | None,
        throttle: tuple[int, int],
    ) -> None:
        access_logs = logs.LogGroup(self, "AccessLogs", retention=retention, removal_policy=removal)
        self.access_logs = access_logs
        mapping = None
        if domain:
            name = apigw.DomainName(
                self,
                "Domain",
                domain_name=domain.name,
                certificate=acm.Certificate.from_certificate_arn(self, "Certificate", domain.certificate_arn),
                security_policy=apigw.SecurityPolicy.TLS_1_2,
            )
            mapping = apigw.DomainMappingOptions(domain_name=name)
            cdk.CfnOutput(self, "ApiDomainTarget", value=name.regional_domain_name, description="CNAME/alias target")
        rate, burst = throttle
        stage = apigw.HttpStage(
            self,
            "Stage",
            http_api=self.api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigw.ThrottleSettings(rate_limit=rate, burst_limit=burst),
            access_log_settings=_AccessLogs(access_logs),
            domain_mapping=mapping,
        )
        cfn = stage.node.default_child
        assert isinstance(cfn, apigw.CfnStage)
        limits = {"POST /mcp": throttle, **SIDE_ROUTE_THROTTLE}
        if self.resumable_streams:
            limits["GET /mcp"] = throttle  # one poll per waiting client every 0.5-5 s (widget_mcp.transport.resumption)
        if self.cors_origins or self.opaque_preflight:
            limits["OPTIONS /mcp"] = throttle  # a browser host preflights before its calls (then caches it 2 h)
        if self.sign_in is not None:
            limits["POST /oauth/register"] = SIDE_ROUTE_THROTTLE["GET /healthz"]
            # Each may fetch a client's document (at most 32 KB, 3 s) or call Cognito's token endpoint.
            limits["GET /oauth/authorize"] = SIDE_ROUTE_THROTTLE["GET /healthz"]
            limits["POST /oauth/token"] = SIDE_ROUTE_THROTTLE["GET /healthz"]
            # A person's own export or erasure, now and then: never the stage's /mcp-sized default, so a flood of them
            # cannot take the reserved executions /mcp needs.
            limits["GET /account/data"] = limits["DELETE /account/data"] = SIDE_ROUTE_THROTTLE["GET /healthz"]
            if self.cors_origins:
                limits["OPTIONS /oauth/register"] = SIDE_ROUTE_THROTTLE["GET /healthz"]
        cfn.route_settings = {
            key: {"ThrottlingRateLimit": r, "ThrottlingBurstLimit": b} for key, (r, b) in limits.items()
        }
        for route in self.routes:  # route settings name routes, which must exist first
            stage.node.add_dependency(route)
