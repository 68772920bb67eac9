"""The files a new app that keeps state starts from (`make app NAME=… STATE=1`; see scaffold.py): a repository on
the store's port, a service with the rules, handlers built on first call, the tools, and their tests, a race on
moto among them. `$name` and `$title` are filled in."""

from __future__ import annotations

from pathlib import Path
from string import Template

from widget_mcp.local.scaffold_state_tests import FUNCTIONAL_TEST, RACE_TEST, UNIT_TEST

INIT = '''"""The $title app: notes its users keep. Scaffolded by `make app STATE=1`; edit freely.

`tools.py` declares the tools and imports only pydantic and the toolkit (the server lists them at cold start);
`handlers.py` runs them, built on the first call on `context.store` through `repository.py` (the store's port)
and `service.py` (the rules: what a note holds, how an edit meets a concurrent one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.$name.tools import declare

if TYPE_CHECKING:
    from widget_mcp import AppContext, ToolBook

__all__ = ["tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return declare(context)
'''

TOOLS = '''"""The $title app's tools, declared only: handlers.py builds each handler on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp import DISPLAY_HOST, ToolBook, ToolCall, ToolResult
from widget_mcp.apps.$name.models import AddInput, EditInput, NoteInput, NoteOutput

if TYPE_CHECKING:
$type_imports
# The note_id these tools take is made by ${name}_add_note: declared, so the playground and
# the test clients make one first (nothing guesses ids from field names).
IDS = {"note_id": "${name}_add_note.note_id"}


def declare(context: AppContext) -> ToolBook:
    # Validated now, at start: a bad ${NAME}_QUOTA_LIVE_ITEMS stops the server naming it.
    quota = context.app_settings("$name").quota_live_items
    # Every tool writes, so the warm-up keeps state: it runs on an in-memory store, never the table.
    book = ToolBook(warm_up=("${name}_add_note", {"text": "warm-up"}), warm_up_keeps_state=True)
    built: list[Handlers] = []
    # A tool that writes is destructive=True: Claude's directory asks it of every tool that changes data (make
    # check-app HOST=claude), and its hosts then confirm each call with the user.

    def handlers() -> Handlers:
        if not built:
            from widget_mcp.apps.$name.handlers import Handlers

            built.append(Handlers(context.store, quota=quota))
        return built[0]

    @book.tool(
        name="${name}_add_note",
        title="Add a note",
        description="Keeps a short note for the user and shows it. Use it when the user asks to note something.",
        output=NoteOutput,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Adding the note…",
        invoked="Note added",
        widget=DISPLAY_HOST,
    )
    def ${name}_add_note(args: AddInput, call: ToolCall) -> ToolResult:
        return handlers().add(args, call)

    @book.tool(
        name="${name}_edit_note",
        title="Edit a note",
        description="Replaces a note's text, unless it changed since the version given (then says so).",
        output=NoteOutput,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Editing the note…",
        invoked="Note edited",
        widget=DISPLAY_HOST,
        ids=IDS,
    )
    def ${name}_edit_note(args: EditInput, call: ToolCall) -> ToolResult:
        return handlers().edit(args, call)

    @book.tool(
        name="${name}_like_note",
        title="Like a note",
        description="Adds one like to a note.",
        output=NoteOutput,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Liking…",
        invoked="Liked",
        widget=DISPLAY_HOST,
        ids=IDS,
    )
    def ${name}_like_note(args: NoteInput, call: ToolCall) -> ToolResult:
        return handlers().like(args, call)

    @book.tool(
        name="${name}_show_note",
        title="Show a note",
        description="Shows one of the user's notes, with its likes and version. Changes nothing.",
        output=NoteOutput,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Fetching the note…",
        invoked="Note shown",
        widget=DISPLAY_HOST,
        ids=IDS,
    )
    def ${name}_show_note(args: NoteInput, call: ToolCall) -> ToolResult:
        return handlers().show(args, call)

    return book
'''

