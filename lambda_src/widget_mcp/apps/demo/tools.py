"""`display_demo`: echoes a message and shows it as two display widgets (a text block and a key/value table)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from widget_mcp import DISPLAY_HOST, ToolBook, ToolCall, ToolError, ToolResult

book = ToolBook(warm_up=("display_demo", {"message": "snapshot"}))


class DemoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(
        min_length=1, max_length=2000, description="Text to show back.", examples=["Hello from the playground"]
    )
    fail_after_widgets: bool = Field(
        default=False, description="Emit the widgets and then fail, to see that a failed call shows none."
    )


class DemoOutput(BaseModel):
    message: str
    length: int
    words: int


@book.tool(
    name="display_demo",
    justify={
        "read_only": "Only shows the message it is given back; nothing is stored.",
        "open_world": "Reaches no other system: the message stays in the conversation.",
        "destructive": "Reads only: nothing is deleted, overwritten or sent.",
    },
    title="Display demo",
    description=(
        "Shows a message back as two display widgets: the text itself and a small table of its statistics. "
        "Use it to check that this server's widgets render in your host."
    ),
    output=DemoOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Preparing the display…",
    invoked="Display ready",
    widget=DISPLAY_HOST,
)
def display_demo(args: DemoInput, call: ToolCall) -> ToolResult:
    words = len(args.message.split())
    call.emit("text", {"text": args.message}, fallback=args.message)
    call.emit(
        "table",
        {"rows": [["characters", str(len(args.message))], ["words", str(words)]]},
        fallback=f"characters: {len(args.message)}, words: {words}",
    )
    if args.fail_after_widgets:
        raise ToolError("The demo failed on request, after emitting its widgets.", code="demo_failure")
    return ToolResult(
        structured=DemoOutput(message=args.message, length=len(args.message), words=words),
        narration=f"Showed a message of {words} word{'s' if words != 1 else ''}.",
    )
