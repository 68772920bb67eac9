"""Fixtures shared by the functional tests' files."""

from __future__ import annotations

import sys

import pytest
from readme_tutorial import STATEFUL_APP, TUTORIAL_APPS, ScaffoldedRepo, TutorialApp, follow, unused_name
from repo_copy import copy_repo, run_in


@pytest.fixture(scope="session")
def scaffolded_repo(tmp_path_factory: pytest.TempPathFactory) -> ScaffoldedRepo:
    """One copy of the repository (copies are slow) where the README tutorial was followed twice: on the display
    host, and with a widget of its own (WIDGET=1); and where `make app NAME=… STATE=1` made an app that keeps state."""
    copy = copy_repo(tmp_path_factory.mktemp("repo"))
    apps = {}
    for way, (base, widget) in TUTORIAL_APPS.items():
        name = unused_name(copy, base, widget=widget)
        apps[way] = TutorialApp(name, widget, follow(copy, name, widget=widget))
    stateful = unused_name(copy, STATEFUL_APP, state=True)
    made = run_in(copy, sys.executable, "-m", "widget_mcp.local.scaffold", stateful, "--state")
    assert made.returncode == 0, made.stdout + made.stderr
    return ScaffoldedRepo(copy, apps, stateful)
