"""What a function's code is made of: a project's locked runtime dependencies (from its uv.lock) and its own
packages. This repository's function is the toolkit's sources (`lambda_src/widget_mcp`) on its own lock; a project
made by `widget-mcp new` is its app packages on a lock that holds widget-mcp itself, installed like any dependency."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from widget_mcp.local.paths import IN_CHECKOUT, REPO

PACKAGE = "widget_mcp"
# The Lambda runtime ships boto3 with its dependencies (beside the interpreter, after /var/task on sys.path);
# leaving them out saves ~27 MB.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3")
# Local mode (moto, uvicorn, the playground), the readiness check (an MCP client), the publishing tools
# (`make submission`, the legal pages built at synth), the CDK construct and this asset builder never run in Lambda;
# of publishing, the function serves only the directories' challenge routes (publishing/challenges.py). Left out of
# the toolkit's sources here, and out of its installed copy in a project's asset.
_PUBLISHING_TOOLS = ("__main__.py", "legal.py", "limits.py", "screenshots.py", "submission.py", "schemas/")
EXCLUDED_SOURCES = (
    f"{PACKAGE}/local/",
    f"{PACKAGE}/readiness/",
    *(f"{PACKAGE}/publishing/{tool}" for tool in _PUBLISHING_TOOLS),
    f"{PACKAGE}/cdk/",
    f"{PACKAGE}/lambda_asset/",
    # The prebuilt widget bundles a wheel carries for local mode: the function serves them from the CDN.
    f"{PACKAGE}/_bundles/",
    # The project generator, its widget kit, the command and the tests' client: development tools all.
    f"{PACKAGE}/project/",
    f"{PACKAGE}/_widget_kit/",
    f"{PACKAGE}/_integrations/",
    f"{PACKAGE}/cli.py",
    f"{PACKAGE}/testing.py",
)
# This checkout, when the toolkit runs from one; None from a wheel.
REPOSITORY_ROOT = REPO if IN_CHECKOUT else None


class SourceError(ValueError):
    """A project cannot be built into an asset as described (no lock, no such package); the message says which."""


@dataclass(frozen=True)
class LambdaSource:
    """A project's code for the function: `root` holds pyproject.toml and uv.lock (the runtime dependencies are
    exported from that lock, no dependency group), `source_root` the folder holding `packages`, copied into the
    asset beside those dependencies. `apps` are the app packages the function registers (its WIDGET_MCP_APPS),
    none for the toolkit's built-in registry. Builds are cached under `root/build/lambda`."""

    root: Path
    source_root: Path
    packages: tuple[str, ...]
    apps: tuple[str, ...] = field(default=())

    @classmethod
    def repository(cls) -> LambdaSource:
        """This checkout of the toolkit: its uv.lock, and `lambda_src/widget_mcp` as the sources."""
        if REPOSITORY_ROOT is None:
            raise SourceError(
                "the toolkit is installed, not checked out, so it has no sources of its own to build: describe your "
                "project with LambdaSource.project(root, apps=[...])"
            )
        return cls(REPOSITORY_ROOT, REPOSITORY_ROOT / "lambda_src", (PACKAGE,))

    @classmethod
    def project(cls, root: Path, *, apps: Sequence[str]) -> LambdaSource:
        """A project laid out as `widget-mcp new` makes one: pyproject.toml and uv.lock at `root` (widget-mcp among
        the locked dependencies), the app packages (`apps`, import paths) under `root/src/` or `root/`."""
        root = root.resolve()
        if not apps:
            raise SourceError("a project's function serves its own apps: name at least one app package")
        if not (root / "uv.lock").is_file():
            raise SourceError(f"{root} has no uv.lock: run `uv lock` there first (the asset installs what it locks)")
        packages = tuple(dict.fromkeys(app.split(".", 1)[0] for app in apps))
        for source_root in (root / "src", root):
            if all((source_root / package / "__init__.py").is_file() for package in packages):
                return cls(root, source_root, packages, tuple(apps))
        raise SourceError(f"packages {', '.join(packages)} are neither under {root / 'src'} nor under {root}")

    @property
    def cache(self) -> Path:
        """Where the builds are cached: `root/build/lambda`."""
        return self.root / "build" / "lambda"

    @property
    def own_packages(self) -> tuple[str, ...]:
        """The packages compiled whole: the project's and the toolkit's (installed, in a project's asset)."""
        return tuple(dict.fromkeys((*self.packages, PACKAGE)))

    @property
    def tools_python(self) -> Path:
        """A Python with pip, which builds the wheels of source-only dependencies: the project's `.tools`, else this."""
        tools = self.root / ".tools" / "bin" / "python"
        return tools if tools.is_file() else Path(sys.executable)

    def files(self) -> list[Path]:
        """The project's files the asset holds (its sources; their bytecode is compiled beside them)."""
        found = []
        for package in self.packages:
            for path in sorted((self.source_root / package).rglob("*")):
                rel = path.relative_to(self.source_root).as_posix()
                if path.is_file() and "__pycache__" not in rel and not rel.startswith(EXCLUDED_SOURCES):
                    found.append(path)
        return found


