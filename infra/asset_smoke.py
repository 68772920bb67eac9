"""`make asset-smoke`: the Lambda asset, as the stack deploys it, running on arm64 CPython 3.13 under emulation.

For each variant (plain, and `-c signIn=true`): synthesize the CDK app with bundling on (so the asset is built
exactly as `cdk deploy` builds it, into cdk.out), take the function's asset directory and its environment from
the template (intrinsics replaced with stand-in values, `/var/task` with the asset directory), and run the
handler (`lambda_asset/handler_probe.py`) under Debian's arm64 python3.13 in qemu-user, with boto3 from a separate
folder where the runtime puts it, against DynamoDB on moto (loopback). The session: initialize, tools/list,
resources/list and every template, ping, /healthz, display_demo, a chess game against the engine (new + move)
and a form (ask + submit + get). With sign-in, the function must refuse a stateful call without a token with
401, and plays the session with an access token from a local issuer (RS256, its JWKS on loopback; the template's
Cognito issuer is replaced by it), so PyJWT and cryptography verify a signature on arm64.

Bytecode: the probe records every module the import system compiles from source (the loader's `source_to_code`,
which runs only when no usable `.pyc` exists); any module of the asset among them fails the run, and every `.pyc`
in the asset must be CPython 3.13's, unchecked hash-based.

What it proves: the asset's arm64 wheels, its bytecode and the handler work together on CPython 3.13 for
aarch64 with the template's configuration. What it does not: Debian's interpreter is not Lambda's (Amazon
Linux's build of 3.13, its runtime client, its read-only /var/task, SnapStart); timings under qemu mean nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from widget_mcp.lambda_asset import debian_python
from widget_mcp.lambda_asset.build import HANDLER_PROBE, TASK_ROOT, bytecode_files, runtime_provided, size_bytes
from widget_mcp.lambda_asset.target import Target

ROOT = Path(__file__).resolve().parents[1]
# The template as CloudFormation would see it (every intrinsic replaced by a realistic value): the resolver the
# template tests use (tests/infra/resolved_template.py), so there is one idea of a deployed stack.
RESOLVER = ROOT / "tests" / "infra" / "resolved_template.py"
REGION = "eu-west-1"
HANDLER = "widget_mcp.handler.handler"
TIMEOUT_SECONDS = 480
PYC_MAGIC_313 = (3571).to_bytes(2, "little") + b"\r\n"
UNCHECKED_HASH = 0b01


class SmokeFailed(RuntimeError):
    pass


# --- the template: the function, its asset and its environment ---------------------------------------------


def _resolver(template: dict[str, Any]) -> Any:
    spec = importlib.util.spec_from_file_location("asset_smoke_resolved_template", RESOLVER)
    if spec is None or spec.loader is None:
        raise SmokeFailed(f"cannot load {RESOLVER}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module.Resolver(template, module.Deployment(region=REGION))


@dataclass(frozen=True)
class Function:
    asset: Path
    environment: dict[str, str]
    snap_start: bool


def deployed_function(outdir: Path, stack_name: str) -> Function:
    """The MCP function in a synthesized cloud assembly: its bundled asset and its environment."""
    template = json.loads((outdir / f"{stack_name}.template.json").read_text())
    resources: dict[str, Any] = template["Resources"]
    (function,) = [
        r
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler") == HANDLER
    ]
    asset = _asset_directory(outdir, stack_name, function["Properties"]["Code"]["S3Key"])
    variables = function["Properties"].get("Environment", {}).get("Variables", {})
    resolver = _resolver(template)
    environment = {name: str(resolver.resolve(value)) for name, value in variables.items()}
    snap_start = function["Properties"].get("SnapStart", {}).get("ApplyOn") == "PublishedVersions"
    return Function(asset, environment, snap_start)


def _asset_directory(outdir: Path, stack_name: str, object_key: Any) -> Path:
    """The bundled directory CDK would zip and upload under the function's S3 key (the stack's asset manifest)."""
    manifest = json.loads((outdir / f"{stack_name}.assets.json").read_text())
    for entry in manifest["files"].values():
        keys = {d["objectKey"] for d in entry["destinations"].values()}
        if object_key in keys and entry["source"].get("packaging") == "zip":
            return outdir / str(entry["source"]["path"])
    raise SmokeFailed(f"no zip asset in {stack_name}.assets.json for the function's code {object_key}")


def synthesize(outdir: Path, *, sign_in: bool) -> tuple[Function, float]:
    from infra.app import build_app  # aws_cdk: a few seconds of import, only here

    started = time.perf_counter()
    app, stack = build_app(outdir=str(outdir), context={"signIn": "true"} if sign_in else {})
    app.synth()
    return deployed_function(outdir, stack.stack_name), time.perf_counter() - started


# --- what the function talks to ---------------------------------------------------------------------------------


@contextmanager
def moto_dynamodb(table: str) -> Iterator[str]:
    import boto3
    from moto.server import ThreadedMotoServer
    from widget_mcp.local.aws import free_port
    from widget_mcp.storage.table import create_state_table

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one access-log line per DynamoDB call otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    anything = "smoke"  # moto takes any credentials
    client = boto3.client(
        "dynamodb", endpoint_url=url, region_name=REGION, aws_access_key_id=anything, aws_secret_access_key=anything
    )
    create_state_table(client, table)
    try:
        yield url
    finally:
        server.stop()


@contextmanager
def local_issuer(client_id: str, scope_prefix: str) -> Iterator[tuple[str, str]]:
    """An RS256 issuer on loopback serving its JWKS; yields its URL and a Cognito-shaped access token."""
    from widget_mcp.local.issuer import LocalIssuer

    class Jwks(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the http.server hook
            body = json.dumps(issuer.jwks()).encode()
            found = self.path == "/.well-known/jwks.json"
            self.send_response(200 if found else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body) if found else 0))
            self.end_headers()
            if found:
                self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    issuer = LocalIssuer(issuer=url, audience=client_id)
    scopes = [f"{scope_prefix}{s}" for s in ("chess", "forms")]
    # Cognito's access tokens carry client_id and token_use, and no aud.
    token = issuer.mint(
        "asset-smoke-user", scopes=scopes, claims={"aud": None, "client_id": client_id, "token_use": "access"}
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url, token
    finally:
        server.shutdown()
        server.server_close()


# --- checks ------------------------------------------------------------------------------------------------------


def pyc_flags(path: Path) -> tuple[bytes, int]:
    """A .pyc's magic number and its flags word (0b01 unchecked hash, 0b11 checked hash, 0 timestamp)."""
    header = path.read_bytes()[:8]
    return header[:4], int.from_bytes(header[4:8], "little")


