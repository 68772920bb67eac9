"""The cold-start trace the asset build runs (lambda_asset/handler_probe.py, scenario "init") serves any registry of
apps: a user's app with a fixed text resource, and none of the reference apps, synthesizes as the reference apps do."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from widget_mcp.lambda_asset.build import HANDLER_PROBE, TRACE_ENVIRONMENT, TRACE_HOST

ROOT = Path(__file__).resolve().parents[2]

NOTES_APP = """
from pydantic import BaseModel, Field

from widget_mcp.apps.books import AppContext
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult

book = ToolBook()


@book.resource(uri="notes://readme", name="readme", title="Read me", description="What the notes are.",
               mime_type="text/plain")
def readme() -> str:
    return "Notes, one a line."


class Note(BaseModel):
    text: str = Field(max_length=80)


@book.tool(name="note_echo", title="Echo a note", description="Echoes a note.", output=Note, read_only=True,
           destructive=False, open_world=False, invoking="Echoing", invoked="Echoed")
def note_echo(args: Note, call: ToolCall) -> ToolResult:
    return ToolResult(structured=args, narration=args.text)


def tool_book(context: AppContext) -> ToolBook:
    return book
"""


def test_the_cold_start_trace_passes_for_an_app_with_a_fixed_resource_and_no_reference_app(tmp_path: Path) -> None:
    source = tmp_path / "lambda_src"
    shutil.copytree(ROOT / "lambda_src", source, ignore=shutil.ignore_patterns("__pycache__"))
    apps = source / "widget_mcp" / "apps"
    (apps / "notes").mkdir()
    (apps / "notes" / "__init__.py").write_text(NOTES_APP)
    registry = apps / "registry.py"
    text = registry.read_text()
    start = text.index("BUILT_IN: tuple[str, ...] = (")
    end = text.index(")\n", start) + 2
    registry.write_text(text[:start] + 'BUILT_IN: tuple[str, ...] = ("widget_mcp.apps.notes",)\n' + text[end:])
    report = tmp_path / "trace.json"
    site_packages = sysconfig.get_paths()["purelib"]
    config = {"paths": [str(source), site_packages], "host": TRACE_HOST, "scenario": "init", "sign_in": False}
    config |= {"token": None, "report": str(report)}
    (tmp_path / "config.json").write_text(json.dumps(config))
    env = {**TRACE_ENVIRONMENT, "POWERTOOLS_METRICS_DISABLED": "true", "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand"}
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", str(HANDLER_PROBE), str(tmp_path / "config.json")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    result = json.loads(report.read_text())
    assert result.get("error") is None, result.get("error")
    assert done.returncode == 0, done.stderr[-2000:]
    names = [step["name"] for step in result["steps"]]
    assert [name for name in names if name.startswith("resources/read")] == ["resources/read notes://readme"]
    assert "tools/call note_echo" in names  # the call's path is traced too
    assert any(path.endswith("widget_mcp/toolkit/runtime.py") for path in result["code_loaded"][str(source)])
