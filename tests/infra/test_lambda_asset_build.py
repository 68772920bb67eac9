"""The Lambda asset, built without Docker from the lockfile: contents, platform, bytecode, size, and that it really
serves (natively, under Debian's CPython 3.13 for this machine; `make asset-smoke` runs the arm64 one)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import pytest
from widget_mcp.apps.registry import APPS, CONFORMANCE_APP
from widget_mcp.cdk.lambda_code import LocalAssetBundler
from widget_mcp.lambda_asset import debian_python
from widget_mcp.lambda_asset.build import (
    MANIFEST_NAME,
    SIGN_IN_ONLY,
    asset,
    asset_key,
    built_manifest,
    compile_bytecode,
    compiler,
    runtime_provided,
)
from widget_mcp.lambda_asset.source import EXCLUDED_SOURCES, RUNTIME_PROVIDED, LambdaSource
from widget_mcp.lambda_asset.target import Target

HERE = Path(__file__).resolve().parent
REPOSITORY = LambdaSource.repository()
LAMBDA_SRC = REPOSITORY.source_root
SAMPLE_EVENT = HERE.parent / "events" / "apigw-http-v2.json"
LAMBDA = Target("arm64", "3.13")
LAMBDA_WITH_SIGN_IN = Target("arm64", "3.13", sign_in=True)
EM_AARCH64 = 183
DEV_ONLY = ("pytest", "moto", "ruff", "mypy", "playwright", "aws_cdk", "cdk_nag", "cfnlint", "jsii", "boto3_stubs")
# A .pyc header: magic (CPython 3.13 is 3571, then \r\n), then a flags word: 0 timestamp-based, 0b11 hash-based
# and checked against the source, 0b01 hash-based and unchecked (what survives zip extraction's timestamps).
MAGIC_3_13 = b"\xf3\r\r\n"
UNCHECKED_HASH = 0b01


def _pyc_header(path: Path) -> tuple[bytes, int]:
    header = path.read_bytes()[:16]
    return header[:4], int.from_bytes(header[4:8], "little")


def _bytecode_of(root: Path, module: str) -> Path:
    """Where CPython 3.13 looks for the bytecode of `module` (a .py path relative to `root`)."""
    source = root / module
    return source.parent / "__pycache__" / f"{source.stem}.cpython-313.pyc"


@pytest.fixture(scope="module")
def lambda_asset() -> Path:
    return asset(LAMBDA, built_manifest())


@pytest.fixture(scope="module")
def sign_in_asset() -> Path:
    return asset(LAMBDA_WITH_SIGN_IN, built_manifest())


@pytest.fixture(scope="module")
def probe_python() -> debian_python.Interpreter:
    """Lambda's Python version for this machine: Debian's CPython 3.13, which the asset build fetches anyway."""
    return compiler(LAMBDA)


@pytest.fixture(scope="module", params=[False, True], ids=["without-sign-in", "with-sign-in"])
def host_asset(request: pytest.FixtureRequest) -> tuple[Path, Path, bool]:
    """The same lockfile and recipe built for this machine's architecture, which it can import."""
    target = Target.host("3.13", sign_in=request.param)
    return asset(target, built_manifest()), runtime_provided(target), request.param


@pytest.fixture(scope="module")
def probe_report(host_asset: tuple[Path, Path, bool], probe_python: debian_python.Interpreter) -> dict[str, Any]:
    """asset_probe.py's report: the host variant imports the handler and answers initialize, tools/list, /healthz."""
    code, runtime, sign_in = host_asset
    # What widget_mcp/cdk/mcp_api.py sets with `-c signIn=true` (the JWKS is fetched only when a token arrives).
    oauth = {
        "AUTH_MODE": "oauth",
        "OAUTH_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example",
        "OAUTH_AUDIENCE": "example-client,https://abc123.execute-api.eu-west-1.amazonaws.com/mcp",
    }
    manifest = code / MANIFEST_NAME
    env = {
        "PATH": os.environ.get("PATH", ""),
        "TABLE_NAME": "widget-mcp-state",
        "ALLOWED_HOSTS": "abc123.execute-api.eu-west-1.amazonaws.com",
        "WIDGET_BASE_URL": "https://d111111abcdef8.cloudfront.net/widgets",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "AWS_DEFAULT_REGION": "eu-west-1",
        **({"WIDGET_MANIFEST": str(manifest)} if manifest.is_file() else {}),
        **(oauth if sign_in else {}),
    }
    # -I: no PYTHONPATH or user site; -S: no site-packages at all; -B: /var/task is read-only, so no bytecode.
    argv = probe_python.command("-I", "-S", "-B", HERE / "asset_probe.py", code, runtime, SAMPLE_EVENT)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def _dists(root: Path) -> set[str]:
    return {p.name.split("-")[0].lower().replace("_", "-") for p in root.glob("*.dist-info")}


