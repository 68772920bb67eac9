"""Secrets the server reads from AWS on first use: a Secrets Manager secret or an SSM SecureString, by ARN."""

from __future__ import annotations

MIN_SECRET_LENGTH = 32


class SecretUnavailable(ValueError):
    """The named secret could not be read or is too weak to use; carries its ARN."""

    def __init__(self, arn: str, problem: str) -> None:
        super().__init__(f"secret {arn}: {problem}")
        self.arn = arn


def read_secret(arn: str) -> str:
    """The secret's text. boto3 is imported here, so a process that never needs the secret never loads it."""
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    config = Config(connect_timeout=1, read_timeout=2, retries={"mode": "standard", "total_max_attempts": 3})
    value: object
    try:
        if ":ssm:" in arn:
            ssm = boto3.client("ssm", config=config)
            value = ssm.get_parameter(Name=arn, WithDecryption=True)["Parameter"].get("Value", "")
        else:
            value = boto3.client("secretsmanager", config=config).get_secret_value(SecretId=arn).get("SecretString", "")
    except (BotoCoreError, ClientError) as exc:
        raise SecretUnavailable(arn, f"could not be read ({exc})") from None
    if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
        raise SecretUnavailable(arn, f"must hold at least {MIN_SECRET_LENGTH} characters")
    return value
