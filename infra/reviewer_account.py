"""`make reviewer-account` (`python -m infra.reviewer_account`): a sign-in for the directories' reviewers.

Creates a confirmed Cognito user in the deployed pool with no MFA and no e-mail step (an administrator sets its
password, so no confirmation message is sent), keeps its password in a Secrets Manager secret of its own, and
seeds its state through the apps' own tools (so the data is what a user would have): a chess game in progress,
an answered form and a pending one. A second run says the account exists, or with `--rotate` gives it a new
password (kept in the same secret). The password is printed only with `--show-password`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import string
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import boto3

REVIEWER_EMAIL = "app-review@example.com"
SECRET_SUFFIX = "reviewer-account"  # noqa: S105 - part of a secret's name
PASSWORD_LENGTH = 24
SYMBOLS = "!#%+-=_"
NAME_FORM = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Your name", "maxLength": 100}},
    "required": ["name"],
}
TRIP_FORM = {
    "type": "object",
    "properties": {"destination": {"type": "string", "title": "Destination", "maxLength": 100}},
    "required": ["destination"],
}
# What the reviewer finds signed in, as (tool, arguments) made in order; `{{field}}` is a field of the previous
# result. The engine replies to the move, so the game stays in progress.
SHOWS_WIDGETS = {"openai/locale": "en-US"}
SEED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("chess_new_game", {"opponent": "engine"}),
    ("chess_move", {"gameId": "{{gameId}}", "move": "e4"}),
    ("ask_question", {"question": NAME_FORM, "title": "Who are you?"}),
    ("submit_form", {"formId": "{{formId}}", "data": {"name": "App Reviewer"}, "answerKey": "{{answerKey}}"}),
    ("ask_question", {"question": TRIP_FORM, "title": "Your next trip"}),
)


@dataclass(frozen=True)
class Deployment:
    user_pool_id: str
    table_name: str
    stack_name: str

    @property
    def secret_name(self) -> str:
        return f"widget-mcp/{self.stack_name}/{SECRET_SUFFIX}"


@dataclass(frozen=True)
class Outcome:
    created: bool
    rotated: bool
    username: str
    subject: str
    secret_arn: str
    password: str


def new_password() -> str:
    """24 characters with each class the pool's policy asks for (upper, lower, digit, symbol)."""
    alphabet = string.ascii_letters + string.digits + SYMBOLS
    while True:
        password = "".join(secrets.choice(alphabet) for _ in range(PASSWORD_LENGTH))
        classes = (string.ascii_uppercase, string.ascii_lowercase, string.digits, SYMBOLS)
        if all(any(c in group for c in password) for group in classes):
            return password


def from_stack(stack_name: str, cloudformation: Any) -> Deployment:
    """The pool and table from the stack's outputs (UserPoolId exists only with `-c signIn=true`)."""
    (stack,) = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    if "UserPoolId" not in outputs:
        raise SystemExit(f"{stack_name} has no user pool: deploy it with -c signIn=true first")
    return Deployment(outputs["UserPoolId"], outputs["TableName"], stack_name)


def ensure_account(
    deployment: Deployment,
    *,
    cognito: Any,
    secrets_manager: Any,
    rotate: bool = False,
    email: str = REVIEWER_EMAIL,
) -> Outcome:
    """The user and its secret, made or (with `rotate`) given a new password; nothing else changes on a rerun."""
    created = False
    try:
        user = cognito.admin_get_user(UserPoolId=deployment.user_pool_id, Username=email)
    except cognito.exceptions.UserNotFoundException:
        cognito.admin_create_user(
            UserPoolId=deployment.user_pool_id,
            Username=email,
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            MessageAction="SUPPRESS",  # no invitation: the password is set below and kept in the secret
        )
        user = cognito.admin_get_user(UserPoolId=deployment.user_pool_id, Username=email)
        created = True
    secret_arn, password = _stored(deployment, secrets_manager)
    if created or rotate or password is None:
        password = new_password()
        # Permanent: the user is CONFIRMED, with no change-password step at first sign-in.
        cognito.admin_set_user_password(
            UserPoolId=deployment.user_pool_id, Username=email, Password=password, Permanent=True
        )
        value = json.dumps({"username": email, "password": password})
        if secret_arn is None:
            secret_arn = secrets_manager.create_secret(
                Name=deployment.secret_name,
                Description="the app directories' reviewer sign-in (make reviewer-account)",
                SecretString=value,
            )["ARN"]
        else:
            secrets_manager.put_secret_value(SecretId=secret_arn, SecretString=value)
    cognito.admin_set_user_mfa_preference(
        UserPoolId=deployment.user_pool_id,
        Username=email,
        SoftwareTokenMfaSettings={"Enabled": False, "PreferredMfa": False},
    )
    subject = next(a["Value"] for a in user["UserAttributes"] if a["Name"] == "sub")
    return Outcome(created, rotate and not created, email, subject, secret_arn, password)


