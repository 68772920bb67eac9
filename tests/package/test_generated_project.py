"""The toolkit proved from outside: its wheel built, a project with a widget generated from that wheel in a folder of
its own, the project's own `make test`, `make synth` and `make dev` run there, its widget opened from `make dev` in two
MCP Apps hosts (the reference host on ext-apps' AppBridge, the mcp-use inspector), then the project upgraded to a wheel
of another version and tested and synthesized again.

The project sees nothing of this repository but the wheel: it installs offline, from the wheel file and the caches
that this repository's own installs filled (uv's and npm's), with its own lock and virtual environment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser_support import watched_page
from ext_apps_host_support import ERAS, ExtAppsHost, assert_view_ran_clean, host_pages, host_record, open_in_host
from inspector_hosts import HOST_ERRORS, loopback_context, mcp_use, open_in_mcp_use
from playwright.sync_api import Browser, expect, sync_playwright
from widget_mcp.local.chromium import CHROMIUM_ARGS, ChromiumNotFound, find_chromium

ROOT = Path(__file__).resolve().parents[2]
UV = ROOT / ".tools" / "bin" / "uv"
NAME = "weather"
HANDLER = "widget_mcp.handler.handler"
# Node and npm, wherever this machine has them (the project's widget build needs them, as a user's would).
NODE_DIR = str(Path(shutil.which("npm") or "/usr/bin/npm").parent)


def build_inputs() -> list[str]:
    """What the wheel is built from: what the sdist holds, as pyproject.toml says."""
    sdist = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["sdist"]
    return [*sdist["only-include"], *sdist["force-include"]]


pytestmark = pytest.mark.xdist_group("generated_project")


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{args} in {cwd} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def build_wheel(source: Path, out: Path, version: str | None = None) -> Path:
    """The toolkit's wheel from a copy of its build inputs, at `version` when given."""
    tree = out / "source"
    for item in build_inputs():
        origin, target = source / item, tree / item
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target)
    if version is not None:
        pyproject = tree / "pyproject.toml"
        text = pyproject.read_text()
        pyproject.write_text(re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', text, count=1))
    run([UV, "build", "--wheel", "--quiet", "--out-dir", out / "dist"], cwd=tree, env=os.environ | {"UV_OFFLINE": "1"})
    (wheel,) = (out / "dist").glob("widget_mcp-*.whl")
    return wheel


# What a user's shell passes on: nothing of this repository's paths, virtual environment or the settings other tests
# put in this process's environment (the Lambda layer's ALLOWED_HOSTS would make the project refuse loopback).
SHELL_VARIABLES = ("HOME", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")
# Where the caches are, when this machine moves them: the project installs from those same caches.
SHELL_VARIABLES += ("XDG_CACHE_HOME", "UV_CACHE_DIR", "npm_config_cache")


def project_env() -> dict[str, str]:
    """The environment a user's shell would have, offline: every package comes from the wheel or the caches."""
    env = {key: os.environ[key] for key in SHELL_VARIABLES if key in os.environ}
    offline = {"UV_OFFLINE": "1", "npm_config_offline": "true"}
    return env | offline | {"UV": str(UV), "PATH": os.pathsep.join([str(UV.parent), os.defpath, NODE_DIR])}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("package")


@pytest.fixture(scope="module")
def wheel(work: Path) -> Path:
    return build_wheel(ROOT, work / "first")


def test_the_wheel_holds_the_toolkit_its_bundles_widget_kit_and_integration_and_no_test_fixture(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        integration = archive.read("widget_mcp/_integrations/openwebui/widget_mcp.py")
        manifest = json.loads(archive.read("widget_mcp/_bundles/manifest.json"))
    built = json.loads((ROOT / "widget_bundles" / "dist" / "manifest.json").read_text())
    assert manifest == built
    assert all(f"widget_mcp/_bundles/{files['js']}" in names for files in built["entries"].values())
    assert {"widget_mcp/handler.py", "widget_mcp/cdk/service.py", "widget_mcp/_widget_kit/shared/bridge.ts"} <= names
    assert integration == (ROOT / "integrations" / "openwebui" / "widget_mcp.py").read_bytes()
    assert not [name for name in names if "conformance" in name or "__pycache__" in name or name.startswith("tests/")]
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(wheel) as archive:
        assert "widget-mcp = widget_mcp.cli:main" in archive.read(entry_points).decode()


def test_the_installed_command_prints_the_open_webui_integration_as_it_is(wheel: Path, work: Path) -> None:
    printed = run([UV, "tool", "run", "--from", wheel, "widget-mcp", "openwebui"], cwd=work, env=project_env())
    assert printed == (ROOT / "integrations" / "openwebui" / "widget_mcp.py").read_text()


@pytest.fixture(scope="module")
def project(work: Path, wheel: Path) -> tuple[Path, Path]:
    run([UV, "tool", "run", "--from", wheel, "widget-mcp", "new", NAME, "--widget"], cwd=work, env=project_env())
    return work / NAME, work


def installed_version(project: Path) -> str:
    script = "from importlib.metadata import version; print(version('widget-mcp'))"
    return run([project / ".venv" / "bin" / "python", "-c", script], cwd=project).strip()


def test_a_project_generated_from_the_wheel_passes_its_own_make_test(project: tuple[Path, Path], wheel: Path) -> None:
    root, _ = project
    assert (root / "src" / NAME / "tools.py").is_file()
    assert not (root / "lambda_src").exists()  # nothing of the repository but the generated files and the wheel
    assert [path.name for path in (root / "wheels").iterdir()] == [wheel.name]
    output = run(["make", "test"], cwd=root, env=project_env())
    assert re.search(r"\d+ passed", output), output
    assert installed_version(root) == tomllib_version(ROOT / "pyproject.toml")
    # Without make (an IDE, `uv run pytest`): the project's conftest registers its app all the same.
    output = run([root / ".venv" / "bin" / "python", "-m", "pytest", "-q"], cwd=root, env=project_env())
    assert re.search(r"\d+ passed", output), output


def test_the_projects_make_synth_writes_a_stack_serving_its_app_that_cdk_nag_passes(project: tuple[Path, Path]) -> None:
    root, _ = project
    run(["make", "synth"], cwd=root, env=project_env(), timeout=1200)
    (template_path,) = (root / "cdk.out").glob("*.template.json")
    template = json.loads(template_path.read_text())
    functions = [
        resource["Properties"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::Lambda::Function" and resource["Properties"].get("Handler") == HANDLER
    ]
    assert [f["Environment"]["Variables"]["WIDGET_MCP_APPS"] for f in functions] == [NAME]
    assert any(name.endswith("McpUrl") or "McpUrl" in name for name in template["Outputs"])


@contextmanager
def make_dev(root: Path) -> Iterator[str]:
    """The project's `make dev` as a user starts it (on a free port, without reloads): its base URL once it answers;
    stopped, its whole process group, after. Its output goes to a file, read when it fails (a pipe nobody drains
    would stop a server that logs)."""
    port = free_port()
    env = project_env() | {"PORT": str(port), "RELOAD": "0"}
    base = f"http://127.0.0.1:{port}"
    log = root.parent / f"make-dev-{port}.log"
    with (
        log.open("wb") as output,
        subprocess.Popen(
            ["make", "dev"], cwd=root, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        ) as server,
    ):
        try:
            wait_for(f"{base}/healthz", server, log)
            yield base
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)


def test_the_projects_make_dev_serves_its_tool_and_its_widget(project: tuple[Path, Path]) -> None:
    root, _ = project
    with make_dev(root) as base:
        listed = post_json(f"{base}/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        manifest = json.loads(urllib.request.urlopen(f"{base}/widgets/manifest.json", timeout=10).read())
    tools = {tool["name"]: tool for tool in listed["result"]["tools"]}
    uri = tools[f"{NAME}_note"]["_meta"]["ui"]["resourceUri"]
    assert uri.startswith(f"ui://widget/{NAME}-")
    assert NAME in manifest["entries"]


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, launched as the browser layer launches it (never a downloaded browser)."""
    try:
        executable = find_chromium()
    except ChromiumNotFound as exc:
        pytest.fail(f"the widget's proof in a host needs Chromium: {exc}", pytrace=False)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()


# What a loaded two-core machine may take to start a page, call the tool and render the view.
BROWSER_TIMEOUT_MS = 30_000


@pytest.mark.parametrize("era", ERAS)
def test_the_projects_widget_shows_the_tidied_note_in_the_mcp_apps_reference_host_with_no_identity(
    project: tuple[Path, Path], era: str
) -> None:
    """The host built on ext-apps' own AppBridge calls the project's tool over HTTP from its origin (make dev's
    default CORS origins allow any loopback port), with no user identity, and renders the project's widget in its
    sandbox proxy under the template's CSP."""
    root, _ = project
    with (
        make_dev(root) as base,
        host_pages() as (host_origin, sandbox),
        chromium() as browser,
        watched_page(browser, BROWSER_TIMEOUT_MS, viewport={"width": 1280, "height": 1000}) as page,
    ):
        host = ExtAppsHost(host_origin=host_origin, sandbox_url=sandbox, mcp_url=f"{base}/mcp")
        text = "  Check again\n on   Monday  "
        view = open_in_host(page, host, f"{NAME}_note", {"text": text}, era, timeout=BROWSER_TIMEOUT_MS)
        note = view.locator(f'[data-testid="{NAME}-note"]')
        expect(note).to_have_text("Check again on Monday", timeout=BROWSER_TIMEOUT_MS)
        record = host_record(page)
        assert record["toolResult"]["structuredContent"] == {"note": "Check again on Monday", "words": 4}
        assert_view_ran_clean(page)


def test_the_projects_widget_shows_the_tidied_note_in_the_mcp_use_inspector(project: tuple[Path, Path]) -> None:
    """A third-party MCP Apps host, run from its own tools page as a user runs it, on loopback only."""
    root, _ = project
    with (
        make_dev(root) as base,
        mcp_use(f"{base}/mcp") as inspector,
        chromium() as browser,
        loopback_context(browser) as context,
    ):
        context.set_default_timeout(BROWSER_TIMEOUT_MS)
        page = context.new_page()
        view = open_in_mcp_use(page, inspector, f"{NAME}_note", {"text": "  Check again   on Monday "})
        note = view.locator(f'[data-testid="{NAME}-note"]')
        expect(note).to_have_text("Check again on Monday", timeout=BROWSER_TIMEOUT_MS)
        expect(page.locator(HOST_ERRORS)).to_have_count(0)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, server: subprocess.Popen[bytes], log: Path, seconds: float = 180) -> None:
    """Poll `url` until it answers 200, with a bound; the server's output (`log`) if it stops or never answers."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"make dev exited {server.returncode}: {log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise AssertionError(f"{url} did not answer within {seconds} s: {log.read_text(errors='replace')[-3000:]}")


def post_json(url: str, message: dict[str, object]) -> dict[str, object]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def test_the_project_upgraded_to_a_wheel_of_another_version_passes_its_make_test_again(
    project: tuple[Path, Path],
) -> None:
    root, work = project
    current = tomllib_version(ROOT / "pyproject.toml")
    upgraded = f"{current}.post1"
    wheel = build_wheel(ROOT, work / "second", version=upgraded)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    assert f"=={current}" in text
    # As the project's README says: the new wheel in wheels/, named in the sources, the version in both lines.
    shutil.copy2(wheel, root / "wheels" / wheel.name)
    text = re.sub(r'path = "wheels/widget_mcp-[^"]+\.whl"', f'path = "wheels/{wheel.name}"', text)
    pyproject.write_text(text.replace(f"=={current}", f"=={upgraded}"))
    output = run(["make", "test"], cwd=root, env=project_env())
    assert re.search(r"\d+ passed", output), output
    assert installed_version(root) == upgraded
    # The CDK app run as the CDK CLI runs it (cdk.json), without make: it finds the app's package itself.
    run([root / ".venv" / "bin" / "python", "-m", "infra.app"], cwd=root, env=project_env(), timeout=1200)


def tomllib_version(pyproject: Path) -> str:
    return str(tomllib.loads(pyproject.read_text())["project"]["version"])
