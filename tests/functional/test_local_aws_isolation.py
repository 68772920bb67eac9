"""Local commands never read the user's AWS configuration: `make dev`, the tests and `make asset-smoke` work in a
shell whose AWS_PROFILE names a profile this machine lacks (or is empty) and whose AWS configuration files are junk,
and none of them sees the user's keys or endpoints."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from mcp import Client
from widget_mcp.local.aws_env import isolate_from_user_aws
from widget_mcp.local.process import ROOT, local_server

# A test that plays chess on moto through boto3 (and gives its client the keys moto takes).
CHESS_GAME_ON_MOTO = "tests/functional/test_chess_on_dynamodb.py::test_a_refused_move_writes_nothing"


def someone_elses_aws(folder: Path, profile: str) -> dict[str, str]:
    """A shell set up for someone else's AWS: a profile that does not exist here, configuration files that are not
    configuration at all, their keys and an endpoint that is not moto."""
    junk = folder / "aws-junk"
    junk.write_text("[profile\nthis is not an AWS configuration file\n")
    return {
        "AWS_PROFILE": profile,
        "AWS_CONFIG_FILE": str(junk),
        "AWS_SHARED_CREDENTIALS_FILE": str(junk),
        "AWS_ACCESS_KEY_ID": "AKIAUSERSOWNKEY00000",
        "AWS_SECRET_ACCESS_KEY": "users-own-secret",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    }


@pytest.fixture(params=["nope", ""], ids=["missing-profile", "empty-profile"])
def users_aws(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    return someone_elses_aws(tmp_path, str(request.param))


def without_aws(environ: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items() if not k.startswith("AWS_")}


def test_only_aws_variables_are_replaced_and_no_configuration_file_is_read(users_aws: dict[str, str]) -> None:
    env = {**users_aws, "PATH": "/bin", "TABLE_NAME": "t"}
    isolate_from_user_aws(env)
    assert env["PATH"] == "/bin"
    assert env["TABLE_NAME"] == "t"
    assert "AWS_PROFILE" not in env
    assert "AWS_ENDPOINT_URL" not in env
    assert env["AWS_CONFIG_FILE"] == env["AWS_SHARED_CREDENTIALS_FILE"] == os.devnull
    assert env["AWS_ACCESS_KEY_ID"] == "local"


async def test_make_dev_serves_state_on_moto_whatever_the_users_aws_configuration(users_aws: dict[str, str]) -> None:
    with local_server("isolated-state", settings=users_aws) as server:
        async with Client(f"{server.base}/mcp", mode="legacy") as client:
            game = await client.call_tool("chess_new_game", {})
    assert not game.is_error, game.content
    assert game.structured_content is not None
    assert game.structured_content["status"] == "active"


def test_the_tests_run_against_moto_whatever_the_users_aws_configuration(tmp_path: Path) -> None:
    env = without_aws(os.environ) | someone_elses_aws(tmp_path, "nope")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CHESS_GAME_ON_MOTO],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert "ProfileNotFound" not in ran.stdout


def test_asset_smokes_moto_table_is_made_whatever_the_users_aws_configuration(users_aws: dict[str, str]) -> None:
    env = without_aws(os.environ) | users_aws
    script = (
        "from infra import asset_smoke\n"
        "asset_smoke.prepare()\n"
        "with asset_smoke.moto_dynamodb('smoke-state') as url:\n"
        "    print('moto at', url)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.startswith("moto at http://127.0.0.1:")
