"""The clients of the matrix: which library at which version, how its driver starts, and the protocol eras it
speaks. The versions are the locked ones (node/package-lock.json, python/*.txt, uv.lock); each driver reports the
version it really loaded, and the matrix fails if the two differ."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NODE = HERE / "node"
PYTHON = HERE / "python"
# The separate Python environments `make clients` creates (uv.lock holds mcp 2.x; these hold what it cannot).
ENVIRONMENTS = ROOT / ".clients"

HANDSHAKE = "2025-11-25"
STATELESS = "2026-07-28"


@dataclass(frozen=True)
class ClientSpec:
    # A short name for test ids (`-k ts_sdk`): letters, digits and underscores.
    key: str
    library: str
    version: str
    eras: tuple[str, ...]
    # The driver's command line, without the MCP URL (its last argument).
    command: tuple[str, ...]
    # What must exist for the command to run, and what installs it.
    needs: Path
    note: str = ""
    # The eras in which its driver can play a host that shows the server's forms as its own: it declares
    # `elicitation` (and the MCP Apps extension when told to) and gives the answer each call names.
    answers_input: tuple[str, ...] = ()
    # Whether its driver, there, can also declare the MCP Apps extension (mcp 1.x declares no extensions).
    declares_extensions: bool = True
    # Whether its driver sees the HTTP requests its client sends (the late-answer and unanswered scenarios count the
    # stream's resumptions): a proxy sends them from a process of its own.
    sees_requests: bool = True

    @property
    def name(self) -> str:
        return f"{self.library}@{self.version}"


def _node() -> str:
    return shutil.which("node") or "node"


def _sdk_v1(version: str, package: str, era: str, note: str, answers_input: tuple[str, ...] = ()) -> ClientSpec:
    return ClientSpec(
        "ts_sdk_" + version.replace(".", "_"),
        "@modelcontextprotocol/sdk",
        version,
        (era,),
        (_node(), str(NODE / "sdk_v1.mjs"), package),
        NODE / "node_modules" / package / "package.json",
        note,
        answers_input,
    )


CLIENTS: tuple[ClientSpec, ...] = (
    _sdk_v1(
        "1.32.2", "@modelcontextprotocol/sdk", HANDSHAKE, "Claude Desktop, VS Code, Cursor, LibreChat", (HANDSHAKE,)
    ),
    _sdk_v1("1.22.0", "mcp-sdk-1.22", "2025-06-18", "hosts not updated since mid 2025"),
    _sdk_v1("1.12.3", "mcp-sdk-1.12", "2025-03-26", "hosts not updated since spring 2025"),
    ClientSpec(
        "ts_client_2_4_0",
        "@modelcontextprotocol/client",
        "2.4.0",
        (HANDSHAKE, STATELESS),
        (_node(), str(NODE / "client_v2.mjs")),
        NODE / "node_modules" / "@modelcontextprotocol" / "client" / "package.json",
        "the widgets' client and the AppBridge test host's",
        (HANDSHAKE, STATELESS),
    ),
    ClientSpec(
        "mcp_remote_0_15_1",
        "mcp-remote",
        "0.15.1",
        (HANDSHAKE,),
        (_node(), str(NODE / "mcp_remote.mjs")),
        NODE / "node_modules" / "mcp-remote" / "package.json",
        "hosts that speak only stdio, through the proxy (the TypeScript SDK v1 client on its stdin)",
        (HANDSHAKE,),
        sees_requests=False,
    ),
    ClientSpec(
        "python_sdk_2_3_0",
        "mcp",
        "2.3.0",
        (HANDSHAKE, STATELESS),
        (sys.executable, str(PYTHON / "mcp2_driver.py")),
        Path(sys.executable),
        "the Python SDK this server is built on",
        (HANDSHAKE, STATELESS),
    ),
    ClientSpec(
        "python_sdk_1_30_0",
        "mcp",
        "1.30.0",
        (HANDSHAKE,),
        (str(ENVIRONMENTS / "mcp1" / "bin" / "python"), str(PYTHON / "mcp1_driver.py")),
        ENVIRONMENTS / "mcp1" / ".synced",
        answers_input=(HANDSHAKE,),
        declares_extensions=False,
    ),
    ClientSpec(
        "fastmcp_4_1_6",
        "fastmcp",
        "4.1.6",
        (HANDSHAKE, STATELESS),
        (str(ENVIRONMENTS / "fastmcp" / "bin" / "python"), str(PYTHON / "fastmcp_driver.py")),
        ENVIRONMENTS / "fastmcp" / ".synced",
        answers_input=(HANDSHAKE, STATELESS),
    ),
)

# The client whose results the agent frameworks' tests expect their model to read: the SDK this server is built on.
REFERENCE = next(spec for spec in CLIENTS if spec.key == "python_sdk_2_3_0")

# Every (client, era) the matrix runs, and its test id (`ts_sdk_1_32_2-2025_11_25`).
CLIENT_ERAS: tuple[tuple[ClientSpec, str], ...] = tuple((spec, era) for spec in CLIENTS for era in spec.eras)
CLIENT_ERA_IDS = [f"{spec.key}-{era.replace('-', '_')}" for spec, era in CLIENT_ERAS]
# The (client, era) pairs that can play a host answering input requests, and their ids.
ANSWERING_ERAS = tuple((spec, era) for spec, era in CLIENT_ERAS if era in spec.answers_input)
ANSWERING_ERA_IDS = [f"{spec.key}-{era.replace('-', '_')}" for spec, era in ANSWERING_ERAS]
# Those whose driver can declare the MCP Apps extension too.
EXTENSION_ERAS = tuple((spec, era) for spec, era in ANSWERING_ERAS if spec.declares_extensions)
EXTENSION_ERA_IDS = [f"{spec.key}-{era.replace('-', '_')}" for spec, era in EXTENSION_ERAS]
# Those in the handshake era, where the questions come on the call's stream and the client resumes it.
RESUMING_ERAS = tuple((spec, era) for spec, era in ANSWERING_ERAS if era == HANDSHAKE and spec.sees_requests)
RESUMING_ERA_IDS = [f"{spec.key}-{era.replace('-', '_')}" for spec, era in RESUMING_ERAS]
