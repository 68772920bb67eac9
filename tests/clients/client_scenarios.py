"""Each app's scenarios (scenarios/<app>.py, named for a served app): `play(client)` for every client of the
matrix; `play_without_widgets(host)` and `play_with_widgets(host)`, and in 2025-11-25 alone `play_answered_late(host)`
and `play_unanswered(host)`, where an app has them, for the clients that can play a host answering input
requests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("[!_]*.py"))


def scenario(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"client_scenario_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scenarios_with(play: str) -> list[Path]:
    """The scenarios that define `play`."""
    return [path for path in SCENARIOS if hasattr(scenario(path), play)]
