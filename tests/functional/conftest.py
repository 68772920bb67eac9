"""Fixtures shared by the functional tests' files."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from readme_tutorial import STATEFUL_APP, TUTORIAL_APPS, ScaffoldedRepo, TutorialApp, follow, unused_name
from repo_copy import copy_repo, run_in
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.memory import InMemoryDocumentStore


@pytest.fixture(scope="module")
def moto_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A moto DynamoDB server holding the test module's `TABLE`."""
    with moto_dynamodb(request.module.TABLE) as url:
        yield url


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest) -> DocumentStore:
    """Each test once on the in-memory store and once on DynamoDB (moto, the module's `TABLE`), behind one port."""
    if request.param == "memory":
        return InMemoryDocumentStore()
    return DynamoDbDocumentStore(client_for(request.getfixturevalue("moto_url")), request.module.TABLE)


@pytest.fixture(scope="session")
def scaffolded_repo(tmp_path_factory: pytest.TempPathFactory) -> ScaffoldedRepo:
    """One copy of the repository (copies are slow) where the tutorial was followed twice: on the display
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