MODELS = '''"""The $title app's arguments and results, with the caps hosts see.

tools.py and handlers.py both import them, so handlers.py never imports tools.py, which loads it (make lint finds
import circles)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class AddInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Every string, number and list argument needs a cap; the example is what the playground and test clients send.
    text: str = Field(min_length=1, max_length=500, description="What the note says.", examples=["Buy oat milk"])


class NoteInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note_id: str = Field(
        min_length=1,
        max_length=32,
        pattern=r"^[A-Za-z0-9_-]+$$",
        description="The note_id ${name}_add_note answered.",
    )


class EditInput(NoteInput):
    text: str = Field(min_length=1, max_length=500, description="The note's new text.", examples=["Buy soy milk"])
    version: int = Field(
        ge=1,
        le=1_000_000,
        description="The note's version you last saw: a note changed since is not overwritten.",
        examples=[1],
    )


class NoteOutput(BaseModel):
    note_id: str = Field(description="The note's id, which the other tools take.")
    text: str
    likes: int = Field(description="How many likes it has (they never conflict: each is one atomic add).")
    version: int = Field(description="Its version: pass it to ${name}_edit_note.")
'''

HANDLERS = '''"""The $title app's handlers: take the caller's owner, call the service, shape the result."""

from __future__ import annotations

from widget_mcp import DocumentStore, ToolCall, ToolResult
from widget_mcp.apps.$name.models import AddInput, EditInput, NoteInput, NoteOutput
from widget_mcp.apps.$name.repository import Notes
from widget_mcp.apps.$name.service import Note, NoteService

WHAT = "Notes"  # names the state in an identity_required error


class Handlers:
    def __init__(self, store: DocumentStore, *, quota: int) -> None:
        self.service = NoteService(Notes(store), quota=quota)

    def add(self, args: AddInput, call: ToolCall) -> ToolResult:
        return shown(call, self.service.add(call.owner(WHAT), args.text), "Added the note")

    def edit(self, args: EditInput, call: ToolCall) -> ToolResult:
        return shown(call, self.service.edit(call.owner(WHAT), args.note_id, args.text, args.version), "Edited")

    def like(self, args: NoteInput, call: ToolCall) -> ToolResult:
        return shown(call, self.service.like(call.owner(WHAT), args.note_id), "Liked")

    def show(self, args: NoteInput, call: ToolCall) -> ToolResult:
        return shown(call, self.service.show(call.owner(WHAT), args.note_id), "Here is the note")


def shown(call: ToolCall, note: Note, what: str) -> ToolResult:
    likes = f"{note.likes} like{'' if note.likes == 1 else 's'}"
    call.emit("text", {"text": note.text}, fallback=note.text)  # a display widget; its fallback is also in `content`
    out = NoteOutput(note_id=note.note_id, text=note.text, likes=note.likes, version=note.version)
    return ToolResult(structured=out, narration=f"{what} ({likes}, version {note.version}).")
'''

SERVICE = '''"""The $title app's rules, with no I/O of their own: what a note holds, and how an edit meets a
concurrent one."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from widget_mcp import Document, StateOwner, ToolError, VersionConflict, capability_id, time_ordered_id
from widget_mcp.apps.$name.repository import Notes


class NoteNotFound(ToolError):
    """Also another user's note: answered exactly like an id that never existed."""

    code = "note_not_found"

    def __init__(self, note_id: str) -> None:
        super().__init__(
            f"There is no note {note_id} of yours. Check the id or add one: ${name}_add_note.",
        )


class EditConflict(ToolError):
    """The note changed since the version the caller saw; nothing was written."""

    code = "conflict"

    def __init__(self, seen: int, current: Document) -> None:
        super().__init__(
            f"The note changed since version {seen}: it is at version {current.version} now and reads "
            f"{current.body['text']!r}. Nothing was overwritten; edit it again with version {current.version}.",
            details={"version": current.version},
        )


class EmptyNote(ToolError):
    code = "empty_note"

    def __init__(self) -> None:
        super().__init__("The note is empty: write a few words for it.")


@dataclass(frozen=True)
class Note:
    note_id: str
    text: str
    likes: int
    version: int


def note_of(doc: Document) -> Note:
    return Note(doc.doc_id, doc.body["text"], doc.counts.get("likes", 0), doc.version)


def tidy(text: str) -> str:
    """What a note holds: its words, single-spaced; EmptyNote when there are none."""
    tidied = " ".join(text.split())
    if not tidied:
        raise EmptyNote
    return tidied


class NoteService:
    def __init__(self, notes: Notes, *, quota: int, clock: Callable[[], float] = time.time) -> None:
        self.notes, self.quota, self.clock = notes, quota, clock

    def add(self, owner: StateOwner, text: str) -> Note:
        tidied = tidy(text)
        now = int(self.clock())
        # Made without identity: an unguessable id is the only key to it; else sortable by creation.
        note_id = capability_id() if owner.by_capability else time_ordered_id(now * 1000)
        return note_of(self.notes.create(owner, note_id, tidied, now=now, quota=self.quota))

    def show(self, owner: StateOwner, note_id: str) -> Note:
        return note_of(self._get(owner, note_id))

    def edit(self, owner: StateOwner, note_id: str, text: str, version: int) -> Note:
        """Writes only over the version the caller saw: a concurrent edit or like since is a conflict that carries
        the note as it is now, so the caller decides (no blind retry over someone else's change)."""
        tidied = tidy(text)
        doc = self._get(owner, note_id)
        if doc.version != version:
            raise EditConflict(version, doc)
        try:
            return note_of(self.notes.replace(owner, doc, tidied, now=int(self.clock())))
        except VersionConflict as exc:
            if exc.current is None:
                raise NoteNotFound(note_id) from exc
            raise EditConflict(version, exc.current) from exc

    def like(self, owner: StateOwner, note_id: str) -> Note:
        """One atomic add: racing likes all count, with no read first and no retry."""
        try:
            return note_of(self.notes.like(owner, note_id))
        except VersionConflict as exc:  # no such note: an add without expires_at creates nothing
            raise NoteNotFound(note_id) from exc

    def _get(self, owner: StateOwner, note_id: str) -> Document:
        doc = self.notes.get(owner, note_id)
        if doc is None:
            raise NoteNotFound(note_id)
        return doc
'''

