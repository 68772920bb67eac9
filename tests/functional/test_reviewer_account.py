"""`make reviewer-account` on moto with real boto3 calls: a confirmed user without MFA whose password lives only in
its secret, state seeded through the apps' own tools (read back through them as that user), and a second run that
changes nothing unless asked to rotate."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws
from widget_mcp.settings import Settings
from widget_mcp.storage.table import create_state_table
from widget_mcp.wiring import build_core

from infra.reviewer_account import REVIEWER_EMAIL, Deployment, ensure_account, report, seed

REGION = "eu-west-1"
TABLE = "reviewer-state"


@dataclass
class Aws:
    cognito: Any
    secrets: Any
    deployment: Deployment


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    for name, value in {
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        cognito = boto3.client("cognito-idp", region_name=REGION)
        pool = cognito.create_user_pool(
            PoolName="users",
            UsernameAttributes=["email"],
            MfaConfiguration="OPTIONAL",
            Policies={"PasswordPolicy": {"MinimumLength": 12, "RequireSymbols": True, "RequireNumbers": True}},
        )["UserPool"]["Id"]
        create_state_table(boto3.client("dynamodb", region_name=REGION), TABLE)
        yield Aws(cognito, boto3.client("secretsmanager", region_name=REGION), Deployment(pool, TABLE, "WidgetMcp"))


def _first_run(aws: Aws) -> Any:
    return ensure_account(aws.deployment, cognito=aws.cognito, secrets_manager=aws.secrets)


def test_the_account_is_confirmed_without_mfa_and_its_password_is_the_one_in_its_secret(aws: Aws) -> None:
    outcome = _first_run(aws)
    user = aws.cognito.admin_get_user(UserPoolId=aws.deployment.user_pool_id, Username=REVIEWER_EMAIL)
    assert user["UserStatus"] == "CONFIRMED"
    assert user.get("UserMFASettingList", []) == []
    attributes = {a["Name"]: a["Value"] for a in user["UserAttributes"]}
    assert attributes["email_verified"] == "true"
    stored = json.loads(aws.secrets.get_secret_value(SecretId="widget-mcp/WidgetMcp/reviewer-account")["SecretString"])
    assert stored == {"username": REVIEWER_EMAIL, "password": outcome.password}
    # the password signs in (moto checks it as Cognito would)
    client = aws.cognito.create_user_pool_client(
        UserPoolId=aws.deployment.user_pool_id, ClientName="c", ExplicitAuthFlows=["ADMIN_USER_PASSWORD_AUTH"]
    )["UserPoolClient"]["ClientId"]
    signed = aws.cognito.admin_initiate_auth(
        UserPoolId=aws.deployment.user_pool_id,
        ClientId=client,
        AuthFlow="ADMIN_USER_PASSWORD_AUTH",
        AuthParameters={"USERNAME": REVIEWER_EMAIL, "PASSWORD": outcome.password},
    )
    assert "AuthenticationResult" in signed  # no challenge: neither MFA nor a new password


def test_a_second_run_says_it_exists_and_changes_nothing(aws: Aws) -> None:
    first = _first_run(aws)
    again = _first_run(aws)
    assert (again.created, again.rotated, again.password, again.secret_arn) == (
        False,
        False,
        first.password,
        first.secret_arn,
    )
    assert "exists (unchanged)" in report(again, (), show_password=False)


def test_rotate_gives_a_new_password_kept_in_the_same_secret(aws: Aws) -> None:
    first = _first_run(aws)
    rotated = ensure_account(aws.deployment, cognito=aws.cognito, secrets_manager=aws.secrets, rotate=True)
    assert rotated.rotated
    assert rotated.password != first.password
    assert rotated.secret_arn == first.secret_arn
    stored = json.loads(aws.secrets.get_secret_value(SecretId=first.secret_arn)["SecretString"])
    assert stored["password"] == rotated.password


def test_the_report_never_prints_the_password_unless_asked(aws: Aws) -> None:
    outcome = _first_run(aws)
    quiet = report(outcome, (), show_password=False)
    assert outcome.password not in quiet
    assert outcome.secret_arn in quiet
    assert outcome.password in report(outcome, (), show_password=True)


async def test_the_seed_leaves_a_game_in_progress_an_answered_form_and_a_pending_one(aws: Aws) -> None:
    outcome = _first_run(aws)
    made = await seed(outcome.subject, TABLE)
    runtime = build_core(Settings(table_name=TABLE, rate_limit_calls=0)).runtime

    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await runtime.call(tool, arguments, None, "check", subject=outcome.subject)
        assert not result.get("isError"), result
        structured: dict[str, Any] = result["structuredContent"]
        return structured

    (game,) = (await call("chess_list_games", {}))["games"]
    shown = await call("chess_show_game", {"gameId": game["gameId"]})
    assert shown["status"] == "active"
    assert shown["ply"] >= 1
    forms = [line.split(": ")[1] for line in made if line.startswith("ask_question")]
    answered, pending = [await call("get_form_response", {"formId": f}) for f in forms]
    assert (answered["type"], answered["data"]) == ("dgui_response", {"name": "App Reviewer"})
    assert pending["type"] == "dgui_pending"
    # another user sees none of it
    other = await runtime.call("chess_list_games", {}, None, "check", subject="someone-else")
    assert other["structuredContent"]["games"] == []
