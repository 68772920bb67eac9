"""The Lambda asset of a project laid out as `widget-mcp new` makes one (pyproject.toml and uv.lock at its root,
widget-mcp a locked dependency from a wheel file, its app package under src/): requirements come from the project's
own lock, sources are its app packages, the toolkit is installed like any dependency and loses the rooms Lambda never
runs. The toolkit's wheel here is a stand-in zipped from lambda_src/widget_mcp (no dependencies of its own), so the
project locks and installs offline."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from widget_mcp.lambda_asset.build import asset_key, dependencies, remove_excluded_rooms
from widget_mcp.lambda_asset.source import (
    EXCLUDED_SOURCES,
    PACKAGE,
    LambdaSource,
    SourceError,
    block_name,
    blocks,
    locked_requirements,
    uv_of,
)
from widget_mcp.lambda_asset.target import Target

REPOSITORY = LambdaSource.repository()
APP = "weather"
WHEEL = "widget_mcp-0.0.0-py3-none-any.whl"


def _stand_in_wheel(folder: Path) -> Path:
    """The toolkit's sources as a wheel (every room included, as the real wheel ships them)."""
    wheel = folder / WHEEL
    info = "widget_mcp-0.0.0.dist-info"
    records = []
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in sorted((REPOSITORY.source_root / PACKAGE).rglob("*.py")):
            name = path.relative_to(REPOSITORY.source_root).as_posix()
            data = path.read_bytes()
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(data)}")
        archive.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: widget-mcp\nVersion: 0.0.0\n")
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(
            f"{info}/RECORD", "\n".join([*records, f"{info}/METADATA,,", f"{info}/WHEEL,,", f"{info}/RECORD,,"])
        )
    return wheel


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("weather-project")
    (root / "wheels").mkdir()
    _stand_in_wheel(root / "wheels")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "weather"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = ["widget-mcp"]\n\n'
        f'[tool.uv]\npackage = false\n\n[tool.uv.sources]\nwidget-mcp = {{ path = "wheels/{WHEEL}" }}\n'
    )
    app = root / "src" / APP
    app.mkdir(parents=True)
    (app / "__init__.py").write_text('"""A project\'s app."""\n\nfrom weather.tools import tool_book\n')
    (app / "tools.py").write_text("def tool_book(context):\n    raise NotImplementedError\n")
    (app / "__pycache__").mkdir()
    (app / "__pycache__" / "tools.cpython-311.pyc").write_bytes(b"stale")
    uv = root / ".tools" / "bin" / "uv"  # where a generated project's Makefile keeps its uv
    uv.parent.mkdir(parents=True)
    uv.symlink_to(uv_of(REPOSITORY.root))
    done = subprocess.run([str(uv), "lock", "--offline"], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return root


def test_a_projects_asset_takes_its_requirements_from_its_own_lock_with_the_toolkit_among_them(project: Path) -> None:
    source = LambdaSource.project(project, apps=[APP])
    requirements = locked_requirements(source)
    assert [block_name(block) for block in blocks(requirements)] == ["widget-mcp"]
    assert "--hash=sha256:" in requirements  # installed with --require-hashes like every locked dependency
    assert source.source_root == project / "src"
    assert source.own_packages == (APP, PACKAGE)  # both compiled whole: the app's sources and the installed toolkit
    assert source.cache == project / "build" / "lambda"


def test_a_projects_asset_sources_are_its_app_packages_and_nothing_of_the_toolkits_checkout(project: Path) -> None:
    source = LambdaSource.project(project, apps=[APP])
    files = [path.relative_to(project / "src").as_posix() for path in source.files()]
    assert files == [f"{APP}/__init__.py", f"{APP}/tools.py"]


def test_a_projects_asset_key_follows_its_sources_its_apps_and_differs_from_the_toolkits(project: Path) -> None:
    target = Target("arm64", "3.13")
    source = LambdaSource.project(project, apps=[APP])
    key = asset_key(target, None, source)
    assert key == asset_key(target, None, LambdaSource.project(project, apps=[APP]))
    assert key != asset_key(target, None, REPOSITORY)
    assert key != asset_key(target, None, LambdaSource.project(project, apps=[APP, f"{APP}.tools"]))
    tools = project / "src" / APP / "tools.py"
    original = tools.read_text()
    try:
        tools.write_text(original + "# changed\n")
        assert asset_key(target, None, source) != key
    finally:
        tools.write_text(original)


def test_the_toolkit_installed_from_a_projects_lock_loses_the_rooms_lambda_never_runs(
    project: Path, tmp_path: Path
) -> None:
    source = LambdaSource.project(project, apps=[APP])
    installed = dependencies(Target.host("3.13"), source)
    assert installed.is_relative_to(project / "build" / "lambda")
    site = tmp_path / "site"
    shutil.copytree(installed, site)
    assert (site / PACKAGE / "cdk" / "service.py").is_file()  # the wheel ships every room
    remove_excluded_rooms(site)
    assert (site / PACKAGE / "handler.py").is_file()
    left = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()]
    assert [name for name in left if name.startswith(EXCLUDED_SOURCES)] == []
    assert not (site / PACKAGE / "cdk").exists()
    assert not (site / PACKAGE / "lambda_asset").exists()


def test_a_project_without_a_lock_or_without_its_app_package_is_refused_with_a_sentence(
    project: Path, tmp_path: Path
) -> None:
    with pytest.raises(SourceError, match=r"has no uv\.lock"):
        LambdaSource.project(tmp_path, apps=[APP])
    with pytest.raises(SourceError, match="packages nowhere are neither under"):
        LambdaSource.project(project, apps=["nowhere.tools"])
    with pytest.raises(SourceError, match="name at least one app package"):
        LambdaSource.project(project, apps=[])


def test_uv_is_found_in_the_uv_variable_then_the_projects_tools_then_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV", "/opt/uv/bin/uv")
    assert uv_of(tmp_path) == Path("/opt/uv/bin/uv")
    monkeypatch.delenv("UV")
    tools = tmp_path / ".tools" / "bin" / "uv"
    tools.parent.mkdir(parents=True)
    tools.write_text("")
    on_path = tmp_path / "bin" / "uv"
    on_path.parent.mkdir()
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert uv_of(tmp_path) == tools
    tools.unlink()
    assert uv_of(tmp_path) == on_path
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SourceError, match="none was found"):
        uv_of(tmp_path)
