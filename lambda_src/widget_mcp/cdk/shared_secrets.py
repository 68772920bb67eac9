"""The function's keys: the host-token secret it shares with a host integration (Open WebUI's) and the key that signs
input requests' requestState. Each is a Secrets Manager secret the stack generates, or one the deployer names."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

# Letters and digits only, so the value pastes anywhere (a valve, a shell); 64 of them are about 380 bits.
GENERATED_LENGTH = 64
# Why no automatic rotation: a rotation Lambda cannot update what holds the other copy (the Open WebUI valve). The
# requestState key needs no second copy, but a rotation by hand is enough (instances re-read both: infra/README.md).
NO_ROTATION = {
    "HOST_TOKEN_SECRET_ARN": "Shared with the host integration (Open WebUI's HOST_TOKEN_SECRET valve), which a "
    "rotation function cannot update; rotating by hand (infra/README.md) changes both copies together.",
    "REQUEST_STATE_SECRET_ARN": "Signs input requests' requestState for at most REQUEST_STATE_TTL_SECONDS; each "
    "instance reads it again every 5 minutes and accepts the key it replaced until the states signed with it have "
    "expired, so it is rotated by hand when needed (infra/README.md) rather than on a schedule.",
}
DESCRIPTIONS = {
    "HOST_TOKEN_SECRET_ARN": "widget-mcp: HOST_TOKEN_SECRET, shared with the Open WebUI integration's valve",
    "REQUEST_STATE_SECRET_ARN": "widget-mcp: REQUEST_STATE_SECRET, the key that signs input requests' requestState",
}


@dataclass(frozen=True)
class SecretRef:
    """A secret the function reads by ARN from the environment variable `variable`, and the one action that needs."""

    variable: str
    arn: str
    action: str

    @classmethod
    def existing(cls, variable: str, arn: str) -> SecretRef:
        """A secret the deployer keeps: a Secrets Manager secret (its complete ARN) or an SSM SecureString."""
        action = "ssm:GetParameter" if ":ssm:" in arn else "secretsmanager:GetSecretValue"
        return cls(variable, arn, action)

    def grant(self, role: iam.IRole) -> None:
        """Let `role` read this secret, and only its value."""
        role.add_to_principal_policy(iam.PolicyStatement(actions=[self.action], resources=[self.arn]))


class SharedSecrets(Construct):
    """`existing` maps a variable to the deployer's ARN, or to None to leave that key out; the rest are generated."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        removal_policy: cdk.RemovalPolicy,
        existing: dict[str, str | None],
    ) -> None:
        super().__init__(scope, construct_id)
        refs: list[SecretRef] = []
        self.generated: dict[str, secretsmanager.Secret] = {}
        for variable in NO_ROTATION:
            if variable in existing:
                arn = existing[variable]
                if arn is not None:
                    refs.append(SecretRef.existing(variable, arn))
                continue
            secret = secretsmanager.Secret(
                self,
                variable.removesuffix("_ARN").title().replace("_", ""),
                description=DESCRIPTIONS[variable],
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    password_length=GENERATED_LENGTH, exclude_punctuation=True
                ),
                removal_policy=removal_policy,
            )
            cdk.Validations.of(secret).acknowledge(
                cdk.Acknowledgment(id="AwsSolutions-SMG4", reason=NO_ROTATION[variable])
            )
            self.generated[variable] = secret
            refs.append(SecretRef(variable, secret.secret_arn, "secretsmanager:GetSecretValue"))
        self.refs = tuple(refs)

    def arn_of(self, variable: str) -> str | None:
        """The ARN the function's `variable` holds, or None for a key left out."""
        return next((ref.arn for ref in self.refs if ref.variable == variable), None)