def _stored(deployment: Deployment, secrets_manager: Any) -> tuple[str | None, str | None]:
    try:
        found = secrets_manager.get_secret_value(SecretId=deployment.secret_name)
    except secrets_manager.exceptions.ResourceNotFoundException:
        return None, None
    password = json.loads(found["SecretString"]).get("password")
    return found["ARN"], password if isinstance(password, str) else None


async def seed(subject: str, table_name: str) -> tuple[str, ...]:
    """Makes SEED's calls as the verified user `subject` through the apps' tools on the deployment's table;
    answers `tool: what it made` per call."""
    from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
    from widget_mcp.settings import Settings
    from widget_mcp.wiring import build_core

    core = build_core(Settings(table_name=table_name, rate_limit_calls=0))
    seen: dict[str, Any] = {}
    made = []
    for tool, arguments in SEED:
        filled = {
            k: seen.get(v[2:-2], v) if isinstance(v, str) and v.startswith("{{") else v for k, v in arguments.items()
        }
        # As a host that shows widgets (ChatGPT's display signal): the form's widget answers with its answer key.
        result = await core.runtime.call(tool, filled, SHOWS_WIDGETS, "reviewer-account", subject=subject)
        structured = result.get("structuredContent") or {}
        if result.get("isError"):
            raise RuntimeError(f"seeding {tool} failed: {json.dumps(result)[:300]}")
        seen.update(structured)
        key = (result.get("_meta") or {}).get(ANSWER_KEY_META)
        if isinstance(key, str):
            seen["answerKey"] = key
        made.append(f"{tool}: {structured.get('gameId') or structured.get('formId') or 'done'}")
    return tuple(made)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.reviewer_account", description=__doc__)
    parser.add_argument("--stack", default=os.environ.get("STACK", "WidgetMcp"), help="the deployed stack's name")
    parser.add_argument("--email", default=REVIEWER_EMAIL, help="the reviewer's sign-in name")
    parser.add_argument("--rotate", action="store_true", help="give an existing account a new password")
    parser.add_argument("--show-password", action="store_true", help="print the password (else read the secret)")
    parser.add_argument("--no-seed", action="store_true", help="leave the account's state as it is")
    args = parser.parse_args(argv)
    deployment = from_stack(args.stack, boto3.client("cloudformation"))
    outcome = ensure_account(
        deployment,
        cognito=boto3.client("cognito-idp"),
        secrets_manager=boto3.client("secretsmanager"),
        rotate=args.rotate,
        email=args.email,
    )
    seeded = () if args.no_seed or not outcome.created else asyncio.run(seed(outcome.subject, deployment.table_name))
    print(report(outcome, seeded, show_password=args.show_password))
    return 0


def report(outcome: Outcome, seeded: Sequence[str], *, show_password: bool) -> str:
    state = "created" if outcome.created else ("password rotated" if outcome.rotated else "exists (unchanged)")
    password = outcome.password if show_password else f"in the secret {outcome.secret_arn}"
    lines = [
        f"reviewer account {state}: {outcome.username}",
        "",
        "Paste into the directories' forms (OpenAI: test account; Anthropic: reviewer credentials):",
        f"  username: {outcome.username}",
        f"  password: {password}",
        "  MFA: none; e-mail confirmation: none (the account is confirmed)",
        "  what it holds: a chess game in progress, an answered form and a pending one",
    ]
    if not show_password:
        lines.append(
            f"  read it: aws secretsmanager get-secret-value --secret-id {outcome.secret_arn} --query SecretString"
        )
    if seeded:
        lines += ["", "seeded:", *(f"  {line}" for line in seeded)]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