def _elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", f"{path} is not an ELF file"
    return int.from_bytes(header[18:20], "little")


def test_the_asset_holds_the_handler_and_the_locked_runtime_dependencies(lambda_asset: Path) -> None:
    assert (lambda_asset / "widget_mcp" / "handler.py").is_file()
    dists = _dists(lambda_asset)
    assert {"mcp", "fastapi", "mangum", "pydantic", "aws-lambda-powertools"} <= dists
    assert "chess-1.11.2.dist-info" in {p.name for p in lambda_asset.glob("chess-*.dist-info")}, "not 1.10 from wheels"


def test_the_asset_leaves_out_tests_dev_tools_local_mode_and_what_lambda_provides(lambda_asset: Path) -> None:
    top = {p.name for p in lambda_asset.iterdir()}
    assert not top & {*DEV_ONLY, "tests"}
    assert not _dists(lambda_asset) & set(RUNTIME_PROVIDED)
    assert not (lambda_asset / "widget_mcp" / "local").exists()
    assert not (lambda_asset / "widget_mcp" / "readiness").exists()
    assert not (lambda_asset / CONFORMANCE_APP.replace(".", "/")).exists()
    assert not list(lambda_asset.glob("*/tests")), "package test suites never run in Lambda"
    assert not list(lambda_asset.rglob("*.pyi"))


# What the function never runs, in this checkout: local mode, the readiness check, the publishing tools, the project
# generator, the command, the tests' client, the CDK construct and the asset builder.
DEVELOPMENT_ROOMS = (
    "local/",
    "readiness/",
    "publishing/submission.py",
    "publishing/legal.py",
    "project/",
    "cli.py",
    "testing.py",
    "cdk/",
    "lambda_asset/",
)


def test_the_assets_sources_hold_every_registered_app_and_no_development_room() -> None:
    packaged = {path.relative_to(LAMBDA_SRC).as_posix() for path in REPOSITORY.files()}

    def files_of(module: str) -> set[str]:
        return {name for name in packaged if name.startswith(module.replace(".", "/") + "/")}

    # The conformance fixtures live with their tests, never in the package.
    assert (LAMBDA_SRC.parent / "tests" / "conformance" / CONFORMANCE_APP / "__init__.py").is_file()
    assert not (LAMBDA_SRC / CONFORMANCE_APP).exists()
    assert [name for name in packaged if name.startswith(EXCLUDED_SOURCES)] == []
    # Named here, not read from EXCLUDED_SOURCES, so a room dropped from that list is seen.
    rooms = [f"widget_mcp/{room}" for room in DEVELOPMENT_ROOMS]
    assert [room for room in rooms if not (LAMBDA_SRC / room).exists()] == [], "a room this test names is gone"
    assert sorted(name for name in packaged if name.startswith(tuple(rooms))) == []
    assert [app for app in APPS if f"{app.replace('.', '/')}/__init__.py" not in files_of(app)] == []


def test_every_pyc_in_the_asset_is_cpython_3_13_unchecked_hash_bytecode_beside_its_source(lambda_asset: Path) -> None:
    compiled = list(lambda_asset.rglob("*.pyc"))
    assert len(compiled) > 300
    for pyc in compiled:
        assert pyc.parent.name == "__pycache__", pyc
        assert pyc.name.endswith(".cpython-313.pyc"), pyc
        assert _pyc_header(pyc) == (MAGIC_3_13, UNCHECKED_HASH), pyc
        assert (pyc.parent.parent / f"{pyc.name.split('.')[0]}.py").is_file(), f"{pyc} has no source"
    own = list((lambda_asset / "widget_mcp").rglob("*.py"))
    assert all(_bytecode_of(lambda_asset, p.relative_to(lambda_asset).as_posix()).is_file() for p in own)


def test_bytecode_compiles_the_same_bytes_every_time_and_names_var_task(tmp_path: Path) -> None:
    # Set constants are ordered by string hashes: without a fixed seed two builds would differ.
    source = "CHOICES = frozenset({'rook', 'bishop', 'knight', 'queen', 'pawn', 'king'})\n"
    copies = []
    for name in ("one", "two"):
        root = tmp_path / name
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "pieces.py").write_text(source)
        compile_bytecode(root, ["pkg/pieces.py"], LAMBDA, tmp_path)
        copies.append(_bytecode_of(root, "pkg/pieces.py").read_bytes())
    assert copies[0] == copies[1]
    assert b"/var/task/pkg/pieces.py" in copies[0]
    assert str(tmp_path).encode() not in copies[0]