def check_bytecode_files(asset: Path) -> int:
    files = bytecode_files(asset)
    wrong = [p for p in files if pyc_flags(p) != (PYC_MAGIC_313, UNCHECKED_HASH)]
    if not files or wrong:
        raise SmokeFailed(f"the asset's bytecode is not all CPython 3.13 unchecked-hash: {wrong[:5] or 'none'}")
    return len(files)


# --- one variant -------------------------------------------------------------------------------------------------


def log(variant: str, text: str) -> None:
    print(f"[{variant}] {text}", flush=True)


def run_variant(python: debian_python.Interpreter, runtime: Path, *, sign_in: bool, keep: bool) -> None:
    variant = "sign-in" if sign_in else "plain"
    with tempfile.TemporaryDirectory(prefix=f"asset-smoke-{variant}-") as tmp:
        work = Path(tmp)
        function, synth_seconds = synthesize(work / "cdk.out", sign_in=sign_in)
        compiled = check_bytecode_files(function.asset)
        log(
            variant,
            f"synthesized in {synth_seconds:.1f} s: {function.asset.name}, {size_bytes(function.asset) / 1e6:.1f} MB, "
            f"{compiled} .pyc (CPython 3.13, unchecked hash)",
        )
        with contextlib.ExitStack() as stack:
            moto_url = stack.enter_context(moto_dynamodb(function.environment["TABLE_NAME"]))
            env = lambda_environment(function, moto_url)
            token = None
            if sign_in:
                client_id = env["OAUTH_AUDIENCE"].split(",")[0]
                issuer_url, token = stack.enter_context(local_issuer(client_id, env.get("OAUTH_SCOPE_PREFIX", "")))
                env["OAUTH_ISSUER"] = issuer_url
            host = env["ALLOWED_HOSTS"].split(",")[0]
            shown = {k: v for k, v in env.items() if k not in ("PATH", "AWS_SECRET_ACCESS_KEY")}
            log(variant, "environment: " + " ".join(f"{k}={v}" for k, v in sorted(shown.items())))
            report = run_probe(python, function.asset, runtime, work, env, host=host, sign_in=sign_in, token=token)
        if keep:
            kept = Path(tempfile.mkdtemp(prefix=f"asset-smoke-{variant}-report-"))
            shutil.copy(work / "report.json", kept)
            log(variant, f"report kept in {kept}")
        judge(variant, report, function.asset, sign_in=sign_in)


