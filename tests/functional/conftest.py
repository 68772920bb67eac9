"""Fixtures shared by the functional tests' files."""

from __future__ import annotations

from pathlib import Path

import pytest
from readme_tutorial import follow
from repo_copy import copy_repo

# The apps the README tutorial is followed for in the shared copy: as written, and with WIDGET=1.
TUTORIAL_APPS = {"weather": False, "news_feed": True}


@pytest.fixture(scope="session")
def scaffolded_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[list[str]]]]:
    """One copy of the repository (copies are slow) where the README tutorial was followed twice: for weather, on
    the display host, and for news_feed, with a widget of its own. With the commands each left to run."""
    copy = copy_repo(tmp_path_factory.mktemp("repo"))
    return copy, {name: follow(copy, name, widget=widget) for name, widget in TUTORIAL_APPS.items()}
