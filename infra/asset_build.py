"""Builds the Lambda code asset without Docker: the locked runtime dependencies for the target platform, plus
`lambda_src/widget_mcp`, with bytecode for every module a cold start loads. Results are cached under
`build/lambda/` by a key over everything that goes in.

Bytecode: `/var/task` is read-only, so without `.pyc` every on-demand init compiles every module again. The
build runs the handler once on this machine (Debian's CPython 3.13, `infra/debian_python.py`, with the same
lockfile built for this machine's architecture), as a SnapStart init does and through the requests a first
call needs, and records which modules load; those and all of `widget_mcp` are compiled for CPython 3.13 with
`--invalidation-mode unchecked-hash` (zip extraction does not keep the timestamps a default `.pyc` checks), under
`/var/task` paths, with a fixed hash seed, so the same inputs give the same bytes. Compiling everything would
cost ~16 MB, over the 30 MB budget.

`python -m infra.asset_build [--arch arm64|x86_64] [--sign-in]` prints the asset directory and its size.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from infra import debian_python

ROOT = Path(__file__).resolve().parents[1]
LAMBDA_SRC = ROOT / "lambda_src"
PACKAGE = "widget_mcp"
CACHE = ROOT / "build" / "lambda"
UV = ROOT / ".tools" / "bin" / "uv"
TOOLS_PYTHON = ROOT / ".tools" / "bin" / "python"
WIDGET_MANIFEST = ROOT / "widget_bundles" / "dist" / "manifest.json"
# Where the packaged manifest lands inside the asset (and so under /var/task).
MANIFEST_NAME = "widget_manifest.json"
# Bump when the build recipe changes, so cached outputs are not reused.
RECIPE = "5"
# The Lambda runtime ships boto3 with its dependencies (beside the interpreter, after /var/task on sys.path);
# leaving them out saves ~27 MB.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3")
# Only token verification (AUTH_MODE=oauth, `-c signIn=true`) imports these: ~11 MB, most of it cryptography.
SIGN_IN_ONLY = ("pyjwt", "cryptography", "cffi", "pycparser")
# Published as source only (chess 1.11.x): built into a wheel first, else --only-binary silently picks 1.10.
SDIST_ONLY = ("chess",)
# Local mode (moto, uvicorn, the playground), the readiness check (an MCP client), the conformance suite's
# fixtures (served by `CONFORMANCE=1 make dev` alone; settings refuse them inside Lambda) and the publishing tools
# (`make submission`, the legal pages built at synth) never run in Lambda; of publishing, the function serves only
# the directories' challenge routes (publishing/challenges.py).
_PUBLISHING_TOOLS = ("__main__.py", "legal.py", "limits.py", "screenshots.py", "submission.py", "schemas/")
EXCLUDED_SOURCES = (
    f"{PACKAGE}/local/",
    f"{PACKAGE}/readiness/",
    f"{PACKAGE}/apps/conformance/",
    *(f"{PACKAGE}/publishing/{tool}" for tool in _PUBLISHING_TOOLS),
)
_MACHINES = {"arm64": "aarch64", "x86_64": "x86_64"}
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
HANDLER_PROBE = ROOT / "infra" / "handler_probe.py"
# Stand-in values for the environment the stack gives the function (infra/mcp_api.py) while the imports are
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


@dataclass(frozen=True)
class Target:
    """A Lambda architecture and CPython version, e.g. Target("arm64", "3.13"), and whether the function
    verifies sign-in tokens (which needs the SIGN_IN_ONLY distributions)."""

    arch: str = "arm64"
    python: str = "3.13"
    sign_in: bool = False

    def __post_init__(self) -> None:
        if self.arch not in _MACHINES:
            raise ValueError(f"unknown architecture {self.arch!r}; expected one of {sorted(_MACHINES)}")

    @property
    def machine(self) -> str:
        return _MACHINES[self.arch]

    @property
    def uv_platform(self) -> str:
        return f"{self.machine}-manylinux2014"

    @property
    def platform_label(self) -> str:
        return f"{self.arch}-py{self.python.replace('.', '')}"

    @property
    def label(self) -> str:
        return f"{self.platform_label}-sign-in" if self.sign_in else self.platform_label

    @classmethod
    def host(cls, python: str, *, sign_in: bool = False) -> Target:
        """The variant this machine can import: its own architecture, the given Python."""
        machine = platform.machine()
        arch = {v: k for k, v in _MACHINES.items()}.get(machine, machine)
        return cls(arch=arch, python=python, sign_in=sign_in)


# What uv, pip and apt say when a registry cannot be reached at all.
UNREACHABLE = (
    "Failed to fetch",
    "error sending request",
    "name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "Could not resolve",
)


class AssetBuildFailed(RuntimeError):
    """The Lambda asset could not be built. Raised from CDK's bundling hook, through jsii, so its message is marked:
    `infra.app` finds it in jsii's error and prints it alone instead of jsii's traceback."""

    MARK = "widget-mcp asset build: "

    @classmethod
    def of(cls, exc: BaseException) -> AssetBuildFailed:
        text = str(exc).strip() or type(exc).__name__
        if any(sign in text for sign in UNREACHABLE):
            text = (
                "the Lambda asset's first build downloads its arm64 wheels from PyPI and Debian's Python 3.13 (for its "
                "bytecode) from Debian's archive, and they could not be reached: check the network (or HTTPS_PROXY) "
                "and run it again; later builds reuse build/lambda and ~/.cache/widget-mcp"
            )
        return cls(cls.MARK + text.replace("\n", " | "))

    @classmethod
    def found_in(cls, exc: BaseException) -> str | None:
        """This failure's sentence, when `exc` (jsii's error, say) carries one."""
        text = str(exc)
        at = text.find(cls.MARK)
        return None if at < 0 else text[at + len(cls.MARK) :].splitlines()[0]


def _run(args: list[str | Path], cwd: Path = ROOT) -> str:
    # Fixed programs (uv, pip) with arguments built here, never from user input.
    done = subprocess.run([str(a) for a in args], check=False, capture_output=True, text=True, cwd=cwd)  # noqa: S603
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{done.stderr or done.stdout}")
    return str(done.stdout)


def locked_requirements(*, runtime_provided: bool = False) -> str:
    """Runtime dependencies pinned and hashed from uv.lock (no dependency group at all: dev, local, infra and
    bench tools never ship), without those Lambda provides; or, with `runtime_provided`, only those."""
    args: list[str | Path] = [
        UV,
        "export",
        "--frozen",
        "--no-default-groups",
        "--no-emit-project",
    ]
    text = _run([*args, "--format", "requirements.txt", "--no-header", "--no-annotate"])
    return "".join(b for b in _blocks(text) if (_block_name(b) in RUNTIME_PROVIDED) == runtime_provided)


def _blocks(requirements: str) -> list[str]:
    """Split an exported requirements file into one block per requirement (its line plus its hash lines)."""
    blocks: list[str] = []
    for line in requirements.splitlines(keepends=True):
        if line.startswith((" ", "\t")) and blocks:
            blocks[-1] += line
        elif line.strip() and not line.startswith("#"):
            blocks.append(line)
    return blocks


def _block_name(block: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", block)
    return match.group(0).lower().replace("_", "-") if match else ""


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:16]


def source_files() -> list[Path]:
    """The package's files the asset holds (its sources; their bytecode is compiled beside them)."""
    files = []
    for path in sorted((LAMBDA_SRC / PACKAGE).rglob("*")):
        rel = path.relative_to(LAMBDA_SRC).as_posix()
        if path.is_file() and "__pycache__" not in rel and not rel.startswith(EXCLUDED_SOURCES):
            files.append(path)
    return files


