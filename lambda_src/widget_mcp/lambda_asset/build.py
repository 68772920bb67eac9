"""Builds the Lambda code asset without Docker: the locked runtime dependencies for the target platform, plus a
project's own packages (a `LambdaSource`: in this repository `lambda_src/widget_mcp`), with bytecode for every module
a cold start loads. Results are cached under the project's `build/lambda/` by a key over everything that goes in.

Bytecode: `/var/task` is read-only, so without `.pyc` every on-demand init compiles every module again. The
build runs the handler once on this machine (Debian's CPython 3.13, `lambda_asset/debian_python.py`, with the same
lockfile built for this machine's architecture), as a SnapStart init does and through the requests a first
call needs, and records which modules load; those and all of the project's packages and `widget_mcp` are compiled
for CPython 3.13 with `--invalidation-mode unchecked-hash` (zip extraction does not keep the timestamps a default
`.pyc` checks), under `/var/task` paths, with a fixed hash seed, so the same inputs give the same bytes. Compiling
everything would cost ~16 MB, over the 30 MB budget.

`python -m widget_mcp.lambda_asset.build [--arch arm64|x86_64] [--sign-in] [--project ROOT --apps PKG,…]` prints
the asset directory and its size.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from widget_mcp.lambda_asset import debian_python
from widget_mcp.lambda_asset.source import (
    EXCLUDED_SOURCES,
    PACKAGE,
    REPOSITORY_ROOT,
    LambdaSource,
    block_name,
    blocks,
    locked_requirements,
    run,
    uv_of,
)
from widget_mcp.lambda_asset.target import MACHINES, Target

# Where the packaged manifest lands inside the asset (and so under /var/task).
MANIFEST_NAME = "widget_manifest.json"
# Bump when the build recipe changes, so cached outputs are not reused.
RECIPE = "5"
# Only token verification (AUTH_MODE=oauth, `-c signIn=true`) imports these: ~11 MB, most of it cryptography.
SIGN_IN_ONLY = ("pyjwt", "cryptography", "cffi", "pycparser")
# Published as source only (chess 1.11.x): built into a wheel first, else --only-binary silently picks 1.10.
SDIST_ONLY = ("chess",)
# Files no code path of the function imports or reads: package test suites, type stubs, C sources, and the
# Swagger UI that Powertools' REST event handler serves (the function uses Powertools for logs, metrics and
# tracing only). ~2.4 MB, which pays for most of the bytecode.
UNUSED_FILES = (
    "*/tests/*",
    "*.pyi",
    "*.c",
    "*.h",
    "aws_lambda_powertools/event_handler/openapi/swagger_ui/*.min.js",
    "aws_lambda_powertools/event_handler/openapi/swagger_ui/*.min.css",
)
# Lambda's task root: compiled modules name their files there, as tracebacks from the function do.
TASK_ROOT = "/var/task"
# Drives the handler (standard library only) under the interpreter that compiles: see its docstring.
HANDLER_PROBE = Path(__file__).resolve().parent / "handler_probe.py"
# Stand-in values for the environment the stack gives the function (widget_mcp/cdk/mcp_api.py) while the imports are
# traced; the host is the Host header of the traced requests.
TRACE_HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
TRACE_ENVIRONMENT = {
    "TABLE_NAME": "widget-mcp-state",
    "WIDGET_BASE_URL": "https://d111111abcdef8.cloudfront.net/widgets",
    "ALLOWED_HOSTS": TRACE_HOST,
    "LOG_LEVEL": "INFO",
    "POWERTOOLS_SERVICE_NAME": "widget-mcp",
    "POWERTOOLS_METRICS_NAMESPACE": "WidgetMcp",
    "AWS_DEFAULT_REGION": "eu-west-1",
    "AWS_REGION": "eu-west-1",
    # A SnapStart init (the stack's default) also runs prepare_snapshot: the modules first calls would load.
    "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start",
    # The trace reaches no table, and every request that does work is counted against its caller's rate limit in it
    # first: off here. Its module loads at init either way; its one UpdateItem runs in botocore, which the runtime
    # provides (the smoke run, against moto, makes it).
    "RATE_LIMIT_CALLS": "0",
}
TRACE_SIGN_IN_ENVIRONMENT = {
    "AUTH_MODE": "oauth",
    "OAUTH_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example",
    "OAUTH_AUDIENCE": f"example-client,https://{TRACE_HOST}/mcp",
    "OAUTH_RESOURCE": f"https://{TRACE_HOST}/mcp",
    "OAUTH_SCOPE_PREFIX": f"https://{TRACE_HOST}/mcp/",
}


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:16]


def _pip_install(
    source: LambdaSource, target: Target, dest: Path, requirements: Path, *, hashes: bool, find_links: Path | None
) -> None:
    args: list[str | Path] = [uv_of(source.root), "pip", "install", "--quiet", "--no-deps", "--target", dest]
    args += ["--python-platform", target.uv_platform, "--python-version", target.python, "--only-binary", ":all:"]
    if hashes:
        args.append("--require-hashes")
    if find_links is not None:
        args += ["--find-links", find_links]
    run([*args, "-r", requirements], cwd=source.root)


def _python_with_pip(source: LambdaSource, work: Path) -> Path:
    """A Python that has pip: the project's `.tools` one, else a virtual environment uv seeds with pip (a generated
    project's own environment, made by uv, has none)."""
    tools = source.tools_python
    probe = subprocess.run([tools, "-c", "import pip"], capture_output=True, check=False)  # noqa: S603 - fixed program
    if probe.returncode == 0:
        return tools
    seeded = work / "pip-env"
    run([uv_of(source.root), "venv", "--quiet", "--seed", "--python", tools, seeded], cwd=source.root)
    return seeded / "bin" / "python"