def test_the_cdk_asset_hash_is_stable_and_never_needs_the_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fetch(*_: Any, **__: Any) -> Any:
        raise AssertionError("the asset hash must not depend on Debian's Python")

    monkeypatch.setattr(debian_python, "python", no_fetch)
    assert asset_key(LAMBDA, built_manifest()) == asset_key(LAMBDA, built_manifest())
    assert asset_key(LAMBDA, built_manifest()) != asset_key(LAMBDA_WITH_SIGN_IN, built_manifest())


def test_bytecode_needs_cpython_3_13_and_says_so_for_another_version() -> None:
    with pytest.raises(RuntimeError, match=r"needs CPython 3\.12 to compile; the build fetches only Debian's 3\.13"):
        compiler(Target("arm64", "3.12"))


def test_every_compiled_extension_is_built_for_arm64_linux_and_cpython_3_13(lambda_asset: Path) -> None:
    extensions = list(lambda_asset.rglob("*.so"))
    assert extensions, "pydantic-core at least is compiled"
    for ext in extensions:
        assert _elf_machine(ext) == EM_AARCH64, ext
        assert "cpython-313-aarch64" in ext.name or ".abi3." in ext.name, ext


def test_token_verification_libraries_ship_only_in_the_sign_in_variant(lambda_asset: Path, sign_in_asset: Path) -> None:
    assert not _dists(lambda_asset) & set(SIGN_IN_ONLY)
    assert not [p.name for p in lambda_asset.iterdir() if p.name.startswith(("jwt", "cryptography", "_cffi"))]
    assert _dists(sign_in_asset) - _dists(lambda_asset) == set(SIGN_IN_ONLY)


def test_the_bundle_manifest_is_packaged_only_when_the_bundles_are_built(lambda_asset: Path) -> None:
    assert (lambda_asset / MANIFEST_NAME).is_file() == (built_manifest() is not None)


def test_cdk_local_bundling_copies_the_cached_build(tmp_path: Path, lambda_asset: Path) -> None:
    assert LocalAssetBundler(LAMBDA, built_manifest()).try_bundle(str(tmp_path)) is True
    assert (tmp_path / "widget_mcp" / "handler.py").read_bytes() == (
        lambda_asset / "widget_mcp/handler.py"
    ).read_bytes()
    assert not (tmp_path / ".complete").exists()


def test_the_host_variant_the_import_test_uses_has_the_same_distributions(
    lambda_asset: Path, sign_in_asset: Path, host_asset: tuple[Path, Path, bool]
) -> None:
    code, _, sign_in = host_asset
    assert _dists(code) == _dists(sign_in_asset if sign_in else lambda_asset)


def test_the_asset_alone_imports_the_handler_and_answers_initialize_and_tools_list(
    host_asset: tuple[Path, Path, bool], probe_report: dict[str, Any], record_property: Any
) -> None:
    sign_in = host_asset[2]
    report = probe_report
    record_property("probe_python", f"{report['python']} {report['executable']} on {platform.machine()}")
    assert report["python"].startswith("3.13")
    assert report["initialize"]["status"] == 200
    assert report["initialize"]["body"]["result"]["serverInfo"]["name"] == "widget-mcp"
    assert report["tools"]["status"] == 200
    assert "display_demo" in {t["name"] for t in report["tools"]["body"]["result"]["tools"]}
    assert report["health"]["status"] == 200
    assert report["token_checks_loaded"] is sign_in
    assert report["foreign_modules"] == []


def test_the_handler_loads_the_assets_bytecode_instead_of_compiling_its_sources(probe_report: dict[str, Any]) -> None:
    # /var/task is read-only: a module compiled from source at init is compiled again on every on-demand cold start.
    assert len(probe_report["asset_code_requested"]) > 200
    assert probe_report["asset_compiled_from_source"] == []


def test_every_module_a_cold_start_loads_has_cpython_3_13_unchecked_hash_bytecode_in_the_arm64_asset(
    host_asset: tuple[Path, Path, bool], lambda_asset: Path, sign_in_asset: Path, probe_report: dict[str, Any]
) -> None:
    deployed = sign_in_asset if host_asset[2] else lambda_asset
    loaded = probe_report["asset_code_requested"]
    assert [m for m in loaded if not _bytecode_of(deployed, m).is_file()] == []
    assert {_pyc_header(_bytecode_of(deployed, m)) for m in loaded} == {(MAGIC_3_13, UNCHECKED_HASH)}


def test_of_publishing_the_asset_keeps_the_challenge_routes_the_function_serves_and_none_of_the_tools() -> None:
    publishing = {
        path.relative_to(LAMBDA_SRC / "widget_mcp/publishing").as_posix()
        for path in REPOSITORY.files()
        if path.is_relative_to(LAMBDA_SRC / "widget_mcp/publishing")
    }
    assert publishing == {"__init__.py", "challenges.py"}