def _pip_install(target: Target, dest: Path, requirements: Path, *, hashes: bool, find_links: Path | None) -> None:
    args: list[str | Path] = [UV, "pip", "install", "--quiet", "--no-deps", "--target", dest]
    args += ["--python-platform", target.uv_platform, "--python-version", target.python, "--only-binary", ":all:"]
    if hashes:
        args.append("--require-hashes")
    if find_links is not None:
        args += ["--find-links", find_links]
    _run([*args, "-r", requirements])


def _build_sdist_wheels(blocks: list[str], work: Path) -> Path:
    """Build pure-Python wheels for source-only packages, from the locked (hash-checked) sdists."""
    wheels = work / "wheels"
    wheels.mkdir()
    reqs = work / "sdist-only.txt"
    reqs.write_text("".join(blocks))
    pip = [TOOLS_PYTHON, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps"]
    _run([*pip, "--require-hashes", "-r", reqs, "-w", wheels])
    return wheels


def _install_locked(target: Target, dest: Path, requirements: str, work: Path) -> None:
    blocks = _blocks(requirements)
    sdist_only = [b for b in blocks if _block_name(b) in SDIST_ONLY]
    binary = work / "binary.txt"
    binary.write_text("".join(b for b in blocks if b not in sdist_only))
    _pip_install(target, dest, binary, hashes=True, find_links=None)
    if sdist_only:
        wheels = _build_sdist_wheels(sdist_only, work)
        pinned = work / "built.txt"  # the versions stay pinned by the lock; the hashes were checked on the sdists
        pinned.write_text("".join(b.split("\\")[0].split(";")[0].strip() + "\n" for b in sdist_only))
        _pip_install(target, dest, pinned, hashes=False, find_links=wheels)
    for junk in ("bin", "share"):
        shutil.rmtree(dest / junk, ignore_errors=True)
    for cache in list(dest.rglob("__pycache__")):
        shutil.rmtree(cache)


def _cached(name: str, build: Callable[[Path, Path], None]) -> Path:
    """Return CACHE/name, building it atomically (temp dir + rename) when missing."""
    out = CACHE / name
    if (out / ".complete").is_file():
        return out
    family = name.rsplit("-", 1)[0]
    # One builder per kind and target: parallel test workers (or a test run and `make asset`) wait for it and use
    # its result, instead of building the same thing twice and replacing a folder the other is reading.
    with debian_python.locked(CACHE / f".{family}.lock"):
        if (out / ".complete").is_file():
            return out
        with tempfile.TemporaryDirectory(dir=CACHE, prefix=f".{name}-") as tmp:
            staging = Path(tmp) / "out"
            staging.mkdir()
            build(staging, Path(tmp))
            (staging / ".complete").write_text("")
            shutil.rmtree(out, ignore_errors=True)
            os.replace(staging, out)
        for stale in CACHE.glob(f"{family}-*"):  # keep one build per kind and target, not one per edit
            if stale != out and stale.name.rsplit("-", 1)[0] == family:
                shutil.rmtree(stale, ignore_errors=True)
    return out


def dependencies(target: Target) -> Path:
    """The platform's site-packages (locked runtime deps minus what Lambda provides), cached by content."""
    requirements = locked_requirements()
    label = target.platform_label
    key = _digest(RECIPE.encode(), label.encode(), requirements.encode())
    return _cached(f"deps-{label}-{key}", lambda out, work: _install_locked(target, out, requirements, work))


def runtime_provided(target: Target) -> Path:
    """boto3 and its dependencies at their locked versions: a stand-in for what the Lambda runtime provides
    (compiled, as the runtime's own copy is)."""
    requirements = locked_requirements(runtime_provided=True)
    label = target.platform_label

    def build(out: Path, work: Path) -> None:
        _install_locked(target, out, requirements, work)
        compile_bytecode(out, sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py")), target, work)

    key = _digest(RECIPE.encode(), label.encode(), requirements.encode())
    return _cached(f"runtime-{label}-{key}", build)


def _remove_distributions(site: Path, names: tuple[str, ...]) -> None:
    """Delete installed distributions by name, file by file as their RECORD lists them."""
    for info in site.glob("*.dist-info"):
        if _block_name(info.name.split("-", 1)[0]) not in names:  # `<name>-<version>.dist-info`
            continue
        for line in (info / "RECORD").read_text().splitlines():
            path = (site / line.split(",", 1)[0]).resolve()
            if path.is_relative_to(site.resolve()) and path.is_file():
                path.unlink()
        shutil.rmtree(info, ignore_errors=True)
    for folder in sorted((p for p in site.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def built_manifest() -> Path | None:
    """widget_bundles/dist/manifest.json if the bundles are built."""
    return WIDGET_MANIFEST if WIDGET_MANIFEST.is_file() else None


def asset_key(target: Target, manifest: Path | None) -> str:
    """A content key over the dependency set, the sources and the packaged manifest: the CDK asset hash."""
    parts = [RECIPE.encode(), target.label.encode(), locked_requirements().encode(), ",".join(SIGN_IN_ONLY).encode()]
    parts.append(manifest.read_bytes() if manifest else b"")
    for path in source_files():
        parts += [path.relative_to(LAMBDA_SRC).as_posix().encode(), path.read_bytes()]
    return _digest(*parts)


def assemble(target: Target, out: Path, manifest: Path | None, work: Path) -> None:
    """Write the asset into `out`: dependencies at the root, the package beside them, the manifest if built, and
    bytecode for what a cold start loads."""
    shutil.copytree(dependencies(target), out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".complete"))
    if not target.sign_in:
        _remove_distributions(out, SIGN_IN_ONLY)
    _remove_unused(out)
    for path in source_files():
        dest = out / path.relative_to(LAMBDA_SRC)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    if manifest is not None:
        shutil.copyfile(manifest, out / MANIFEST_NAME)
    own = [p.relative_to(out).as_posix() for p in sorted((out / PACKAGE).rglob("*.py"))]
    loaded = [m for m in traced_modules(target, manifest, work) if (out / m).is_file()]
    compile_bytecode(out, sorted({*own, *loaded}), target, work)


def _remove_unused(site: Path) -> None:
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if path.is_file() and any(fnmatch.fnmatch(rel, pattern) for pattern in UNUSED_FILES):
            path.unlink()
    for folder in sorted((p for p in site.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


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


def traced_modules(target: Target, manifest: Path | None, work: Path) -> list[str]:
    """The `.py` files (relative to the asset root) the handler loads in a SnapStart init and while it answers
    initialize, the lists, every template, ping, /healthz and a stateless tool call, with sign-in its 401 too.

    Run here, natively: the same lockfile built for this machine's architecture (pure-Python files are the same
    on every platform), the sources from lambda_src, and boto3 where the runtime puts it.
    """
    host = Target.host(target.python, sign_in=target.sign_in)
    deps, runtime = dependencies(host), runtime_provided(host)
    report = work / "trace.json"
    config: dict[str, object] = {"paths": [str(deps), str(LAMBDA_SRC), str(runtime)], "host": TRACE_HOST}
    config |= {"scenario": "init", "sign_in": target.sign_in, "token": None, "report": str(report)}
    (work / "trace-config.json").write_text(json.dumps(config))
    env = {"PATH": os.environ.get("PATH", ""), **TRACE_ENVIRONMENT, "POWERTOOLS_METRICS_DISABLED": "true"}
    if manifest is not None:
        env["WIDGET_MANIFEST"] = str(manifest)
    if target.sign_in:
        env |= TRACE_SIGN_IN_ENVIRONMENT
    argv = compiler(target).command("-I", "-S", "-B", HANDLER_PROBE, work / "trace-config.json")
    done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env, cwd=work, timeout=300)  # noqa: S603
    result = json.loads(report.read_text()) if report.is_file() else {}
    if done.returncode != 0 or result.get("error"):
        detail = result.get("error") or done.stderr[-3000:]
        raise RuntimeError(f"running the handler to find the modules a cold start loads failed:\n{detail}")
    loaded = [*result["code_loaded"][str(deps)], *result["code_loaded"][str(LAMBDA_SRC)]]
    return sorted(m for m in loaded if m.endswith(".py"))


def bytecode_files(root: Path) -> list[Path]:
    return sorted(root.rglob("__pycache__/*.pyc"))


def asset(target: Target, manifest: Path | None) -> Path:
    """The assembled asset directory for `target` (with the bundle manifest, if any), cached by `asset_key`."""
    key = asset_key(target, manifest)
    return _cached(f"asset-{target.label}-{key}", lambda out, work: assemble(target, out, manifest, work))


def size_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="arm64", choices=sorted(_MACHINES))
    parser.add_argument("--python", default="3.13")
    parser.add_argument("--sign-in", action="store_true", help="the variant `-c signIn=true` deploys")
    args = parser.parse_args(argv)
    path = asset(Target(args.arch, args.python, sign_in=args.sign_in), built_manifest())
    compiled = bytecode_files(path)
    bytecode = f"{sum(p.stat().st_size for p in compiled) / 1e6:.1f} MB bytecode ({len(compiled)} modules)"
    print(f"{path}  {size_bytes(path) / 1e6:.1f} MB unzipped, of which {bytecode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
