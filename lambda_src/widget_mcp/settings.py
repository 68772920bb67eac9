"""Runtime settings, read from the environment and validated once at cold start."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from widget_mcp.secrets import SECRET_ARN_PATTERN

# A release label as it appears in template URIs: dotted numbers, an optional lower-case suffix (`1.2.0-rc1`).
RELEASE_PATTERN = r"^[0-9]+(\.[0-9]+){0,3}(-[a-z0-9]{1,16})?$"


class SettingsError(ValueError):
    """A setting has a bad value; the message names the variable and the problem."""


class Settings(BaseModel):
    """Every knob the endpoint reads: the field name in upper case, or the alias where one is given.

    Values passed to the constructor win over the environment's. Environment values arrive as text and are
    parsed as the fields say; lists are comma-separated.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, validate_default=True)

    table_name: str = Field(default="widget-mcp-state", min_length=3, max_length=255)
    widget_base_url: str = Field(default="http://127.0.0.1:8000/widgets")
    widget_domain: str | None = None
    widget_manifest: str | None = None
    allowed_hosts: tuple[str, ...] = ("127.0.0.1:*", "localhost:*", "[::1]:*")
    # Browser origins allowed to call /mcp cross-origin (web-based MCP hosts); empty: no browser origin.
    cors_origins: tuple[str, ...] = ()
    # A call with no identity (no token, no host user hint) keeps state reachable by its unguessable id
    # (`capability`), or is refused with identity_required (`refuse`). Sign-in on always refuses.
    anonymous_state: Literal["capability", "refuse"] = "capability"
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024, le=6 * 1024 * 1024)
    max_json_depth: int = Field(default=64, ge=4, le=512)
    # Messages in one JSON-RPC batch (only 2025-03-26 and older clients send them); one tools/call among them.
    max_batch_messages: int = Field(default=8, ge=1, le=100)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    service_name: str = Field(default="widget-mcp", alias="POWERTOOLS_SERVICE_NAME")
    metrics_namespace: str = Field(default="WidgetMcp", alias="POWERTOOLS_METRICS_NAMESPACE")
    tracing: bool = False
    # Chess: the engine's budget per reply (whichever runs out first), and how long games are kept.
    chess_engine_max_nodes: int = Field(default=20_000, ge=100, le=1_000_000)
    chess_engine_max_seconds: float = Field(default=0.5, gt=0, le=10)
    chess_finished_ttl_days: int = Field(default=30, ge=1, le=3650)
    chess_idle_ttl_days: int = Field(default=90, ge=1, le=3650)
    # Forms: how long a form and its answers are kept after the last change.
    forms_ttl_days: int = Field(default=7, ge=1, le=365)
    # Forms: the evaluation steps checking one answer may take, and checking any one value of it (read from the
    # schema when the form is asked); past either, too_complex. A step costs a few microseconds at worst.
    forms_max_check_steps: int = Field(default=100_000, ge=1_000, le=2_000_000)
    forms_max_value_steps: int = Field(default=10_000, ge=100, le=2_000_000)
    # Limits every caller meets (docs/settings.md; SECURITY.md for the cost they bound). The budget of one
    # stored game or form, in DynamoDB's item bytes (DynamoDB's own limit is 400 KB).
    max_item_bytes: int = Field(default=64 * 1024, ge=4 * 1024, le=400 * 1024)
    # Live games and forms each principal may keep (callers without identity: per source address).
    quota_live_games: int = Field(default=100, ge=1, le=1000)
    quota_live_forms: int = Field(default=100, ge=1, le=1000)
    # Live tasks each principal may keep (callers without identity: per source address); each lasts TASK_TTL_SECONDS.
    quota_live_tasks: int = Field(default=100, ge=1, le=1000)
    # Calls one principal may keep waiting for its answers at once (resumable streams: transport/kept_budgets.py).
    quota_waiting_calls: int = Field(default=32, ge=1, le=1000)
    # Calls of tools that use stored state, per caller and window; 0 turns the limit off.
    rate_limit_calls: int = Field(default=120, ge=0, le=1_000_000)
    rate_limit_window_seconds: int = Field(default=60, ge=1, le=3600)
    # Proxies that append the address they received from to X-Forwarded-For, API Gateway included (CloudFront in
    # front of API Gateway: 2); 0 never reads the header and takes the connection's address (API Gateway's sourceIp).
    trusted_proxy_hops: int = Field(default=0, ge=0, le=5)
    # Sign-in (docs/oauth.md): with `oauth`, tools that keep state need a verified access token.
    auth_mode: Literal["none", "oauth"] = "none"
    oauth_issuer: str | None = None
    # Defaults to the issuer's `/.well-known/jwks.json` (where Cognito publishes it).
    oauth_jwks_url: str | None = None
    # Accepted `aud` values or `client_id`s (Cognito access tokens carry only the client id).
    oauth_audience: tuple[str, ...] = ()
    # Listed in the protected-resource metadata; defaults to the issuer.
    oauth_authorization_server: str | None = None
    # The resource's canonical URL (the MCP URL); by default derived from each request's Host.
    oauth_resource: str | None = None
    # Put before every scope a tool asks for: Cognito names custom scopes `<resource server>/<scope>`.
    oauth_scope_prefix: str = Field(default="", max_length=200)
    oauth_leeway_seconds: int = Field(default=30, ge=0, le=300)
    # With Cognito (no dynamic registration), the endpoint serves registration and metadata itself
    # (widget_mcp.auth.facade): Cognito's authorize and token URLs, its one public client and that client's
    # redirect URIs.
    oauth_authorize_url: str | None = None
    oauth_token_url: str | None = None
    oauth_registration_client_id: str | None = None
    oauth_redirect_uris: tuple[str, ...] = ()
    # Accept OAuth client id metadata documents beside registration (widget_mcp.auth.client_flow): the endpoint then
    # serves /oauth/authorize and /oauth/token in front of Cognito's. On whenever the registration facade is.
    oauth_client_documents: bool = True
    # Also serve the official MCP conformance suite's fixtures (tests/conformance/conformance_fixtures):
    # `make conformance` and `CONFORMANCE=1 make dev` only. Refused inside Lambda, so no deployment ever lists them.
    conformance: bool = False
    # A secret shared with a host integration (Open WebUI's, docs/openwebui.md) that signs per-user
    # tokens; empty: none is accepted, and sandboxed widgets (`Origin: null`) are refused as any unlisted origin.
    # In AWS, HOST_TOKEN_SECRET_ARN names a Secrets Manager secret or an SSM SecureString parameter holding it
    # instead, read when the first host token arrives.
    host_token_secret: SecretStr | None = None
    host_token_secret_arn: str | None = Field(default=None, pattern=SECRET_ARN_PATTERN)
    # Signs the requestState of input requests (docs/input-requests.md), so any instance can resume a
    # call: at least 32 characters. In AWS, REQUEST_STATE_SECRET_ARN names a Secrets Manager secret or an SSM
    # SecureString parameter holding it instead, read on first use. Neither: a random key for this process alone.
    request_state_secret: SecretStr | None = None
    request_state_secret_arn: str | None = Field(default=None, pattern=SECRET_ARN_PATTERN)
    # Let MCP 2025-11-25 clients answer a tool's input requests (docs/input-requests.md): the call's
    # event stream ends after its requests, and the client resumes it with GET /mcp and Last-Event-ID once it has
    # answered (transport/resumption.py). On by default; off (RESUMABLE_STREAMS=0): every GET /mcp is answered 405,
    # and those clients get `input_unsupported`.
    resumable_streams: bool = True
    # How long a client may take to answer an input request before the call must start over.
    request_state_ttl_seconds: int = Field(default=900, ge=30, le=86_400)
    # Tasks (docs/tasks.md): how long a task and its result are kept after it is created, and
    # how long one round of its work may run once started (the function's timeout; in AWS the stack sets both).
    task_ttl_seconds: int = Field(default=3600, ge=60, le=7 * 86_400)
    task_work_seconds: int = Field(default=20, ge=1, le=900)
    # Directory ownership proofs (docs/publish.md): the token OpenAI's app submission asks to find at
    # /.well-known/openai-apps-challenge, and the MCP Registry's HTTP proof at /.well-known/mcp-registry-auth.
    # Unset, both paths answer 404.
    openai_apps_challenge: str | None = None
    mcp_registry_auth: str | None = None
    # The apps served (docs/publish.md): registry names such as `chess,forms`; empty serves every registered app.
    # A published deployment names its apps, so nothing else (the demo) is listed to reviewers or users.
    apps: tuple[str, ...] = ()
    # A release label (`1.2.0`) pins each template URI to `ui://widget/<name>-v<release>.html`, so a bundle change
    # leaves the published tools' metadata as it was; unset, the URI carries a hash of the template (development).
    widget_release: str | None = Field(default=None, pattern=RELEASE_PATTERN)

    @model_validator(mode="before")
    @classmethod
    def _from_the_environment(cls, data: Any) -> Any:
        """Each field's variable (its alias, else its name; any case) under what the constructor was given."""
        if not isinstance(data, dict):
            return data
        environ = {key.lower(): value for key, value in os.environ.items()}
        found = {}
        for name, field in cls.model_fields.items():
            key = field.alias or name
            if key.lower() in environ:
                found[key] = environ[key.lower()]
        return {**found, **data}

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("oauth_audience", "oauth_redirect_uris", "apps", mode="before")
    @classmethod
    def _split_audiences(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(a.strip() for a in value.split(",") if a.strip())
        return value

    @field_validator(
        "oauth_issuer",
        "oauth_jwks_url",
        "oauth_authorization_server",
        "oauth_resource",
        "oauth_authorize_url",
        "oauth_token_url",
    )
    @classmethod
    def _secure_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        if not parts.netloc or not (parts.scheme == "https" or (parts.scheme == "http" and loopback)):
            raise ValueError(f"must be an https URL (http only on loopback), got {value!r}")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _value_within_check(self) -> Settings:
        if self.forms_max_value_steps > self.forms_max_check_steps:
            raise ValueError("FORMS_MAX_VALUE_STEPS must not exceed FORMS_MAX_CHECK_STEPS (one value is in one answer)")
        return self

    @model_validator(mode="after")
    def _oauth_is_complete(self) -> Settings:
        if self.auth_mode == "oauth" and not (self.oauth_issuer and self.oauth_audience):
            raise ValueError("AUTH_MODE=oauth needs OAUTH_ISSUER and OAUTH_AUDIENCE")
        facade = (self.oauth_authorize_url, self.oauth_token_url, self.oauth_registration_client_id)
        if any(facade) and not all(facade):
            raise ValueError(
                "OAUTH_AUTHORIZE_URL, OAUTH_TOKEN_URL and OAUTH_REGISTRATION_CLIENT_ID go together; set all or none"
            )
        return self

    @model_validator(mode="after")
    def _secret_or_its_arn(self) -> Settings:
        for name in ("host_token_secret", "request_state_secret"):
            if getattr(self, name) is not None and getattr(self, f"{name}_arn") is not None:
                variable = name.upper()
                raise ValueError(f"{variable} and {variable}_ARN both name the key; set one of them")
        return self

    @model_validator(mode="after")
    def _apps_are_registered(self) -> Settings:
        from widget_mcp.apps.registry import RegistryError, select_apps

        try:
            select_apps(self.apps)
        except RegistryError as exc:
            raise ValueError(f"APPS: {exc}") from None
        return self

    @model_validator(mode="after")
    def _conformance_is_local(self) -> Settings:
        if self.conformance and os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
            raise ValueError("CONFORMANCE=1 serves test fixtures and is for local runs only, never in Lambda")
        return self

    @field_validator("host_token_secret", "request_state_secret", mode="before")
    @classmethod
    def _strong_secret(cls, value: object) -> object:
        if value in (None, ""):
            return None
        if isinstance(value, str) and len(value) < 32:
            raise ValueError(
                "must be at least 32 characters (make one with: python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            )
        return value

    @field_validator("openai_apps_challenge", "mcp_registry_auth", mode="before")
    @classmethod
    def _one_printable_line(cls, value: object) -> object:
        return directory_token(value) if isinstance(value, str) else value

    @property
    def jwks_url(self) -> str | None:
        if self.oauth_jwks_url:
            return self.oauth_jwks_url
        return f"{self.oauth_issuer}/.well-known/jwks.json" if self.oauth_issuer else None

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(h.strip() for h in value.split(",") if h.strip())
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
        return value

    @field_validator("cors_origins")
    @classmethod
    def _origins_are_origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            # `scheme://host:*` allows any port of that host, as 'name:*' does in ALLOWED_HOSTS; no other wildcard.
            parts = urlsplit(origin.removesuffix(":*"))
            try:
                parts.port  # noqa: B018 - raises on a port that is not a number
            except ValueError:
                parts = urlsplit("")
            bad = (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or parts.path
                or parts.query
                or parts.fragment
            )
            if origin == "*" or bad or "@" in parts.netloc:
                raise ValueError(f"each entry must be an origin such as 'https://app.example.com', got {origin!r}")
            if "*" in parts.netloc:
                raise ValueError(f"'*' may only stand for the port ('http://localhost:*'), got {origin!r}")
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts_not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must name at least one host (e.g. 'abc123.execute-api.eu-west-1.amazonaws.com')")
        if "*" in value:
            raise ValueError("'*' would turn Host checking off; list the hosts, 'name:*' allows any port")
        return value

    @field_validator("widget_base_url")
    @classmethod
    def _absolute_http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"must be an absolute http(s) URL, got {value!r}")
        return value.rstrip("/")

    @property
    def widget_origin(self) -> str:
        """Scheme and host of WIDGET_BASE_URL: what widget CSPs must allow."""
        parts = urlsplit(self.widget_base_url)
        return f"{parts.scheme}://{parts.netloc}"


MAX_DIRECTORY_TOKEN = 1024


def directory_token(value: str) -> str | None:
    """A directory's ownership token as served (text/plain, compared byte for byte): one line of printable ASCII,
    surrounding spaces dropped; empty is unset."""
    value = value.strip()
    if not value:
        return None
    if len(value) > MAX_DIRECTORY_TOKEN or not all(" " <= ch <= "~" for ch in value):
        raise ValueError(
            f"must be one line of printable ASCII of at most {MAX_DIRECTORY_TOKEN} characters, as the directory gave it"
        )
    return value


def load_settings() -> Settings:
    """Read and validate the environment, turning pydantic's report into one readable sentence per problem."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']).upper() or 'settings'}: {err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors()
        )
        raise SettingsError(f"invalid configuration: {problems}") from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, validated on first use (cold start)."""
    return load_settings()