def _build_sdist_wheels(source: LambdaSource, sdist_blocks: list[str], work: Path) -> Path:
    """Build pure-Python wheels for source-only packages, from the locked (hash-checked) sdists."""
    wheels = work / "wheels"
    wheels.mkdir()
    reqs = work / "sdist-only.txt"
    reqs.write_text("".join(sdist_blocks))
    pip: list[str | Path] = [
        _python_with_pip(source, work),
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
    ]
    run([*pip, "--require-hashes", "-r", reqs, "-w", wheels], cwd=source.root)
    return wheels


def _install_locked(source: LambdaSource, target: Target, dest: Path, requirements: str, work: Path) -> None:
    found = blocks(requirements)
    sdist_only = [b for b in found if block_name(b) in SDIST_ONLY]
    binary = work / "binary.txt"
    binary.write_text("".join(b for b in found if b not in sdist_only))
    _pip_install(source, target, dest, binary, hashes=True, find_links=None)
    if sdist_only:
        wheels = _build_sdist_wheels(source, sdist_only, work)
        pinned = work / "built.txt"  # the versions stay pinned by the lock; the hashes were checked on the sdists
        pinned.write_text("".join(b.split("\\")[0].split(";")[0].strip() + "\n" for b in sdist_only))
        _pip_install(source, target, dest, pinned, hashes=False, find_links=wheels)
    for junk in ("bin", "share"):
        shutil.rmtree(dest / junk, ignore_errors=True)
    for cache in list(dest.rglob("__pycache__")):
        shutil.rmtree(cache)


def _cached(cache: Path, name: str, build: Callable[[Path, Path], None]) -> Path:
    """Return cache/name, building it atomically (temp dir + rename) when missing."""
    out = cache / name
    if (out / ".complete").is_file():
        return out
    cache.mkdir(parents=True, exist_ok=True)
    family = name.rsplit("-", 1)[0]
    # One builder per kind and target: parallel test workers (or a test run and `make asset`) wait for it and use
    # its result, instead of building the same thing twice and replacing a folder the other is reading.
    with debian_python.locked(cache / f".{family}.lock"):
        if (out / ".complete").is_file():
            return out
        with tempfile.TemporaryDirectory(dir=cache, prefix=f".{name}-") as tmp:
            staging = Path(tmp) / "out"
            staging.mkdir()
            build(staging, Path(tmp))
            (staging / ".complete").write_text("")
            shutil.rmtree(out, ignore_errors=True)
            os.replace(staging, out)
        for stale in cache.glob(f"{family}-*"):  # keep one build per kind and target, not one per edit
            if stale != out and stale.name.rsplit("-", 1)[0] == family:
                shutil.rmtree(stale, ignore_errors=True)
    return out


def dependencies(target: Target, source: LambdaSource | None = None) -> Path:
    """The platform's site-packages (locked runtime deps minus what Lambda provides), cached by content."""
    source = source or LambdaSource.repository()
    requirements = locked_requirements(source)
    label = target.platform_label
    key = _digest(RECIPE.encode(), label.encode(), requirements.encode())
    return _cached(
        source.cache, f"deps-{label}-{key}", lambda out, work: _install_locked(source, target, out, requirements, work)
    )


