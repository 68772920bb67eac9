"""Open WebUI 0.12.4 as a child process on loopback, offline, with a fresh data folder per run.

Its environment is `make test-openwebui`'s (OPENWEBUI_PYTHON, built from tests/openwebui/requirements.txt). The
settings below only seed Open WebUI's config database on first start, which is why every run gets a new
DATA_DIR. Start-up is awaited by polling `/health` with a bound, never by sleeping.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from widget_mcp.local.aws import free_port

STARTUP_SECONDS = 180.0  # about 30 s on two shared cores; the first start after an install compiles more


class OpenWebUIMissing(RuntimeError):
    """The environment `make test-openwebui` installs is not there."""


@dataclass
class OpenWebUI:
    base: str
    data_dir: Path
    log: Path

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def openwebui_python() -> Path:
    python = os.environ.get("OPENWEBUI_PYTHON", "")
    if not python or not Path(python).exists():
        raise OpenWebUIMissing(
            "Open WebUI's environment is missing: run `make test-openwebui` (it installs Open WebUI 0.12.4 into "
            f"~/.cache/widget-mcp/openwebui and sets OPENWEBUI_PYTHON); got OPENWEBUI_PYTHON={python!r}"
        )
    return Path(python)


def offline_settings(model_base: str, data_dir: Path, port: int) -> dict[str, str]:
    """What Open WebUI needs to start with no network: no hub downloads, a scripted model, and sign-up open
    (the first account is the admin, later ones are users)."""
    return {
        "DATA_DIR": str(data_dir),
        "PORT": str(port),
        "WEBUI_AUTH": "True",
        "ENABLE_SIGNUP": "True",
        "DEFAULT_USER_ROLE": "user",
        "BYPASS_MODEL_ACCESS_CONTROL": "True",  # every user may chat with the scripted model
        "WEBUI_SECRET_KEY": "openwebui-test-layer",
        "OFFLINE_MODE": "True",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "RAG_EMBEDDING_ENGINE": "openai",
        "RAG_OPENAI_API_BASE_URL": model_base,
        "RAG_OPENAI_API_KEY": "unused",
        "ENABLE_OLLAMA_API": "False",
        "OPENAI_API_BASE_URL": model_base,
        "OPENAI_API_KEY": "unused",
        "ENABLE_TITLE_GENERATION": "False",
        "ENABLE_TAGS_GENERATION": "False",
        "ENABLE_FOLLOW_UP_GENERATION": "False",
        "ENABLE_AUTOCOMPLETE_GENERATION": "False",
        "ENABLE_VERSION_UPDATE_CHECK": "False",
        "ENABLE_COMMUNITY_SHARING": "False",
        "ANONYMIZED_TELEMETRY": "False",
        "DO_NOT_TRACK": "True",
        "SCARF_NO_ANALYTICS": "True",
        "GLOBAL_LOG_LEVEL": "WARNING",
    }


@contextmanager
def open_webui(model_base: str, *, timeout: float = STARTUP_SECONDS) -> Iterator[OpenWebUI]:
    python = openwebui_python()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="openwebui-") as folder:
        data_dir = Path(folder) / "data"
        data_dir.mkdir()
        log = Path(folder) / "openwebui.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OLLAMA_", "WEBUI_", "DATA_DIR"))}
        env.update(offline_settings(model_base, data_dir, port))
        with log.open("w") as out:
            proc = subprocess.Popen(
                [str(python.parent / "open-webui"), "serve", "--host", "127.0.0.1", "--port", str(port)],
                cwd=folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        server = OpenWebUI(f"http://127.0.0.1:{port}", data_dir, log)
        try:
            _await_health(server, proc, timeout)
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _await_health(server: OpenWebUI, proc: subprocess.Popen[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"Open WebUI exited with {proc.returncode}:\n{server.tail()}")
            try:
                if client.get(f"{server.base}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)  # a poll interval inside a bounded wait, not a wait for something to happen
    raise RuntimeError(f"Open WebUI did not answer /health within {timeout:.0f} s:\n{server.tail()}")
