"""The Lambda asset, built without Docker from the lockfile: contents, platform, size, and that it really serves."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from infra.asset_build import (
    MANIFEST_NAME,
    RUNTIME_PROVIDED,
    SIGN_IN_ONLY,
    Target,
    asset,
    built_manifest,
    runtime_provided,
    size_bytes,
)
from infra.lambda_code import LocalAssetBundler

HERE = Path(__file__).resolve().parent
SAMPLE_EVENT = HERE.parent / "events" / "apigw-http-v2.json"
LAMBDA = Target("arm64", "3.13")
LAMBDA_WITH_SIGN_IN = Target("arm64", "3.13", sign_in=True)
SIZE_BUDGET_MB = 30
# cryptography (14 MB) comes with token verification; see infra/README.
SIGN_IN_SIZE_BUDGET_MB = 45
EM_AARCH64 = 183
DEV_ONLY = ("pytest", "moto", "ruff", "mypy", "playwright", "aws_cdk", "cdk_nag", "cfnlint", "jsii", "boto3_stubs")


def _python_313() -> str | None:
    """Python 3.13 (Lambda's) if this machine has it: on PATH, or as a pyenv version."""
    found = shutil.which("python3.13")
    if found and subprocess.run([found, "-V"], capture_output=True, check=False).returncode == 0:
        return found
    pyenv = sorted(Path.home().glob(".pyenv/versions/3.13*/bin/python3.13"))
    return str(pyenv[-1]) if pyenv else None


@pytest.fixture(scope="module")
def lambda_asset() -> Path:
    return asset(LAMBDA, built_manifest())


@pytest.fixture(scope="module")
def sign_in_asset() -> Path:
    return asset(LAMBDA_WITH_SIGN_IN, built_manifest())


@pytest.fixture(scope="module")
def probe_python() -> tuple[str, str]:
    """The interpreter for the import test and its X.Y: 3.13 when present, else this one (and a matching build)."""
    found = _python_313()
    if found:
        return found, "3.13"
    return sys.executable, f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture(scope="module", params=[False, True], ids=["without-sign-in", "with-sign-in"])
def host_asset(request: pytest.FixtureRequest, probe_python: tuple[str, str]) -> tuple[Path, Path, bool]:
    """The same lockfile and recipe built for this machine's architecture, which it can import."""
    target = Target.host(probe_python[1], sign_in=request.param)
    return asset(target, built_manifest()), runtime_provided(target), request.param


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
    assert not list(lambda_asset.rglob("__pycache__"))


def test_every_compiled_extension_is_built_for_arm64_linux_and_cpython_3_13(lambda_asset: Path) -> None:
    extensions = list(lambda_asset.rglob("*.so"))
    assert extensions, "pydantic-core at least is compiled"
    for ext in extensions:
        assert _elf_machine(ext) == EM_AARCH64, ext
        assert "cpython-313-aarch64" in ext.name or ".abi3." in ext.name, ext


def test_the_asset_fits_its_size_budget(lambda_asset: Path) -> None:
    size_mb = size_bytes(lambda_asset) / 1e6
    assert size_mb <= SIZE_BUDGET_MB, f"{size_mb:.1f} MB unzipped"


def test_token_verification_libraries_ship_only_in_the_sign_in_variant(lambda_asset: Path, sign_in_asset: Path) -> None:
    assert not _dists(lambda_asset) & set(SIGN_IN_ONLY)
    assert not [p.name for p in lambda_asset.iterdir() if p.name.startswith(("jwt", "cryptography", "_cffi"))]
    assert _dists(sign_in_asset) - _dists(lambda_asset) == set(SIGN_IN_ONLY)
    size_mb = size_bytes(sign_in_asset) / 1e6
    assert size_mb <= SIGN_IN_SIZE_BUDGET_MB, f"{size_mb:.1f} MB unzipped"


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
    host_asset: tuple[Path, Path, bool], probe_python: tuple[str, str], record_property: Any
) -> None:
    code, runtime, sign_in = host_asset
    # What infra/mcp_api.py sets with `-c signIn=true` (the JWKS is fetched only when a token arrives).
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
    argv = [probe_python[0], "-I", "-S", "-B", str(HERE / "asset_probe.py"), str(code), str(runtime), str(SAMPLE_EVENT)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    record_property("probe_python", f"{report['python']} {report['executable']} on {platform.machine()}")
    assert report["python"].startswith(probe_python[1])
    assert report["initialize"]["status"] == 200
    assert report["initialize"]["body"]["result"]["serverInfo"]["name"] == "widget-mcp"
    assert report["tools"]["status"] == 200
    assert "display_demo" in {t["name"] for t in report["tools"]["body"]["result"]["tools"]}
    assert report["health"]["status"] == 200
    assert report["token_checks_loaded"] is sign_in
    assert report["foreign_modules"] == []