def lambda_environment(function: Function, moto_url: str) -> dict[str, str]:
    """The template's variables (with /var/task meaning the asset directory) plus what Lambda itself sets."""
    env = {k: v.replace(TASK_ROOT, str(function.asset)) for k, v in function.environment.items()}
    env |= {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "LAMBDA_TASK_ROOT": str(function.asset),
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
        "AWS_LAMBDA_FUNCTION_NAME": "widget-mcp",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
        "AWS_LAMBDA_FUNCTION_VERSION": "1",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start" if function.snap_start else "on-demand",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "smoke",
        "AWS_SECRET_ACCESS_KEY": "smoke",
        "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
    }
    return env


def run_probe(
    python: debian_python.Interpreter,
    asset: Path,
    runtime: Path,
    work: Path,
    env: dict[str, str],
    *,
    host: str,
    sign_in: bool,
    token: str | None,
) -> dict[str, Any]:
    report = work / "report.json"
    config = {"paths": [str(asset), str(runtime)], "host": host, "scenario": "smoke", "sign_in": sign_in}
    config |= {"token": token, "report": str(report)}
    (work / "config.json").write_text(json.dumps(config))
    # -I: no PYTHONPATH or user site; -S: no site-packages; -B: /var/task is read-only, nothing is written.
    argv = python.command("-I", "-S", "-B", HANDLER_PROBE, work / "config.json")
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)  # noqa: S603
    except subprocess.TimeoutExpired as exc:
        raise SmokeFailed(f"the handler did not finish within {TIMEOUT_SECONDS} s under emulation") from exc
    if not report.is_file():
        raise SmokeFailed(f"the probe wrote no report (exit {done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(report.read_text())
    result["exit"] = done.returncode
    result["stderr_tail"] = done.stderr[-3000:]
    return result


def judge(variant: str, report: dict[str, Any], asset: Path, *, sign_in: bool) -> None:
    root = str(asset.resolve())
    loaded = report["code_loaded"].get(root, [])
    from_source = [p for p in report["compiled_from_source"] if p.startswith(root + "/")]
    others = len(report["compiled_from_source"]) - len(from_source)
    log(
        variant,
        f"python {report['python']} on {report['machine']}: "
        f"import widget_mcp.handler {report.get('import_seconds', '?')} s; "
        f"{len(loaded) - len(from_source)} of the asset's {len(loaded)} loaded modules from bytecode, "
        f"{len(from_source)} compiled from source ({others} outside the asset)",
    )
    for step in report["steps"]:
        mark = "ok " if step["ok"] else "FAIL"
        log(variant, f"  {mark} {step['status']}  {step['seconds']:7.2f} s  {step['name']}  {step['detail']}")
    problems = []
    if report.get("error"):
        problems.append(f"the handler failed: {report['error']}")
    if report["exit"] != 0 and not report.get("error"):
        problems.append(f"the probe exited with {report['exit']}: {report['stderr_tail']}")
    if not report.get("hook_verified"):
        problems.append("the source-compile record did not see its control module; the bytecode proof is void")
    if from_source:
        problems.append(f"compiled from source instead of loaded from bytecode: {from_source[:10]}")
    if report["machine"] != "aarch64" or not report["python"].startswith("3.13"):
        problems.append(f"ran on {report['machine']} Python {report['python']}, not aarch64 CPython 3.13")
    if report["token_checks_loaded"] is not sign_in:
        problems.append(f"token verification libraries loaded: {report['token_checks_loaded']}, expected {sign_in}")
    if problems:
        raise SmokeFailed("\n".join(problems))
    log(variant, f"passed in {report['total_seconds']:.1f} s of emulated handler time")


def prepare() -> None:
    """Before anything else: moto's keys and region, never the user's AWS configuration (a missing AWS_PROFILE would
    stop the smoke test at its first boto3 client)."""
    from widget_mcp.local.aws_env import isolate_from_user_aws

    isolate_from_user_aws()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=["plain", "sign-in", "both"], default="both")
    parser.add_argument("--keep", action="store_true", help="keep each variant's JSON report")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    prepare()
    python = debian_python.python("arm64")
    runtime = runtime_provided(Target("arm64", debian_python.VERSION))
    print(f"asset-smoke: {python.describe()}; boto3 stand-in {runtime.name}", flush=True)
    variants = {"plain": [False], "sign-in": [True], "both": [False, True]}[args.variant]
    failed = []
    for sign_in in variants:
        try:
            run_variant(python, runtime, sign_in=sign_in, keep=args.keep)
        except SmokeFailed as exc:
            failed.append("sign-in" if sign_in else "plain")
            print(f"[{failed[-1]}] FAILED: {exc}", file=sys.stderr, flush=True)
    minutes, seconds = divmod(time.perf_counter() - started, 60)
    verdict = f"FAILED ({', '.join(failed)})" if failed else "passed"
    print(f"asset-smoke: {verdict} in {int(minutes)}m{seconds:04.1f}s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    sys.exit(main())