REPOSITORY = '''"""The $title app's notes on the store's port (`DocumentStore`: DynamoDB when deployed, moto
under `make dev`, in memory in unit tests). One document per note, in its owner's partition; its likes in an
atomic counter."""

from __future__ import annotations

from widget_mcp import Document, DocumentStore, StateOwner

KIND = "note"
TTL_SECONDS = 30 * 86_400  # kept 30 days after its last edit


class Notes:
    def __init__(self, store: DocumentStore) -> None:
        self.store = store

    def create(self, owner: StateOwner, note_id: str, text: str, *, now: int, quota: int) -> Document:
        """Counted against the owner's live notes: QuotaExceeded past `quota`, TooLarge past the item budget."""
        doc = Document(KIND, note_id, {"text": text}, 1, now, now, now + TTL_SECONDS)
        return owner.create(self.store, doc, quota=quota, what="live notes")

    def get(self, owner: StateOwner, note_id: str) -> Document | None:
        return self.store.get(owner.partition(note_id), KIND, note_id)

    def replace(self, owner: StateOwner, doc: Document, text: str, *, now: int) -> Document:
        """The next version, written only if `doc` is still the stored one: VersionConflict otherwise."""
        new = doc.next({**doc.body, "text": text}, now=now, expires_at=now + TTL_SECONDS)
        self.store.replace(owner.partition(doc.doc_id), new, expected_version=doc.version)
        return new

    def like(self, owner: StateOwner, note_id: str) -> Document:
        return self.store.add(owner.partition(note_id), KIND, note_id, {"likes": 1})
'''


def _fill(template: str, name: str) -> str:
    type_imports = ["from widget_mcp import AppContext", f"from widget_mcp.apps.{name}.handlers import Handlers"]
    return Template(template).substitute(
        name=name,
        NAME=name.upper(),
        title=name.replace("_", " ").title(),
        type_imports="".join(f"    {line}\n" for line in type_imports),
    )


def state_app_files(name: str) -> dict[Path, str]:
    package = Path("lambda_src/widget_mcp/apps") / name
    sources = {
        "__init__.py": INIT,
        "models.py": MODELS,
        "tools.py": TOOLS,
        "handlers.py": HANDLERS,
        "service.py": SERVICE,
        "repository.py": REPOSITORY,
    }
    files = {package / file: _fill(text, name) for file, text in sources.items()}
    files[Path("tests/unit") / name / f"test_{name}_service.py"] = _fill(UNIT_TEST, name)
    files[Path("tests/functional") / f"test_{name}_tools.py"] = _fill(FUNCTIONAL_TEST, name)
    files[Path("tests/functional") / f"test_{name}_race.py"] = _fill(RACE_TEST, name)
    return files
