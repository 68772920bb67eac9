"""The guides' stateful apps, registered in a copy of the repository as the guides say (guide_apps.py): the
tests derived from the registry pass with them served. Their space tools need an identified user
(`needs_identity=True`: called with an openai/subject, and refused identity_required without one) and chain their ids
two makers deep (team_vote takes a poll create_team_poll made in a space create_space made)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from guide_apps import add_guide_apps
from repo_copy import ROOT, copy_repo, run_in

DERIVED = [
    "tests/functional/test_request_limits.py",
    "tests/functional/test_in_memory_client.py",
    "tests/functional/test_check_app_profiles.py",
    "tests/functional/test_my_data.py",
    "tests/functional/test_review_cases.py",
    "tests/unit/test_tool_ids.py",
    "tests/unit/test_public_api.py",
]
# One Python and one TypeScript client, in each era they speak: the identity travels in each one's own `_meta`.
MATRIX_CLIENTS = "python_sdk_2_3_0 or ts_client_2_4_0"


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = copy_repo(tmp_path_factory.mktemp("guide-repo"))
    add_guide_apps(copy)
    modules = ROOT / "tests/clients/node/node_modules"
    if modules.is_dir():
        (copy / "tests/clients/node/node_modules").symlink_to(modules)
    if (ROOT / ".clients").is_dir():  # the agent frameworks' locked environments (make clients)
        (copy / ".clients").symlink_to(ROOT / ".clients")
    return copy


def test_the_derived_functional_tests_pass_with_the_guide_apps_registered(copy: Path) -> None:
    ran = run_in(copy, sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "0", *DERIVED)
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert "[team_vote.poll_id] PASSED" in ran.stdout  # the new tools are counted, not left out


def test_the_client_matrix_passes_with_the_guide_apps_registered(copy: Path) -> None:
    matrix = "tests/clients/test_client_matrix.py"
    ran = run_in(
        copy,
        sys.executable,
        "-m",
        "pytest",
        "-v",
        "-p",
        "no:cacheprovider",
        "-n",
        "0",
        matrix,
        "-k",
        MATRIX_CLIENTS,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout[-4000:]
    for client in ("python_sdk_2_3_0-2026_07_28", "ts_client_2_4_0-2025_11_25"):
        # a two-step chain made maker first, as an identified user; and refused to a caller without identity
        assert f"result_that_fits_its_output_schema[{client}-team_vote] PASSED" in ran.stdout, ran.stdout[-4000:]
        assert f"identity_required_from_each_tool_that_needs_one[{client}] PASSED" in ran.stdout


def test_the_agent_frameworks_tests_pass_with_the_guide_apps_registered(copy: Path) -> None:
    agents = ("tests/clients/test_agent_frameworks.py", "tests/clients/test_agents_ts.py")
    ran = run_in(copy, sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "0", *agents, timeout=900)
    assert ran.returncode == 0, ran.stdout[-4000:]
    # each framework's model reads why the space's tools refuse a caller without identity
    assert "refuses_it[openai_agents] PASSED" in ran.stdout, ran.stdout[-4000:]
