"""What an app may import is `widget_mcp.__all__`; tests/public_api.txt records it, so a name cannot leave without a
deprecation nor arrive without being recorded (and documented)."""

from __future__ import annotations

import ast
import importlib
import inspect
import warnings
from pathlib import Path

import pytest
import widget_mcp
from widget_mcp.apps import registry

RECORD = Path(__file__).parents[1] / "public_api.txt"


# A project's tests may also import these modules' `__all__`, recorded as `<module>.<name>`.
PUBLIC_MODULES = ("testing",)


def _recorded(module: str | None = None) -> list[str]:
    """The recorded names of `widget_mcp` (module None) or of one of its public modules."""
    lines = [line.strip() for line in RECORD.read_text(encoding="utf-8").splitlines() if line.strip()]
    if module is None:
        return [line for line in lines if "." not in line]
    return [line.split(".", 1)[1] for line in lines if line.startswith(f"{module}.")]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_a_public_module_exports_exactly_its_recorded_names_each_documented(module: str) -> None:
    imported = importlib.import_module(f"widget_mcp.{module}")
    assert sorted(imported.__all__) == sorted(_recorded(module)), f"record widget_mcp.{module}.__all__ in {RECORD}"
    assert all(inspect.getdoc(getattr(imported, name)) for name in imported.__all__)


def test_every_recorded_public_name_is_still_exported_or_deprecated_with_advice() -> None:
    gone = [name for name in _recorded() if name not in widget_mcp.__all__ and name not in widget_mcp._DEPRECATED]
    assert not gone, f"{gone} left widget_mcp without a deprecation: map each in widget_mcp._DEPRECATED first"


def test_every_exported_name_is_recorded_and_importable() -> None:
    unrecorded = sorted(set(widget_mcp.__all__) - set(_recorded()))
    assert not unrecorded, f"{unrecorded} are new public names: add them to tests/public_api.txt (and the docs)"
    missing = [name for name in widget_mcp.__all__ if not hasattr(widget_mcp, name)]
    assert not missing


def test_every_public_class_and_function_says_what_it_is_for() -> None:
    undocumented = [
        name
        for name in widget_mcp.__all__
        if (inspect.isclass(value := getattr(widget_mcp, name)) or inspect.isfunction(value))
        and not inspect.getdoc(value)
    ]
    assert not undocumented, f"{undocumented} have no docstring"


def test_a_deprecated_name_still_answers_and_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(widget_mcp._DEPRECATED, "OldBook", (widget_mcp.ToolBook, "use ToolBook"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert widget_mcp.OldBook is widget_mcp.ToolBook
    assert [str(w.message) for w in caught] == ["widget_mcp.OldBook is deprecated: use ToolBook"]
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = widget_mcp.NoSuchName


# The toolkit's own app: erasure and export reach every app's state by reading the registry, which no user app does.
TOOLKIT_APPS = {"widget_mcp.apps.my_data"}


def _outside_imports(package: Path, apps: tuple[str, ...]) -> list[str]:
    """The `widget_mcp` modules the package imports that are neither the public API nor a registered app's package
    (its own, or another app it builds on, as docs/shared-state.md's polls build on the poll app)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            found += [
                f"{path.name}: {module}"
                for module in modules
                if module.startswith("widget_mcp.")
                and not any(module == app or module.startswith(f"{app}.") for app in apps)
            ]
    return found


def test_every_registered_app_imports_only_the_public_api_and_registered_apps() -> None:
    for entry in registry.APPS:
        if entry in TOOLKIT_APPS:
            continue
        package = Path(importlib.import_module(entry).__file__ or "").parent
        user_apps = tuple(app for app in registry.APPS if app not in TOOLKIT_APPS)
        outside = _outside_imports(package, user_apps)
        assert outside == [], (
            f"{entry} imports toolkit modules that may change in any release: {outside}. Import those names from "
            "widget_mcp itself, its public API (docs/api.md; the names are in tests/public_api.txt)"
        )
