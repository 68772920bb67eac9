"""A project of its own registers its apps through WIDGET_MCP_APPS, without editing the toolkit's registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from outside_app import write_outside_app
from widget_mcp.apps.registry import BUILT_IN, DATA_APP, RegistryError, registry_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", [None, "", " , "])
def test_no_listed_package_serves_the_built_in_apps(value: str | None) -> None:
    assert registry_of(value) == BUILT_IN


def test_the_listed_packages_are_served_in_order_and_then_the_data_app() -> None:
    assert registry_of(" weather , acme.notes,weather") == ("weather", "acme.notes", DATA_APP)


def test_the_data_app_listed_by_the_user_keeps_its_place() -> None:
    assert registry_of(f"{DATA_APP},weather") == (DATA_APP, "weather")


@pytest.mark.parametrize("entry", ["weather-app", "acme..notes", "src/weather", "1st"])
def test_an_entry_that_is_no_package_name_is_refused_naming_it(entry: str) -> None:
    with pytest.raises(RegistryError) as raised:
        registry_of(f"weather,{entry}")
    assert raised.value.entry == entry
    assert "WIDGET_MCP_APPS" in str(raised.value)


def test_a_server_started_with_the_variable_lists_the_tools_of_the_package_it_names(tmp_path: Path) -> None:
    write_outside_app(tmp_path, "weather", "weather_now")
    # The tools each app serves, read from the books themselves: the data app's, and the built-in apps' (not served).
    script = (
        "import json\n"
        "from widget_mcp.apps import registry\n"
        "from widget_mcp.apps.books import AppContext, load_books\n"
        "from widget_mcp.settings import Settings\n"
        "from widget_mcp.storage.memory import InMemoryDocumentStore\n"
        "from widget_mcp.wiring import build_books\n"
        "settings, store = Settings(allowed_hosts=('localhost',)), InMemoryDocumentStore()\n"
        "def tools(books): return [n for b in books for n in b.tools]\n"
        "context = AppContext(settings, store)\n"
        "print(json.dumps({'apps': registry.APPS, 'tools': tools(build_books(settings, store)),\n"
        "  'data': tools(load_books(context, (registry.DATA_APP,))),\n"
        "  'built_in': tools(load_books(context, registry.BUILT_IN))}))\n"
    )
    path = os.pathsep.join([str(tmp_path), str(ROOT / "lambda_src")])
    env = {**os.environ, "WIDGET_MCP_APPS": "weather", "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    served = json.loads(done.stdout)
    assert served["apps"] == ["weather", DATA_APP]
    assert served["data"], "the data app serves tools"
    assert served["tools"] == ["weather_now", *served["data"]]
    assert set(served["built_in"]) - set(served["data"]), "the built-in apps serve tools the variable leaves out"
