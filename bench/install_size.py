"""Installed size without boto3: each server's runtime requirements installed the same way, for Lambda's
platform (arm64, Python 3.13), leaving out what the Lambda runtime provides.

Method: `uv pip compile` each server's top-level requirements with uv.lock's versions as constraints, drop
boto3 and its dependencies (`widget_mcp.lambda_asset.source.RUNTIME_PROVIDED`), `uv pip install --no-deps --target` the
rest for aarch64-manylinux2014 and CPython 3.13, remove bin/, share/ and __pycache__ (as lambda_asset/build.py
does), and sum the file sizes; then add the server's own code (ours: the sources the asset ships; a baseline:
its one module).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from widget_mcp.lambda_asset.build import size_bytes
from widget_mcp.lambda_asset.source import RUNTIME_PROVIDED, LambdaSource, uv_of
from widget_mcp.lambda_asset.target import Target

ROOT = Path(__file__).resolve().parent.parent
TARGET = Target("arm64", "3.13")


@dataclass(frozen=True)
class Installed:
    total_bytes: int
    by_package: dict[str, int]  # top-level directory or module in the install, bytes


def _requirements() -> dict[str, list[str]]:
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {"ours": ours, "sdk": ["mcp", "mangum"], "awslabs": ["awslabs.mcp-lambda-handler"]}


def _own_code(kind: str) -> list[Path]:
    if kind == "ours":
        return LambdaSource.repository().files()
    module = {"sdk": "sdk_baseline", "awslabs": "awslabs_baseline"}[kind]
    return [ROOT / "bench" / f"{module}.py"]


def _uv(*args: str | Path) -> str:
    done = subprocess.run([str(uv_of(ROOT)), *map(str, args)], capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"uv {' '.join(map(str, args[:3]))} failed:\n{done.stderr}")
    return done.stdout


def _name(line: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", line)
    return match.group(0).lower().replace("_", "-") if match else ""


def _install(kind: str, top_level: list[str], pins: Path, work: Path) -> Installed:
    platform = ["--python-version", TARGET.python, "--python-platform", TARGET.uv_platform]
    (work / f"{kind}.in").write_text("\n".join(top_level) + "\n")
    compiled = _uv("pip", "compile", work / f"{kind}.in", "--constraint", pins, *platform, "--no-header", "--quiet")
    kept = [line for line in compiled.splitlines() if line.strip() and not line.startswith((" ", "#"))]
    kept = [line for line in kept if _name(line) not in RUNTIME_PROVIDED]
    (work / f"{kind}.txt").write_text("\n".join(kept) + "\n")
    dest = work / kind
    _uv("pip", "install", "--quiet", "--no-deps", "--target", dest, *platform, "-r", work / f"{kind}.txt")
    for junk in ("bin", "share"):
        shutil.rmtree(dest / junk, ignore_errors=True)
    for cache in list(dest.rglob("__pycache__")):
        shutil.rmtree(cache)
    by_package: Counter[str] = Counter()
    for path in dest.iterdir():
        name = path.name.split(".dist-info")[0].split("-")[0] if path.name.endswith(".dist-info") else path.name
        by_package[name.removesuffix(".py")] += size_bytes(path) if path.is_dir() else path.stat().st_size
    by_package["(server code)"] = sum(p.stat().st_size for p in _own_code(kind))
    return Installed(sum(by_package.values()), dict(by_package))


def measure() -> dict[str, Installed]:
    with tempfile.TemporaryDirectory(prefix="bench-size-") as tmp:
        work = Path(tmp)
        pins = work / "pins.txt"  # every locked version, so a package shared by two servers is the same wheel
        pins.write_text(
            _uv("export", "--frozen", "--no-dev", "--no-emit-project", "--no-hashes", "--no-header", "--no-annotate")
        )
        return {kind: _install(kind, reqs, pins, work) for kind, reqs in _requirements().items()}