def uv_of(root: Path) -> Path:
    """uv: `$UV`, else `.tools/bin/uv` under `root`, else the first on PATH."""
    explicit = os.environ.get("UV")
    if explicit:
        return Path(explicit)
    local = root / ".tools" / "bin" / "uv"
    if local.is_file():
        return local
    found = shutil.which("uv")
    if found is None:
        raise SourceError("the Lambda asset is built with uv, and none was found: set UV, or put uv on PATH")
    return Path(found)


def run(args: Sequence[str | Path], cwd: Path) -> str:
    """Run a program; its stdout, or RuntimeError with its stderr."""
    # Fixed programs (uv, pip) with arguments built here, never from user input.
    done = subprocess.run([str(a) for a in args], check=False, capture_output=True, text=True, cwd=cwd)  # noqa: S603
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{done.stderr or done.stdout}")
    return str(done.stdout)


def locked_requirements(source: LambdaSource, *, runtime_provided: bool = False) -> str:
    """Runtime dependencies pinned and hashed from the project's uv.lock (no dependency group at all: dev, local,
    infra and bench tools never ship), without those Lambda provides; or, with `runtime_provided`, only those."""
    args: list[str | Path] = [uv_of(source.root), "export", "--frozen", "--no-default-groups", "--no-emit-project"]
    text = run([*args, "--format", "requirements.txt", "--no-header", "--no-annotate"], cwd=source.root)
    return "".join(b for b in blocks(text) if (block_name(b) in RUNTIME_PROVIDED) == runtime_provided)


def blocks(requirements: str) -> list[str]:
    """Split an exported requirements file into one block per requirement (its line plus its hash lines)."""
    found: list[str] = []
    for line in requirements.splitlines(keepends=True):
        if line.startswith((" ", "\t")) and found:
            found[-1] += line
        elif line.strip() and not line.startswith("#"):
            found.append(line)
    return found


def block_name(block: str) -> str:
    """The distribution a requirement block names, normalized (`python_dateutil` → `python-dateutil`); for a
    direct reference (`widget-mcp @ file:///…`) its name before the `@`; for a wheel file, as uv exports a path
    source (`./wheels/widget_mcp-1.0.0-py3-none-any.whl`), the name its file name starts with."""
    line = block.split("\\")[0].strip()
    if line.startswith(("./", "../", "/", "file:")) and ".whl" in line:
        line = line.split(";")[0].strip().rsplit("/", 1)[-1]
        return line.split("-", 1)[0].lower().replace("_", "-")
    match = re.match(r"[A-Za-z0-9_.-]+", block)
    return match.group(0).lower().replace("_", "-") if match else ""
