"""A deployment's choices (`ServiceOptions`): typed for a CDK app that sets them in code, or read from CDK context
(`cdk deploy -c stage=prod -c apiDomainName=…`) and validated once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_logs as logs
from constructs import Node

from widget_mcp.apps.registry import app_name
from widget_mcp.cdk import publish_context as published
from widget_mcp.cdk.context_values import EMAIL, ConfigError, choice, count, flag, items, switch, urls
from widget_mcp.cdk.function_context import existing_secrets, function_limits
from widget_mcp.cdk.oauth_callbacks import DEFAULT_PRESETS, PresetError, callbacks_of
from widget_mcp.cdk.served_apps import registry_of

# Days → CloudWatch Logs retention; the API accepts only these values.
RETENTION = {
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    90: logs.RetentionDays.THREE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
}


# The function's ANONYMOUS_STATE values (widget_mcp.settings): state by capability id, or identity_required.
ANONYMOUS_STATES = ("capability", "refuse")

# Concurrent executions reserved for (and capping) the function unless `-c reservedConcurrency=…` says otherwise: what
# the default API throttle (50 requests per second) needs when every call runs the 2 s of work a request may take, and
# no more, so one stack can never take the account's whole regional pool (1,000 by default) from its other functions.
# Lambda keeps at least 100 executions unreserved per account, so an account whose limit is under 200 (new accounts
# may start at 10) cannot reserve it: deploy those with `-c reservedConcurrency=none` (infra/README.md).
DEFAULT_RESERVED_CONCURRENCY = 100


@dataclass(frozen=True)
class CustomDomain:
    """A domain name and the ACM certificate that covers it."""

    name: str
    certificate_arn: str


@dataclass(frozen=True)
class ServiceOptions:
    """Every choice a deployment of `WidgetMcpService` makes, each the field of a `-c` context key (infra/README.md):
    set them in code (`ServiceOptions(sign_in=True, stage="prod")`) or read them with `options_from_context`. The
    defaults are a development deployment's: data destroyed with the stack, SnapStart, monitoring, host tokens on."""

    stage: str = "dev"
    retain_data: bool = False
    deletion_protection: bool = False
    api_domain: CustomDomain | None = None
    widget_cdn_domain: CustomDomain | None = None
    # `openai/widgetDomain` for ChatGPT submission; defaults to the custom widget domain's origin.
    widget_domain: str | None = None
    log_retention_days: int = 30
    # SnapStart for Python bills the cached snapshot per GB-second while the version exists (the main cost at rest).
    snap_start: bool = True
    # Requests per second (steady, burst) the API lets through to /mcp: a ceiling on what a runaway client can cost.
    api_throttle: tuple[int, int] = (50, 100)
    # Concurrent executions set aside for (and capping) the function; None leaves it on the account's pool.
    reserved_concurrency: int | None = DEFAULT_RESERVED_CONCURRENCY
    # OAuth sign-in through a Cognito user pool (cdk/sign_in.py); off by default.
    sign_in: bool = False
    # The hosted sign-in domain's prefix (unique per region); defaults to one per stack (sign_in.default_domain_prefix).
    sign_in_domain_prefix: str | None = None
    # Where Cognito may send users back after sign-in, besides the presets' callbacks.
    sign_in_callback_urls: tuple[str, ...] = ()
    # The hosts whose callbacks are listed by name (cdk/oauth_callbacks.py): `-c oauthCallbacks=chatgpt,claude`.
    oauth_callback_presets: tuple[str, ...] = DEFAULT_PRESETS

    @property
    def callback_urls(self) -> tuple[str, ...]:
        """The presets' callbacks, then the listed ones, each once."""
        preset = callbacks_of(self.oauth_callback_presets)
        return (*preset, *(url for url in self.sign_in_callback_urls if url not in preset))

    # Browser origins of web-based MCP hosts allowed to call /mcp cross-origin (the function's CORS_ORIGINS).
    cors_origins: tuple[str, ...] = ()
    # What a call without identity may do with state (the function's ANONYMOUS_STATE); None keeps its default.
    anonymous_state: str | None = None
    # Let MCP 2025-11-25 clients answer a tool's input requests by resuming the call's stream with GET /mcp
    # (the function's RESUMABLE_STREAMS); on by default, `-c resumableStreams=off` turns them off.
    resumable_streams: bool = True
    # Alarms (into one SNS topic), a dashboard and saved log queries (infra/README.md, "Operations"); on by default,
    # `-c monitoring=off` leaves them out.
    monitoring: bool = True
    # An address the alarm topic mails (it confirms the subscription first); `-c alarmEmail=ops@example.com`.
    alarm_email: str | None = None
    # Limits set by context, as the function's variables (`QUOTA_LIVE_GAMES` → "500"); the rest keep their defaults.
    function_limits: dict[str, str] = field(default_factory=dict)
    # Secrets the deployer keeps: variable → ARN, or None for a key left out (cdk/function_context.py); the
    # others are made.
    existing_secrets: dict[str, str | None] = field(default_factory=dict)
    # The apps the function serves, as registry entries (`-c apps=chess,forms` names them); None: every registered
    # app. What they declare decides what the stack grants.
    apps: tuple[str, ...] | None = None
    # The directories' ownership proofs served at /.well-known/ (docs/publish.md): variable → token.
    directory_tokens: dict[str, str] = field(default_factory=dict)
    # `-c release=1.2.0` pins template URIs to the release (the function's WIDGET_RELEASE); None: content hashes.
    release: str | None = None
    # Who the legal pages name (`-c publisherName=…`) and where they send users (`-c supportContact=` an email
    # address or an https URL); unset, the pages say "the publisher" and point to the directory listing's contact.
    publisher: str | None = None
    support_contact: str | None = None

    @property
    def profile_environment(self) -> dict[str, str]:
        """The function's APPS and WIDGET_RELEASE, only where the context sets them."""
        env = {"APPS": ",".join(app_name(entry) for entry in self.apps)} if self.apps is not None else {}
        if self.release:
            env["WIDGET_RELEASE"] = self.release
        return env

    @property
    def removal_policy(self) -> cdk.RemovalPolicy:
        """RETAIN for kept data (`stage=prod`, `removalPolicy=retain`), else DESTROY."""
        return cdk.RemovalPolicy.RETAIN if self.retain_data else cdk.RemovalPolicy.DESTROY

    @property
    def log_retention(self) -> logs.RetentionDays:
        """The log groups' retention, as CloudWatch Logs takes it."""
        return RETENTION[self.log_retention_days]

    @classmethod
    def from_context(cls, node: Node, *, apps: Sequence[str] | None = None) -> ServiceOptions:
        """The choices `node`'s CDK context makes (`-c key=value`, cdk.json, cdk.context.json); ConfigError names a
        bad key. `apps`: the app packages the function registers, as `WidgetMcpService` is given them (None: the
        toolkit's registry), against which `-c apps=…` is checked."""

        def get(key: str) -> Any:
            return node.try_get_context(key)

        stage = str(get("stage") or "dev")
        prod = stage == "prod"
        removal = get("removalPolicy")
        if removal not in (None, "retain", "destroy"):
            raise ConfigError(f"removalPolicy must be 'retain' or 'destroy', got {removal!r}")
        widget_cdn = _domain(get, "widget")
        widget_domain = get("widgetDomain") or (f"https://{widget_cdn.name}" if widget_cdn else None)
        days = int(get("logRetentionDays") or 30)
        if days not in RETENTION:
            raise ConfigError(f"logRetentionDays must be one of {sorted(RETENTION)}, got {days}")
        sign_in = flag(get("signIn"), default=False, key="signIn")
        secrets = existing_secrets(get)
        if sign_in:
            # Signed in, only OAuth tokens name users: the function refuses host tokens, so it needs no such secret.
            if secrets.get("HOST_TOKEN_SECRET_ARN") is not None:
                raise ConfigError("hostTokenSecretArn has no use with signIn=true: host tokens are refused there")
            secrets["HOST_TOKEN_SECRET_ARN"] = None
        monitoring = switch(get("monitoring"), default=True, key="monitoring")
        alarm_email = _email(get("alarmEmail"))
        if alarm_email and not monitoring:
            raise ConfigError("alarmEmail has no use with monitoring=off: there are no alarms to mail")
        return cls(
            stage=stage,
            retain_data=prod if removal is None else removal == "retain",
            deletion_protection=flag(get("deletionProtection"), default=prod, key="deletionProtection"),
            api_domain=_domain(get, "api"),
            widget_cdn_domain=widget_cdn,
            widget_domain=widget_domain,
            log_retention_days=days,
            snap_start=flag(get("snapStart"), default=True, key="snapStart"),
            api_throttle=(
                count(get("apiRateLimit"), key="apiRateLimit") or 50,
                count(get("apiBurstLimit"), key="apiBurstLimit") or 100,
            ),
            reserved_concurrency=_reserved(get("reservedConcurrency")),
            sign_in=sign_in,
            sign_in_domain_prefix=_prefix(get("signInDomainPrefix")),
            sign_in_callback_urls=urls(get("signInCallbackUrls"), key="signInCallbackUrls"),
            oauth_callback_presets=_presets(get("oauthCallbacks")),
            cors_origins=_origins(get("corsOrigins")),
            anonymous_state=choice(get("anonymousState"), ANONYMOUS_STATES, key="anonymousState"),
            resumable_streams=switch(get("resumableStreams"), default=True, key="resumableStreams"),
            monitoring=monitoring,
            alarm_email=alarm_email,
            function_limits=function_limits(get),
            existing_secrets=secrets,
            directory_tokens=published.directory_tokens(get),
            apps=published.served_apps(get("apps"), registry_of(apps)),
            release=published.release(get("release")),
            publisher=published.publisher(get("publisherName")),
            support_contact=published.support_contact(get("supportContact")),
        )


