"""`widget-mcp new`: what a generated project holds, and the names and folders it refuses."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest
from widget_mcp.local.paths import TOOLKIT_BUNDLES
from widget_mcp.project.generate import GenerateError, generate, planned_files
from widget_mcp.project.templates import TEST_TOOLS
from widget_mcp.project.toolkit_pin import ToolkitPin

ROOT = Path(__file__).resolve().parents[2]
PIN = ToolkitPin("1.2.3")


def _free_name() -> str:
    """An app name nothing on this path takes (a user's own app may be called weather)."""
    return next(
        name for name in ("weather", "tide_tables", "zz_generated_app") if importlib.util.find_spec(name) is None
    )


NAME = _free_name()


def test_a_project_has_its_app_under_src_its_tests_a_cdk_app_and_the_make_verbs() -> None:
    files = planned_files(NAME, pin=PIN)
    assert {Path(f"src/{NAME}/__init__.py"), Path(f"src/{NAME}/tools.py"), Path("infra/app.py")} <= set(files)
    assert any(path.parts[0] == "tests" and path.name.startswith("test_") for path in files)
    makefile = files[Path("Makefile")]
    for verb in ("dev", "test", "synth", "deploy", "check-app", "submission"):
        assert re.search(rf"(?m)^{verb}:", makefile), verb
    assert f"export WIDGET_MCP_APPS := {NAME}" in makefile
    assert "make test" in files[Path(".ci/run")]


def test_the_app_imports_its_own_package_and_the_public_api_never_the_toolkits_apps() -> None:
    for path, text in planned_files(NAME, pin=PIN).items():
        if path.suffix != ".py":
            continue
        ast.parse(text)  # every generated Python file is valid
        assert "widget_mcp.apps" not in text, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("widget_mcp."):
                assert node.module in {"widget_mcp.testing", "widget_mcp.cdk"}, (path, node.module)


def test_the_pyproject_pins_the_toolkit_and_its_extras_at_this_version() -> None:
    pyproject = tomllib.loads(planned_files(NAME, pin=PIN)[Path("pyproject.toml")])
    assert pyproject["project"]["dependencies"] == ["widget-mcp==1.2.3"]
    assert "widget-mcp[local,cdk]==1.2.3" in pyproject["dependency-groups"]["dev"]
    assert "sources" not in pyproject["tool"]["uv"]


def test_a_toolkit_installed_from_a_wheel_file_is_copied_into_the_project_and_named_relatively(tmp_path: Path) -> None:
    wheel = tmp_path / "widget_mcp-1.2.3-py3-none-any.whl"
    wheel.write_bytes(b"a wheel")
    generated = generate(NAME, tmp_path / NAME, pin=ToolkitPin("1.2.3", wheel))
    pyproject = tomllib.loads((generated.root / "pyproject.toml").read_text())
    assert pyproject["tool"]["uv"]["sources"] == {"widget-mcp": {"path": f"wheels/{wheel.name}"}}
    assert (generated.root / "wheels" / wheel.name).read_bytes() == b"a wheel"


def test_the_test_tools_are_pinned_at_the_versions_the_toolkit_locks() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    locked = {package["name"]: package["version"] for package in lock["package"]}
    for tool in TEST_TOOLS:
        name, version = tool.split("==")
        assert locked[name] == version, f"{tool}: uv.lock has {locked[name]}"


@pytest.mark.parametrize(
    ("name", "says"),
    [
        # Not a package name.
        *((name, "lower-case letters") for name in ["Weather", "w", "weather-app", "2weather", "a__b", "weather_"]),
        # A keyword; what the project imports or holds (the toolkit, its infra/ and tests/ folders); a standard module
        # (src/ comes first on the project's path, so it would hide it).
        *(
            (name, "taken by Python or by what the project imports")
            for name in ["class", "widget_mcp", "infra", "json"]
        ),
        ("calendar", "taken by Python or by what the project imports"),
        # An installed package (the test runner is installed wherever these tests run).
        ("pytest", "installed beside the toolkit"),
    ],
)
def test_a_name_that_cannot_be_the_apps_package_is_refused_naming_it(name: str, says: str) -> None:
    with pytest.raises(GenerateError, match=says) as raised:
        planned_files(name, pin=PIN)
    assert raised.value.subject == name


def test_a_folder_that_is_not_empty_is_left_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(GenerateError, match="not an empty folder"):
        generate(NAME, tmp_path, pin=PIN)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_ci_entry_point_is_executable(tmp_path: Path) -> None:
    generated = generate(NAME, tmp_path / NAME, pin=PIN)
    assert (generated.root / ".ci" / "run").stat().st_mode & 0o111


def _toolkit_widget_names() -> list[str]:
    """The app names whose widget entry is one of the toolkit's built entries (kebab-case entry, snake-case name)."""
    entries = json.loads((TOOLKIT_BUNDLES / "manifest.json").read_text())["entries"]
    return [entry.replace("-", "_") for entry in entries]


def test_a_widget_named_like_the_toolkits_widgets_or_kit_folders_is_refused() -> None:
    names = _toolkit_widget_names()
    assert names, "the toolkit's built bundles list entries"
    for name in [*names, "shared", "plugins"]:  # the kit's folders a project's widgets/src links in
        with pytest.raises(GenerateError, match="toolkit's widgets"):
            planned_files(name, widget=True, pin=PIN)
    assert Path(f"src/{NAME}/__init__.py") in planned_files(NAME, widget=True, pin=PIN)  # a free name is taken


def test_the_projects_tests_register_its_app_without_make() -> None:
    conftest = planned_files(NAME, pin=PIN)[Path("tests/conftest.py")]
    assert f'os.environ.setdefault("WIDGET_MCP_APPS", "{NAME}")' in conftest


def test_a_path_that_is_a_file_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text("mine")
    with pytest.raises(GenerateError, match="not an empty folder"):
        generate(NAME, tmp_path / NAME, pin=PIN)
    assert (tmp_path / NAME).read_text() == "mine"
