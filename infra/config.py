"""Deployment choices, read from CDK context (`cdk deploy -c stage=prod -c apiDomainName=…`), validated once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_logs as logs
from constructs import Node

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


class ConfigError(ValueError):
    """A context value is missing, malformed or inconsistent; the message names the key."""


@dataclass(frozen=True)
class CustomDomain:
    """A domain name and the ACM certificate that covers it."""

    name: str
    certificate_arn: str


@dataclass(frozen=True)
class StackConfig:
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
    # OAuth sign-in through a Cognito user pool (infra/sign_in.py); off by default.
    sign_in: bool = False
    # The hosted sign-in domain's prefix (unique per region); defaults to one per stack (sign_in.default_domain_prefix).
    sign_in_domain_prefix: str | None = None
    # Where Cognito may send users back after sign-in, besides ChatGPT's redirect.
    sign_in_callback_urls: tuple[str, ...] = ()
    # Browser origins of web-based MCP hosts allowed to call /mcp cross-origin (the function's CORS_ORIGINS).
    cors_origins: tuple[str, ...] = ()
    # What a call without identity may do with state (the function's ANONYMOUS_STATE); None keeps its default.
    anonymous_state: str | None = None

    @property
    def removal_policy(self) -> cdk.RemovalPolicy:
        return cdk.RemovalPolicy.RETAIN if self.retain_data else cdk.RemovalPolicy.DESTROY

    @property
    def log_retention(self) -> logs.RetentionDays:
        return RETENTION[self.log_retention_days]

    @classmethod
    def from_context(cls, node: Node) -> StackConfig:
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
        return cls(
            stage=stage,
            retain_data=prod if removal is None else removal == "retain",
            deletion_protection=_flag(get("deletionProtection"), default=prod, key="deletionProtection"),
            api_domain=_domain(get, "api"),
            widget_cdn_domain=widget_cdn,
            widget_domain=widget_domain,
            log_retention_days=days,
            snap_start=_flag(get("snapStart"), default=True, key="snapStart"),
            api_throttle=(
                _count(get("apiRateLimit"), key="apiRateLimit") or 50,
                _count(get("apiBurstLimit"), key="apiBurstLimit") or 100,
            ),
            reserved_concurrency=_reserved(get("reservedConcurrency")),
            sign_in=_flag(get("signIn"), default=False, key="signIn"),
            sign_in_domain_prefix=_prefix(get("signInDomainPrefix")),
            sign_in_callback_urls=_urls(get("signInCallbackUrls"), key="signInCallbackUrls"),
            cors_origins=_origins(get("corsOrigins")),
            anonymous_state=_choice(get("anonymousState"), ANONYMOUS_STATES, key="anonymousState"),
        )


def _flag(value: object, *, default: bool, key: str) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    raise ConfigError(f"{key} must be true or false, got {value!r}")


def _choice(value: object, choices: tuple[str, ...], *, key: str) -> str | None:
    if value is None:
        return None
    if value not in choices:
        raise ConfigError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


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


def _urls(value: object, *, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else str(value).split(",")
    urls = tuple(str(u).strip() for u in items if str(u).strip())
    for url in urls:
        if not (url.startswith("https://") or url.startswith(("http://localhost", "http://127.0.0.1"))):
            raise ConfigError(f"{key} must list https URLs (http only for localhost), got {url!r}")
    return urls


def _origins(value: object) -> tuple[str, ...]:
    """`corsOrigins`: https origins, or http on loopback (a host under development); `:*` for any port."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else str(value).split(",")
    origins = tuple(str(o).strip().rstrip("/") for o in items if str(o).strip())
    loopback = re.compile(r"http://(localhost|127\.0\.0\.1|\[::1\])(:(\d{1,5}|\*))?")
    exact = re.compile(r"https://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:(\d{1,5}|\*))?", re.IGNORECASE)
    for origin in origins:
        if not (exact.fullmatch(origin) or loopback.fullmatch(origin)):
            raise ConfigError(
                "corsOrigins must list origins such as https://host.example.com (http only for localhost; "
                f"no path, ':*' for any port), got {origin!r}"
            )
    return origins


def _count(value: object, *, key: str) -> int | None:
    if value is None:
        return None
    text = str(value)
    if isinstance(value, bool) or not text.isdigit() or int(text) < 1:
        raise ConfigError(f"{key} must be a whole number of at least 1, got {value!r}")
    return int(text)


def _reserved(value: object) -> int | None:
    """`reservedConcurrency`: a whole number, or `none` to leave the function on the account's unreserved pool."""
    if value is None:
        return DEFAULT_RESERVED_CONCURRENCY
    if str(value).lower() == "none":
        return None
    try:
        return _count(value, key="reservedConcurrency")
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