def options_from_context(node: Node, *, apps: Sequence[str] | None = None) -> ServiceOptions:
    """`ServiceOptions.from_context`: what a generated project's CDK app calls, so it takes the same `-c` keys."""
    return ServiceOptions.from_context(node, apps=apps)


def _email(value: object) -> str | None:
    """`alarmEmail`: one address, which SNS mails a confirmation before any alarm."""
    if value is None:
        return None
    text = str(value).strip()
    if not EMAIL.fullmatch(text) or len(text) > 254:
        raise ConfigError(f"alarmEmail must be one email address such as ops@example.com, got {value!r}")
    return text


def _prefix(value: object) -> str | None:
    if value is None:
        return None
    text = str(value)
    reserved = ("aws", "amazon", "cognito")
    if not re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", text) or any(word in text for word in reserved):
        raise ConfigError(
            "signInDomainPrefix must be lower-case letters, digits and hyphens without 'aws', 'amazon' or "
            f"'cognito', got {value!r}"
        )
    return text


def _presets(value: object) -> tuple[str, ...]:
    """`oauthCallbacks`: preset names (`chatgpt`, `chatgpt:<callback id>`, `claude`), comma-separated or a list."""
    if value is None:
        return DEFAULT_PRESETS
    presets = tuple(items(value))
    try:
        callbacks_of(presets)
    except PresetError as exc:
        raise ConfigError(f"oauthCallbacks: {exc}") from exc
    return presets


