"""A small app that asks its user mid-call and reports progress, as docs/input-requests.md shows it: the
input-request, progress and logging tests run it outside the conformance app. Its departures board is a
resource clients may subscribe to (with RESUMABLE_STREAMS), which `delay_trains` changes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.auth.gate import SignInGate
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.toolkit import Elicitation, Sampling, ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.runtime import CallObserver
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.transport.host_identity import HostIdentity

book = ToolBook()


class Trip(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str = Field(max_length=80)


class Booking(BaseModel):
    city: str
    traveller: str
    seats: int
    note: str | None = None


class Traveller(BaseModel):
    name: str = Field(title="Your name")
    seats: int = Field(default=1, ge=1, le=9, title="Seats")


@book.tool(
    name="book_trip",
    title="Book a trip",
    description="Books a trip to a city, asking the traveller's name and seats first.",
    output=Booking,
    read_only=False,
    destructive=False,
    open_world=False,
    invoking="Booking…",
    invoked="Booked",
)
def book_trip(args: Trip, call: ToolCall) -> ToolResult:
    who = call.ask(Elicitation(f"Who is travelling to {args.city}?", Traveller), key="traveller")
    if not who.accepted:
        return ToolResult(structured=Booking(city=args.city, traveller="", seats=0), narration="Nothing was booked.")
    traveller = Traveller.model_validate(who.content)
    booking = Booking(city=args.city, traveller=traveller.name, seats=traveller.seats)
    return ToolResult(structured=booking, narration=f"Booked {traveller.seats} seat(s) to {args.city}.")


class Tip(BaseModel):
    city: str
    tip: str
    traveller: str


@book.tool(
    name="travel_tip",
    title="Travel tip",
    description="Asks the user's name, then asks the client's model for a tip about a city, in two rounds.",
    output=Tip,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Thinking…",
    invoked="Tipped",
)
def travel_tip(args: Trip, call: ToolCall) -> ToolResult:
    name = call.ask(Elicitation("What is your name?", Traveller), key="name").content.get("name", "")
    tip = call.ask(Sampling(f"One tip for {name} visiting {args.city}", max_tokens=60), key="tip").text or ""
    return ToolResult(structured=Tip(city=args.city, tip=tip, traveller=name), narration=tip)


@book.tool(
    name="check_in",
    title="Check in",
    description="Reports that it started, then asks who is checking in for a city.",
    output=Booking,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Checking in…",
    invoked="Checked in",
)
def check_in(args: Trip, call: ToolCall) -> ToolResult:
    call.progress(1, 2, "checking in")
    who = call.ask(Elicitation(f"Who is checking in for {args.city}?", Traveller), key="traveller")
    traveller = Traveller.model_validate(who.content)
    booking = Booking(city=args.city, traveller=traveller.name, seats=traveller.seats)
    return ToolResult(structured=booking, narration=f"{traveller.name} checked in.")


DELAYS: dict[str, int] = {}


@book.resource_template(
    uri_template="trip://departures/{city}",
    name="departures",
    title="Departures",
    description="The departures board of a city's station: its delay in minutes.",
    mime_type="text/plain",
    subscribable=True,
)
def departures(city: str) -> str:
    return f"{city}: trains {DELAYS.get(city, 0)} min late"


class Delay(BaseModel):
    city: str = Field(max_length=80)
    minutes: int = Field(ge=0, le=600)


@book.tool(
    name="delay_trains",
    title="Delay trains",
    description="Sets the delay on a city's departures board, and tells its subscribers.",
    output=Delay,
    read_only=False,
    destructive=False,
    open_world=False,
    invoking="Delaying…",
    invoked="Delayed",
)
def delay_trains(args: Delay, call: ToolCall) -> ToolResult:
    DELAYS[args.city] = args.minutes
    call.resource_updated(f"trip://departures/{args.city}")
    return ToolResult(structured=args, narration=f"Trains in {args.city} are {args.minutes} min late.")


class Steps(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: int = Field(default=3, ge=1, le=10)


class Counted(BaseModel):
    steps: int


@book.tool(
    name="count_up",
    title="Count up",
    description="Counts to `steps`, reporting progress and logging each step.",
    output=Counted,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Counting…",
    invoked="Counted",
)
async def count_up(args: Steps, call: ToolCall) -> ToolResult:
    for step in range(1, args.steps + 1):
        await anyio.sleep(0.01)
        call.progress(step, args.steps, f"step {step}")
        call.log("debug" if step < args.steps else "info", f"counted {step}")
    return ToolResult(structured=Counted(steps=args.steps), narration=f"Counted to {args.steps}.")


@book.tool(
    name="count_up_sync",
    title="Count up (sync)",
    description="The same as count_up from a sync handler, which a local server runs in a worker thread.",
    output=Counted,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Counting…",
    invoked="Counted",
)
def count_up_sync(args: Steps, call: ToolCall) -> ToolResult:
    for step in range(1, args.steps + 1):
        call.progress(step, args.steps)
    return ToolResult(structured=Counted(steps=args.steps), narration=f"Counted to {args.steps}.")


# Set by a test once it has seen the first progress event of `wait_for_go`.
GO = threading.Event()


@book.tool(
    name="wait_for_go",
    title="Wait for go",
    description="Reports progress, then waits (at most 10 s) for the test to say go: proves events stream.",
    output=Counted,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Waiting…",
    invoked="Went",
)
def wait_for_go(args: Steps, call: ToolCall) -> ToolResult:
    call.progress(1, 2, "waiting for go")
    went = GO.wait(10)
    call.progress(2, 2)
    return ToolResult(structured=Counted(steps=2 if went else 1), narration="Went." if went else "Gave up.")


SECRET = "s" * 40


def trip_settings(**overrides: object) -> Settings:
    values: dict[str, object] = {
        "allowed_hosts": ("127.0.0.1:*", "localhost:*"),
        "widget_base_url": "https://cdn.example.com/widgets",
        "request_state_secret": SECRET,
        **overrides,
    }
    return Settings(**values)  # type: ignore[arg-type]


@contextmanager
def served_trips(settings: Settings) -> Iterator[str]:
    """The app over loopback HTTP (uvicorn, as `make dev` serves it): its base URL."""
    from servers import serve
    from widget_mcp.app import create_app

    endpoint = trip_endpoint(settings, concurrent=True)
    with serve(create_app(endpoint, max_body_bytes=settings.max_body_bytes, tool_count=len(book.tools))) as url:
        yield url


def trip_endpoint(
    settings: Settings,
    *,
    concurrent: bool = False,
    store: DocumentStore | None = None,
    observer: CallObserver | None = None,
    clock: Callable[[], float] | None = None,
    gate: SignInGate | None = None,
    host_identity: HostIdentity | None = None,
) -> McpEndpoint:
    """`store` keeps the calls resumable streams wait on (with RESUMABLE_STREAMS on); `clock` is theirs. `gate`:
    sign-in on; `host_identity`: host tokens accepted. Browser origins: `settings.cors_origins`."""
    from widget_mcp.server import build_runtime, build_server
    from widget_mcp.storage.memory import InMemoryDocumentStore
    from widget_mcp.wiring import streams_for

    runtime = build_runtime(settings, [book], sync_in_thread=concurrent, observer=observer)
    streams, subscriptions = streams_for(settings, store or InMemoryDocumentStore(), runtime, clock=clock or time.time)
    return McpEndpoint(
        build_server(runtime, subscriptions=subscriptions),
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        inline_tools=runtime.runs_inline,
        streams=streams,
        subscriptions=subscriptions,
        gate=gate,
        host_identity=host_identity,
        cors=CorsPolicy(settings.cors_origins),
    )
