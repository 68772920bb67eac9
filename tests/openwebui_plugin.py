"""The Open WebUI integration (one plugin file), loaded as Open WebUI loads it, for the tests that drive it here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

INTEGRATION = Path(__file__).resolve().parents[1] / "integrations" / "openwebui" / "widget_mcp.py"


def load_plugin(name: str) -> ModuleType:
    """The plugin's module under `name` (each test module its own, so their patches never meet)."""
    spec = importlib.util.spec_from_file_location(name, INTEGRATION)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as Open WebUI registers a plugin's module before running it
    spec.loader.exec_module(module)
    return module
