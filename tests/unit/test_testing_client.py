"""widget_mcp.testing.memory_client refuses a setting it does not know: a test would pass without testing it."""

from __future__ import annotations

import pytest
from widget_mcp.testing import memory_client


def test_a_misspelled_setting_is_refused_naming_it() -> None:
    with pytest.raises(TypeError, match="anonymous_stat is no setting"):
        memory_client(anonymous_stat="refuse")
