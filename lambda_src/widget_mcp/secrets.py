"""Secrets the server reads from AWS on first use (and again every few minutes: key_ring.py): a Secrets Manager
secret or an SSM SecureString, by ARN."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import SecretStr

MIN_SECRET_LENGTH = 32
# What a `*_SECRET_ARN` setting may name: a Secrets Manager secret or an SSM parameter, in any partition.
SECRET_ARN_PATTERN = r"^arn:aws[\w-]*:(secretsmanager|ssm):[\w-]+:\d{12}:(secret:|parameter/)\S+$"  # noqa: S105 - a pattern, not a password


class SecretUnavailable(ValueError):
    """The named secret could not be read or is too weak to use; carries its ARN."""

    def __init__(self, arn: str, problem: str) -> None:
        super().__init__(f"secret {arn}: {problem}")
        self.arn = arn


def read_secret(arn: str) -> str:
    """The secret's text. boto3 is imported here, so a process that never needs the secret never loads it.

    The client works in the ARN's own region, so a secret kept in another region than the function's is found.
    """
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    match = re.match(SECRET_ARN_PATTERN, arn)
    if match is None:
        raise SecretUnavailable(arn, "is not a Secrets Manager secret or SSM parameter ARN")
    region = arn.split(":")[3]
    config = Config(connect_timeout=1, read_timeout=2, retries={"mode": "standard", "total_max_attempts": 3})
    value: object
    try:
        if match.group(1) == "ssm":
            ssm = boto3.client("ssm", region_name=region, config=config)
            value = ssm.get_parameter(Name=arn, WithDecryption=True)["Parameter"].get("Value", "")
        else:
            manager = boto3.client("secretsmanager", region_name=region, config=config)
            value = manager.get_secret_value(SecretId=arn).get("SecretString", "")
    except (BotoCoreError, ClientError) as exc:
        raise SecretUnavailable(arn, f"could not be read ({exc})") from None
    if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
        raise SecretUnavailable(arn, f"must hold at least {MIN_SECRET_LENGTH} characters")
    return value


def secret_source(value: SecretStr | None, arn: str | None) -> Callable[[], str] | None:
    """Where a secret setting comes from: its value (`X_SECRET`), else a read of `X_SECRET_ARN` on each call (its
    users call it on first use and then every few minutes, keeping what it returned: key_ring.py); None if neither
    is set."""
    if value is not None:
        text = value.get_secret_value()
        return lambda: text
    if arn is not None:
        return lambda: read_secret(arn)
    return None