def runtime_provided(target: Target, source: LambdaSource | None = None) -> Path:
    """boto3 and its dependencies at their locked versions: a stand-in for what the Lambda runtime provides
    (compiled, as the runtime's own copy is)."""
    source = source or LambdaSource.repository()
    requirements = locked_requirements(source, runtime_provided=True)
    label = target.platform_label

    def build(out: Path, work: Path) -> None:
        _install_locked(source, target, out, requirements, work)
        compile_bytecode(out, sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py")), target, work)

    key = _digest(RECIPE.encode(), label.encode(), requirements.encode())
    return _cached(source.cache, f"runtime-{label}-{key}", build)


def _remove_distributions(site: Path, names: tuple[str, ...]) -> None:
    """Delete installed distributions by name, file by file as their RECORD lists them."""
    for info in site.glob("*.dist-info"):
        if block_name(info.name.split("-", 1)[0]) not in names:  # `<name>-<version>.dist-info`
            continue
        for line in (info / "RECORD").read_text().splitlines():
            path = (site / line.split(",", 1)[0]).resolve()
            if path.is_relative_to(site.resolve()) and path.is_file():
                path.unlink()
        shutil.rmtree(info, ignore_errors=True)
    _remove_empty_folders(site)


def _remove_empty_folders(site: Path) -> None:
    for folder in sorted((p for p in site.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def built_manifest(bundle_dir: Path | None = None) -> Path | None:
    """The bundles' manifest.json if they are built: in `bundle_dir`, by default this checkout's widget_bundles/dist."""
    if bundle_dir is None:
        if REPOSITORY_ROOT is None:
            return None
        bundle_dir = REPOSITORY_ROOT / "widget_bundles" / "dist"
    manifest = bundle_dir / "manifest.json"
    return manifest if manifest.is_file() else None


def asset_key(target: Target, manifest: Path | None, source: LambdaSource | None = None) -> str:
    """A content key over the dependency set, the sources and the packaged manifest: the CDK asset hash."""
    source = source or LambdaSource.repository()
    requirements = locked_requirements(source)
    parts = [RECIPE.encode(), target.label.encode(), requirements.encode(), ",".join(SIGN_IN_ONLY).encode()]
    parts.append(manifest.read_bytes() if manifest else b"")
    for path in source.files():
        parts += [path.relative_to(source.source_root).as_posix().encode(), path.read_bytes()]
    if source.apps:  # what the function registers decides what its cold start loads, so what is compiled
        parts.append(",".join(source.apps).encode())
    return _digest(*parts)


def assemble(target: Target, out: Path, manifest: Path | None, work: Path, source: LambdaSource | None = None) -> None:
    """Write the asset into `out`: dependencies at the root, the packages beside them, the manifest if built, and
    bytecode for what a cold start loads."""
    source = source or LambdaSource.repository()
    shutil.copytree(dependencies(target, source), out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".complete"))
    if not target.sign_in:
        _remove_distributions(out, SIGN_IN_ONLY)
    _remove_unused(out)
    remove_excluded_rooms(out)  # the toolkit installed from the project's lock: the rooms that never run in Lambda
    for path in source.files():
        dest = out / path.relative_to(source.source_root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    if manifest is not None:
        shutil.copyfile(manifest, out / MANIFEST_NAME)
    own = [
        p.relative_to(out).as_posix() for package in source.own_packages for p in sorted((out / package).rglob("*.py"))
    ]
    loaded = [m for m in traced_modules(target, manifest, work, source) if (out / m).is_file()]
    compile_bytecode(out, sorted({*own, *loaded}), target, work)


def _remove_unused(site: Path) -> None:
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if path.is_file() and any(fnmatch.fnmatch(rel, pattern) for pattern in UNUSED_FILES):
            path.unlink()
    _remove_empty_folders(site)


def remove_excluded_rooms(site: Path) -> None:
    """Delete from an installed toolkit (`site/widget_mcp`) the rooms the function never runs (EXCLUDED_SOURCES)."""
    for path in sorted((site / PACKAGE).rglob("*")) if (site / PACKAGE).is_dir() else []:
        if path.is_file() and path.relative_to(site).as_posix().startswith(EXCLUDED_SOURCES):
            path.unlink()
    _remove_empty_folders(site)


def compiler(target: Target) -> debian_python.Interpreter:
    """The CPython that compiles `target`'s bytecode and traces its imports: Debian's, on this machine."""
    if target.python != debian_python.VERSION:
        raise RuntimeError(
            f"The asset ships bytecode, which needs CPython {target.python} to compile; the build fetches only "
            f"Debian's {debian_python.VERSION} (Lambda's runtime for this stack)."
        )
    try:
        return debian_python.python()
    except debian_python.FetchError as exc:
        raise RuntimeError(
            f"The Lambda asset ships bytecode compiled by CPython {target.python}, and this machine has none: {exc}"
        ) from exc


def compile_bytecode(root: Path, files: list[str], target: Target, work: Path) -> None:
    """Compile `files` (relative to `root`) into `__pycache__/*.cpython-313.pyc`: unchecked hash-based, paths
    under /var/task, a fixed hash seed (set and frozenset constants keep one order), one process."""
    listing = work / "compile.txt"
    listing.write_text("".join(f"{root / f}\n" for f in files))
    args = ["-s", "-S", "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash"]
    args += ["-s", str(root), "-p", TASK_ROOT, "-i", str(listing)]
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0", "LC_ALL": "C.UTF-8"}
    done = subprocess.run(compiler(target).command(*args), check=False, capture_output=True, text=True, env=env)  # noqa: S603
    if done.returncode != 0:
        raise RuntimeError(f"compiling the asset's bytecode failed:\n{(done.stdout + done.stderr)[-3000:]}")


def traced_modules(target: Target, manifest: Path | None, work: Path, source: LambdaSource | None = None) -> list[str]:
    """The `.py` files (relative to the asset root) the handler loads in a SnapStart init and while it answers
    initialize, the lists, every template, ping, /healthz and a stateless tool call, with sign-in its 401 too.

    Run here, natively: the same lockfile built for this machine's architecture (pure-Python files are the same
    on every platform), the project's sources, and boto3 where the runtime puts it.
    """
    source = source or LambdaSource.repository()
    host = Target.host(target.python, sign_in=target.sign_in)
    deps, runtime = dependencies(host, source), runtime_provided(host, source)
    report = work / "trace.json"
    paths = [str(deps), str(source.source_root), str(runtime)]
    config: dict[str, object] = {"paths": paths, "host": TRACE_HOST}
    config |= {"scenario": "init", "sign_in": target.sign_in, "token": None, "report": str(report)}
    (work / "trace-config.json").write_text(json.dumps(config))
    env = {"PATH": os.environ.get("PATH", ""), **TRACE_ENVIRONMENT, "POWERTOOLS_METRICS_DISABLED": "true"}
    if manifest is not None:
        env["WIDGET_MANIFEST"] = str(manifest)
    if source.apps:
        env["WIDGET_MCP_APPS"] = ",".join(source.apps)
    if target.sign_in:
        env |= TRACE_SIGN_IN_ENVIRONMENT
    argv = compiler(target).command("-I", "-S", "-B", HANDLER_PROBE, work / "trace-config.json")
    done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env, cwd=work, timeout=300)  # noqa: S603
    result = json.loads(report.read_text()) if report.is_file() else {}
    if done.returncode != 0 or result.get("error"):
        detail = result.get("error") or done.stderr[-3000:]
        raise RuntimeError(f"running the handler to find the modules a cold start loads failed:\n{detail}")
    loaded = [*result["code_loaded"][str(deps)], *result["code_loaded"][str(source.source_root)]]
    return sorted(m for m in loaded if m.endswith(".py"))


def bytecode_files(root: Path) -> list[Path]:
    """The asset's compiled modules."""
    return sorted(root.rglob("__pycache__/*.pyc"))


def asset(target: Target, manifest: Path | None, source: LambdaSource | None = None) -> Path:
    """The assembled asset directory for `target` (with the bundle manifest, if any), cached by `asset_key`."""
    source = source or LambdaSource.repository()
    key = asset_key(target, manifest, source)
    return _cached(
        source.cache, f"asset-{target.label}-{key}", lambda out, work: assemble(target, out, manifest, work, source)
    )


def size_bytes(path: Path) -> int:
    """The bytes of every file under `path`."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    """`python -m widget_mcp.lambda_asset.build`: build (or find) the asset and print where it is and its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="arm64", choices=sorted(MACHINES))
    parser.add_argument("--python", default="3.13")
    parser.add_argument("--sign-in", action="store_true", help="the variant `-c signIn=true` deploys")
    parser.add_argument(
        "--project", type=Path, help="a project's root (pyproject.toml, uv.lock); default: this checkout"
    )
    parser.add_argument("--apps", default="", help="the project's app packages, comma-separated (with --project)")
    parser.add_argument("--bundles", type=Path, help="the built bundles (dist with manifest.json)")
    args = parser.parse_args(argv)
    apps = [app for app in args.apps.split(",") if app.strip()]
    source = LambdaSource.project(args.project, apps=apps) if args.project else LambdaSource.repository()
    target = Target(args.arch, args.python, sign_in=args.sign_in)
    path = asset(target, built_manifest(args.bundles), source)
    compiled = bytecode_files(path)
    bytecode = f"{sum(p.stat().st_size for p in compiled) / 1e6:.1f} MB bytecode ({len(compiled)} modules)"
    print(f"{path}  {size_bytes(path) / 1e6:.1f} MB unzipped, of which {bytecode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
