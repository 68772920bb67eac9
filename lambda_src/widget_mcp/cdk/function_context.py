"""The context that reaches the function as its settings: the limits every caller meets (`-c quotaLiveGames=500`) and
the keys the deployer keeps in AWS (`-c hostTokenSecretArn=…`), each checked at synth by the function's own rules."""

from __future__ import annotations

import re
from typing import Any

from widget_mcp.cdk.context_values import ConfigError
from widget_mcp.secrets import SECRET_ARN_PATTERN
from widget_mcp.settings import Settings

# The limits every caller meets (the function's settings of the same name, docs/settings.md) a deployer may set with
# `-c <name in camelCase>=N`; their bounds are the settings model's own, checked at synth.
LIMIT_SETTINGS = (
    "quota_live_games",
    "quota_live_forms",
    "quota_live_tasks",
    "rate_limit_calls",
    "rate_limit_window_seconds",
    "max_item_bytes",
    "trusted_proxy_hops",
    "forms_max_check_steps",
    "forms_max_value_steps",
)

# The function's keys kept in AWS (cdk/shared_secrets.py): context key → the variable holding its ARN. Unset, the
# stack generates the secret; `none` leaves host tokens off (the function then accepts none, as without the setting).
SECRET_CONTEXT = {"hostTokenSecretArn": "HOST_TOKEN_SECRET_ARN", "requestStateSecretArn": "REQUEST_STATE_SECRET_ARN"}
OPTIONAL_SECRETS = ("hostTokenSecretArn",)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def function_limits(get: Any) -> dict[str, str]:
    """`-c quotaLiveGames=500` and the like, within the bounds the function's settings model declares."""
    chosen: dict[str, int] = {}
    for name in LIMIT_SETTINGS:
        key, value = _camel(name), get(_camel(name))
        if value is None:
            continue
        bounds = {k: getattr(m, k) for m in Settings.model_fields[name].metadata for k in ("ge", "le") if hasattr(m, k)}
        low, high = bounds["ge"], bounds["le"]
        text = str(value).strip()
        if isinstance(value, bool) or not text.isdigit() or not low <= int(text) <= high:
            raise ConfigError(f"{key} must be a whole number from {low} to {high}, got {value!r}")
        chosen[name] = int(text)
    defaults = Settings.model_fields
    check = chosen.get("forms_max_check_steps", defaults["forms_max_check_steps"].default)
    if chosen.get("forms_max_value_steps", defaults["forms_max_value_steps"].default) > check:
        raise ConfigError(
            f"formsMaxValueSteps must not exceed formsMaxCheckSteps ({check}): one value is part of one answer, got "
            f"{chosen['forms_max_value_steps']}"
        )
    return {name.upper(): str(value) for name, value in chosen.items()}


def existing_secrets(get: Any) -> dict[str, str | None]:
    """`-c hostTokenSecretArn=…`: a secret the deployer keeps (the complete ARN of a Secrets Manager secret, or an SSM
    SecureString parameter's), or `none` for no host tokens."""
    chosen: dict[str, str | None] = {}
    for key, variable in SECRET_CONTEXT.items():
        value = get(key)
        if value is None:
            continue
        text = str(value).strip()
        if key in OPTIONAL_SECRETS and text.lower() == "none":
            chosen[variable] = None
            continue
        complete = ":secretsmanager:" not in text or re.search(r":secret:.+-[A-Za-z0-9]{6}$", text)
        if not (re.match(SECRET_ARN_PATTERN, text) and complete):
            what = ", or 'none'" if key in OPTIONAL_SECRETS else ""
            raise ConfigError(
                f"{key} must be the complete ARN of a Secrets Manager secret (with its 6-character suffix) or of an "
                f"SSM SecureString parameter{what}, got {value!r}"
            )
        chosen[variable] = text
    return chosen