def _origins(value: object) -> tuple[str, ...]:
    """`corsOrigins`: https origins, or http on loopback (a host under development); `:*` for any port."""
    if value is None:
        return ()
    origins = tuple(origin.rstrip("/") for origin in items(value))
    loopback = re.compile(r"http://(localhost|127\.0\.0\.1|\[::1\])(:(\d{1,5}|\*))?")
    exact = re.compile(r"https://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:(\d{1,5}|\*))?", re.IGNORECASE)
    for origin in origins:
        if not (exact.fullmatch(origin) or loopback.fullmatch(origin)):
            raise ConfigError(
                "corsOrigins must list origins such as https://host.example.com (http only for localhost; "
                f"no path, ':*' for any port), got {origin!r}"
            )
    return origins


def _reserved(value: object) -> int | None:
    """`reservedConcurrency`: a whole number, or `none` to leave the function on the account's unreserved pool."""
    if value is None:
        return DEFAULT_RESERVED_CONCURRENCY
    if str(value).lower() == "none":
        return None
    try:
        return count(value, key="reservedConcurrency")
    except ConfigError as exc:
        raise ConfigError(f"{exc} ('none' leaves the function on the account's unreserved pool)") from None


def _domain(get: Any, prefix: str) -> CustomDomain | None:
    name, arn = get(f"{prefix}DomainName"), get(f"{prefix}CertificateArn")
    if not name and not arn:
        return None
    if not (name and arn):
        raise ConfigError(f"{prefix}DomainName and {prefix}CertificateArn go together; set both or neither")
    if not str(arn).startswith("arn:aws") or ":acm:" not in str(arn):
        raise ConfigError(f"{prefix}CertificateArn must be an ACM certificate ARN, got {arn!r}")
    return CustomDomain(str(name), str(arn))
