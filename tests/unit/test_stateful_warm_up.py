"""A book whose warm-up keeps state (`warm_up_keeps_state=True`) is exercised on the apps built again on an
in-memory store: `make dev`'s load check reports a broken handler at once, and nothing reaches the real store."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.apps import registry
from widget_mcp.apps.books import AppContext
from widget_mcp.local.load_check import load_every_app
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.wiring import build_core, prepare_snapshot

APP = "fake_stateful_app"


class NoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=100)


class NoteOut(BaseModel):
    note_id: str


def stateful_app(*, broken: bool) -> types.ModuleType:
    module = types.ModuleType(APP)
    module.written = []  # type: ignore[attr-defined]

    def tool_book(context: AppContext) -> ToolBook:
        book = ToolBook(warm_up=("fake_add_note", {"text": "warm"}), warm_up_keeps_state=True)

        @book.tool(
            name="fake_add_note",
            title="Add a note",
            description="Keeps a note.",
            output=NoteOut,
            read_only=False,
            destructive=False,
            open_world=False,
            invoking="Adding…",
            invoked="Added",
        )
        def fake_add_note(args: NoteIn, call: ToolCall) -> ToolResult:
            if broken:
                raise NameError("name 'Notes' is not defined")
            owner = call.owner("Notes")
            doc = Document("note", "n1", {"text": args.text}, 1, 0, 0, 4_000_000_000)
            stored = owner.create(context.store, doc, quota=5, what="live notes")
            module.written.append((context.store, owner.partition("n1")))  # type: ignore[attr-defined]
            return ToolResult(structured=NoteOut(note_id=stored.doc_id), narration="Added.")

        return book

    module.tool_book = tool_book  # type: ignore[attr-defined]
    return module


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry, "APPS", (*registry.APPS, APP))
    yield
    sys.modules.pop(APP, None)


def test_a_broken_handler_of_an_app_whose_every_tool_writes_is_reported_by_the_load_check(served: None) -> None:
    sys.modules[APP] = stateful_app(broken=True)
    core = build_core(Settings(), store=InMemoryDocumentStore())
    [line] = load_every_app(core)
    assert line.startswith("fake_add_note cannot load its handler: NameError: name 'Notes' is not defined (")


@pytest.mark.parametrize("anonymous_state", ["capability", "refuse"])
def test_a_warm_up_that_keeps_state_runs_its_handler_on_a_scratch_store_and_writes_nothing_real(
    served: None, anonymous_state: str
) -> None:
    app = sys.modules[APP] = stateful_app(broken=False)
    real = InMemoryDocumentStore()
    core = build_core(Settings(anonymous_state=anonymous_state), store=real)
    assert "fake_add_note" not in [tool for tool, _ in core.warm_ups]
    # the registry's own apps may declare stateful warm-ups too (every `make app STATE=1` app does)
    assert [tool for tool, _ in core.stateful_warm_ups].count("fake_add_note") == 1
    prepare_snapshot(core)
    [(store, partition)] = app.written  # type: ignore[attr-defined]
    assert store is not real
    assert store.get(partition, "note", "n1") is not None
    assert real.get(partition, "note", "n1") is None
    assert load_every_app(core) == []
