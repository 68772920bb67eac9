"""widget_mcp.testing.memory_client refuses a setting it does not know: a test would pass without testing it."""

from __future__ import annotations

import os

import pytest
from widget_mcp.testing import memory_client


def test_a_misspelled_setting_is_refused_naming_it() -> None:
    with pytest.raises(TypeError, match="anonymous_stat is no setting"):
        memory_client(anonymous_stat="refuse")


def test_building_a_client_leaves_the_process_environment_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    # Other tests in the same process read it: a client that disabled metrics there broke the Lambda layer's. Built
    # from an environment that sets none of the server's variables, so a default it wrote there is seen too.
    for name in set(os.environ) - {"PATH", "HOME", "PYTHONPATH", "TMPDIR"}:
        monkeypatch.delenv(name)
    before = dict(os.environ)
    memory_client()
    assert dict(os.environ) == before
