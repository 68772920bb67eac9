"""Hypothesis strategies for hostile MCP traffic: bodies, headers, both protocol eras and every tool's arguments."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SUBJECTS = ("fuzz-alice", "fuzz-bob")
METHODS = (
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
)

# --- text and JSON values -------------------------------------------------------------------------------------

# Lone surrogates, NUL, BOM, bidi overrides and astral characters beside ordinary text.
_odd_characters = st.sampled_from(["\x00", "\ud800", "\udfff", "\ufeff", "\u202e", "\u2028", "\U0001f600", "\\", '"'])
unicode_text = st.text(st.characters() | st.characters(categories=["Cs"]) | _odd_characters, max_size=40)
printable_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
_big_ints = st.sampled_from([2**31, 2**53 + 1, -(2**63), 10**40, 10**300])
_floats = st.floats(allow_nan=True, allow_infinity=True)
json_scalars = st.none() | st.booleans() | st.integers() | _big_ints | _floats | unicode_text
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(unicode_text, children, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(unicode_text, json_values, max_size=5)


def nested(depth: int, leaf: Any = 1) -> Any:
    """`depth` levels of alternating arrays and objects around `leaf`."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _depths(limit: int) -> st.SearchStrategy[int]:
    return st.sampled_from([limit - 3, limit - 2, limit - 1, limit, limit + 1, 200, 500]) | st.integers(1, 3 * limit)


deep_values = st.integers(1, 200).map(nested)
# Huge strings are built by repetition: generating a megabyte character by character would swamp the run.
_sizes = st.sampled_from([2_000, 2_001, 16 * 1024 + 1, 32 * 1024 + 1, 64 * 1024 + 1, 300_000])
huge_text = st.builds(lambda n, ch: ch * n, _sizes, st.sampled_from(["x", "é", "\U0001f600", "[", "\\"]))

# --- tool arguments ---------------------------------------------------------------------------------------------


@dataclass
class Pools:
    """Ids of things that exist, so fuzzed calls also reach loaded state, not only 'not found'."""

    game_ids: list[str]
    form_ids: list[str]
    # The answer key each seeded form's widget got, by form id: fuzzed answers reach the checks past the key.
    answer_keys: dict[str, str] = field(default_factory=dict)


SAN_AND_UCI = ["e4", "e2e4", "Nf3", "g1f3", "O-O", "O-O-O", "e8=Q", "e7e8q", "Kxe8", "a1a1", "0000", "e9", "Qh4#"]
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",  # a promotion one move away
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 999999999",
    "not a fen",
]
FLIGHT = {
    "type": "object",
    "required": ["destinationCity", "departureDate"],
    "properties": {
        "destinationCity": {"type": "string", "title": "Destination City", "maxLength": 40},
        "departureDate": {"type": "string", "format": "date"},
        "seats": {"type": "integer", "minimum": 1, "maximum": 9},
        "cabin": {"enum": ["economy", "business"]},
        "email": {"type": "string", "format": "email"},
    },
}
SCHEMAS = [
    FLIGHT,
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]{1,8}$"}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"n": {"type": "number"}}},
    {"type": "object", "properties": {}},
    {"type": "object", "properties": {"x": {"type": "no-such-type"}}},
    {"$schema": "https://example.com/other", "type": "object", "properties": {"x": {}}},
    {"type": "object", "required": ["missing"], "properties": {"x": {}}},
    {"type": "array", "items": {}},
]


def _length_edges(limit: int) -> st.SearchStrategy[str]:
    return st.sampled_from([limit, limit + 1]).map(lambda n: "a" * n)


def _wrong(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly well-formed values, sometimes anything at all."""
    return st.one_of(valid, valid, json_values, huge_text, deep_values)


def _ids(pool: list[str]) -> st.SearchStrategy[Any]:
    shaped = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True)
    return _wrong(st.sampled_from(pool) | shaped | _length_edges(64) | st.just("../../etc/passwd"))


def _arguments(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """Each field present or not, plus sometimes an unexpected one; sometimes not an object at all."""

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        args = {name: draw(strategy) for name, strategy in fields.items() if draw(st.booleans())}
        if draw(st.integers(0, 9)) == 0:
            args[draw(unicode_text)] = draw(json_values)
        return args

    return st.one_of(build(), build(), build(), json_values)


def _schemas() -> st.SearchStrategy[Any]:
    shaped = st.sampled_from(SCHEMAS)
    as_text = shaped.map(json.dumps)
    padded = st.sampled_from([32 * 1024, 70_000]).map(
        lambda n: {"type": "object", "properties": {"x": {"type": "string", "description": "d" * n}}}
    )
    text_nesting = st.sampled_from([13, 100, 5_000, 60_000]).map(lambda n: "[" * n + "]" * n)
    return _wrong(shaped | as_text | padded | text_nesting | st.integers(1, 40).map(lambda d: nested(d, {})))


def _ui_schemas() -> st.SearchStrategy[Any]:
    shaped = st.sampled_from([{"departureDate": {"ui:widget": "date"}}, {"ui:order": ["*"]}, {}])
    big = st.sampled_from([16 * 1024, 40_000]).map(lambda n: {"notes": {"ui:help": "h" * n}})
    return _wrong(shaped | shaped.map(json.dumps) | big | st.just("{" * 5_000))


def _metadata() -> st.SearchStrategy[Any]:
    next_step = st.fixed_dictionaries(
        {"title": _wrong(st.just("Step two")), "schema": _schemas()}, optional={"uiSchema": _ui_schemas()}
    )
    chain = st.integers(1, 7).map(lambda n: nested_steps(n))
    large = st.sampled_from([16 * 1024, 200_000]).map(lambda n: {"note": "n" * n})
    return _wrong(st.fixed_dictionaries({}, optional={"next": next_step, "source": unicode_text}) | chain | large)


def nested_steps(count: int) -> dict[str, Any]:
    step: dict[str, Any] | None = None
    for index in range(count):
        step = {"title": f"Step {index}", "schema": FLIGHT, **({"next": step} if step else {})}
    return {"next": step}


def _answers() -> st.SearchStrategy[Any]:
    flight = st.fixed_dictionaries(
        {},
        optional={
            "destinationCity": _wrong(st.sampled_from(["Tokyo", "a" * 41])),
            "departureDate": _wrong(st.sampled_from(["2026-03-01", "2026-02-30", "tomorrow"])),
            "seats": _wrong(st.integers(-2, 12)),
            "cabin": _wrong(st.sampled_from(["economy", "first"])),
            "email": _wrong(st.sampled_from(["a@example.com", "not-an-email"])),
        },
    )
    large = st.sampled_from([16 * 1024, 300_000]).map(lambda n: {"destinationCity": "c" * n})
    return _wrong(flight | large | json_objects | st.integers(1, 60).map(lambda d: {"deep": nested(d)}))


def _with_answer_keys(arguments: st.SearchStrategy[Any], keys: dict[str, str]) -> st.SearchStrategy[Any]:
    """submit_form's arguments, mostly with an answer key: the form's own (as its widget sends it), another form's,
    or a made-up or over-long one."""

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        args = draw(arguments)
        if not isinstance(args, dict) or not draw(st.integers(0, 3)):
            return args
        form_id = args.get("formId")
        own = keys.get(form_id) if isinstance(form_id, str) else None
        choices = [st.just(own)] * 3 if own else []
        choices += [st.sampled_from(sorted(keys.values()))] if keys else []
        args["answerKey"] = draw(st.one_of(*choices, _wrong(_length_edges(64) | _length_edges(24))))
        return args

    return build()


def tool_arguments(pools: Pools) -> dict[str, st.SearchStrategy[Any]]:
    """A strategy per served tool for its `arguments`, schema-shaped but often wrong."""
    game_id = _ids(pools.game_ids)
    form_id = _ids(pools.form_ids)
    square = st.from_regex(r"[a-h][1-8]", fullmatch=True)
    return {
        "display_demo": _arguments(
            {
                "message": _wrong(unicode_text | _length_edges(2000) | st.just("")),
                "fail_after_widgets": _wrong(st.booleans()),
            }
        ),
        "chess_new_game": _arguments(
            {
                "color": _wrong(st.sampled_from(["white", "black", "White", "red"])),
                "opponent": _wrong(st.sampled_from(["human", "engine", "robot"])),
                "fen": _wrong(st.sampled_from(FENS) | _length_edges(100)),
            }
        ),
        "chess_move": _arguments(
            {
                "gameId": game_id,
                "move": _wrong(st.sampled_from(SAN_AND_UCI) | _length_edges(16)),
                "from": _wrong(square),
                "to": _wrong(square),
                "promotion": _wrong(st.sampled_from(["q", "r", "b", "n", "k", "Q"])),
                "expectedPly": _wrong(st.integers(-1, 4) | st.sampled_from([10**6, 10**18, 10**100])),
            }
        ),
        "chess_show_game": _arguments({"gameId": game_id}),
        "chess_list_games": _arguments({}),
        "chess_resign": _arguments({"gameId": game_id}),
        "ask_question": _arguments(
            {
                "question": _schemas(),
                "uiSchema": _ui_schemas(),
                "title": _wrong(unicode_text | _length_edges(300)),
                "description": _wrong(unicode_text | _length_edges(300)),
                "metadata": _metadata(),
            }
        ),
        "submit_form": _with_answer_keys(
            _arguments({"formId": form_id, "data": _answers(), "step": _wrong(st.integers(-1, 11) | st.just(10**30))}),
            pools.answer_keys,
        ),
        "record_form_answer": _arguments(
            {"formId": form_id, "data": _answers(), "step": _wrong(st.integers(-1, 11) | st.just(10**30))}
        ),
        "get_form_response": _arguments({"formId": form_id}),
    }


# --- messages ---------------------------------------------------------------------------------------------------


def request_meta(*, modern: bool) -> st.SearchStrategy[Any]:
    """Request `_meta`: a caller (so stateful tools run), host hints, junk; with the 2026 envelope when modern."""

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        meta: dict[str, Any] = {}
        if draw(st.integers(0, 5)):
            meta["openai/subject"] = draw(st.sampled_from(SUBJECTS) | _wrong(unicode_text))
        if draw(st.integers(0, 4)) == 0:
            meta["io.modelcontextprotocol/user"] = draw(_wrong(st.sampled_from([{"id": "fuzz-carol"}, "fuzz-dave"])))
        if draw(st.integers(0, 4)) == 0:
            meta["openai/userLocation"] = draw(json_values)
        if draw(st.integers(0, 2)) == 0:  # ChatGPT's display signal: forms shown as widgets, answered with keys
            meta["openai/locale"] = draw(_wrong(st.sampled_from(["en-US", ""])))
        if draw(st.integers(0, 6)) == 0:
            meta[draw(unicode_text)] = draw(json_values)
        if modern:
            if draw(st.integers(0, 9)):
                meta[PROTOCOL_VERSION_KEY] = draw(st.just(MODERN) | _wrong(st.sampled_from([HANDSHAKE, "2099-01-01"])))
            if draw(st.integers(0, 9)):
                meta[CAPABILITIES_KEY] = draw(st.just({}) | json_values)
            if draw(st.booleans()):
                meta[CLIENT_INFO_KEY] = draw(st.just({"name": "fuzz", "version": "1"}) | json_values)
        return meta

    return st.one_of(*[build()] * 9, json_values)


@dataclass(frozen=True)
class Exchange:
    """One request: the JSON-RPC message (or raw bytes) and its MCP headers besides the transport ones."""

    body: bytes
    mcp_headers: dict[str, str]


def _encode(message: Any, ascii_only: bool) -> bytes:
    # surrogatepass: a lone surrogate travels as the (invalid) UTF-8 bytes a careless client would send.
    return json.dumps(message, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def tool_calls(draw: st.DrawFn, pools: Pools, *, header_text: st.SearchStrategy[str] = printable_text) -> Exchange:
    """tools/call for any served tool (or an unknown one), in either era, with fuzzed arguments and `_meta`."""
    per_tool = tool_arguments(pools)
    name = draw(st.sampled_from(sorted(per_tool)) | _wrong(st.just("no_such_tool")))
    arguments = draw(per_tool.get(name, json_values) if isinstance(name, str) else json_values)
    modern = draw(st.booleans())
    params: dict[str, Any] = {"name": name}
    if draw(st.integers(0, 9)):
        params["arguments"] = arguments
    if draw(st.integers(0, 9)):
        params["_meta"] = draw(request_meta(modern=modern))
    message = {"jsonrpc": "2.0", "id": draw(st.integers(0, 2**31) | printable_text), "method": "tools/call"}
    message["params"] = params
    headers: dict[str, str] = {}
    if modern:
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call"}
        # Header lines are short in practice (API Gateway caps them at 10 KB); long names go in the body only.
        if isinstance(name, str) and name.isascii() and name.isprintable() and len(name) <= 200:
            headers["mcp-name"] = name
        if draw(st.integers(0, 9)) == 0:
            headers[draw(st.sampled_from(sorted(headers)))] = draw(header_text)
    return Exchange(_encode(message, draw(st.booleans())), headers)


def _field(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(valid, valid, valid, json_values)


@st.composite
def json_rpc_messages(draw: st.DrawFn) -> Any:
    """JSON-RPC-shaped objects whose every field may be missing or of the wrong type."""
    fields = {
        "jsonrpc": _field(st.just("2.0")) | st.sampled_from(["1.0", "2", 2.0]),
        "id": _field(st.integers() | printable_text) | st.sampled_from([None, True, 1.5, [1], {"a": 1}]),
        "method": _field(st.sampled_from(METHODS)) | unicode_text,
        "params": _field(
            st.fixed_dictionaries(
                {},
                optional={
                    "protocolVersion": _field(st.sampled_from([HANDSHAKE, MODERN, "1999-01-01"])),
                    "capabilities": _field(st.just({})),
                    "clientInfo": _field(st.just({"name": "fuzz", "version": "1"})),
                    "name": _field(st.sampled_from(["display_demo", "fuzz"])),
                    "uri": _field(st.sampled_from(["ui://widget/display.html", "file:///etc/passwd"])),
                    "cursor": json_values,
                    "level": _field(st.sampled_from(["debug", "emergency"])),
                    "arguments": json_values,
                    "_meta": st.one_of(request_meta(modern=False), request_meta(modern=True)),
                },
            )
        ),
        "result": json_values,
        "error": json_values,
    }
    message = {}
    for key, strategy in fields.items():
        if draw(st.integers(0, 9)) < (1 if key in ("result", "error") else 8):
            message[key] = draw(strategy)
    return message


def _truncated(data: bytes, cut: int) -> bytes:
    return data[: max(0, len(data) - 1 - cut % max(1, len(data)))]


@st.composite
def raw_bodies(draw: st.DrawFn, *, depth_limit: int, body_limit: int) -> bytes:
    """Anything a client could POST: messages, batches, random JSON, broken JSON, deep nesting, huge bodies."""
    kind = draw(st.integers(0, 11))
    if kind <= 3:
        return _encode(draw(json_rpc_messages()), draw(st.booleans()))
    if kind == 4:
        return _encode(draw(st.lists(json_rpc_messages(), max_size=4)), True)
    if kind == 5:
        return _encode(draw(json_values), draw(st.booleans()))
    if kind == 6:
        return _truncated(_encode(draw(json_rpc_messages()), True), draw(st.integers(0, 200)))
    if kind == 7:
        return draw(st.binary(max_size=200))
    if kind == 8:
        depth = draw(_depths(depth_limit))
        message = {"jsonrpc": "2.0", "id": 1, "method": draw(st.sampled_from(METHODS)), "params": nested(depth - 1)}
        return _encode(message, True)
    if kind == 9:
        depth = draw(st.sampled_from([depth_limit, depth_limit + 1, 1_000, 100_000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return (opener * depth + "1" + closer * depth).encode()
    if kind == 10:
        size = draw(st.sampled_from([body_limit - 100, body_limit, body_limit + 1, body_limit + 70_000]))
        padding = max(0, size - 80)
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        message["params"] = {"name": "display_demo", "arguments": {"message": "x" * padding}}
        return _encode(message, True)
    text = draw(st.sampled_from(['{"jsonrpc":"2.0","id":1,"method":"ping"}', "null", "1e999", "-0", '""', "{}"]))
    return draw(st.sampled_from(["", " ", "\ufeff", "\x00"])).encode() + text.encode() + draw(st.binary(max_size=3))


# --- headers ----------------------------------------------------------------------------------------------------

_CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/json;charset=latin-1",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonx",
    "",
]
_ACCEPTS = [
    "application/json",
    "application/json, text/event-stream",
    "*/*",
    "application/*",
    "text/event-stream",
    "text/html",
    "application/json;q=0",
    "",
]
_VERSIONS = [HANDSHAKE, "2025-06-18", "2025-03-26", "2024-11-05", MODERN, "2099-01-01", "", "latest"]


def _header(choices: list[str], text: st.SearchStrategy[str]) -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(choices), st.sampled_from(choices), text)


@st.composite
def transport_headers(
    draw: st.DrawFn, *, host: str, origin: str, header_text: st.SearchStrategy[str] = printable_text
) -> dict[str, str]:
    """Content-Type, Accept, MCP-Protocol-Version, Host and Origin: usually right, often wrong or missing."""
    good = draw(st.integers(0, 3)) == 0
    chosen: dict[str, str | None] = {
        "content-type": "application/json" if good else draw(_header(_CONTENT_TYPES, header_text)),
        "accept": "application/json, text/event-stream" if good else draw(_header(_ACCEPTS, header_text)),
        "mcp-protocol-version": None if good else draw(_header(_VERSIONS, header_text)),
        "host": host if good or draw(st.integers(0, 9)) else draw(st.sampled_from(["evil.example", ""]) | header_text),
        "origin": None if good or draw(st.integers(0, 5)) else draw(st.sampled_from([origin, "https://evil.example"])),
    }
    if not good and draw(st.integers(0, 5)) == 0:
        chosen["mcp-method"] = draw(st.sampled_from(METHODS) | header_text)
        chosen["mcp-name"] = draw(st.sampled_from(["display_demo", "x"]) | header_text)
    return {name: value for name, value in chosen.items() if value is not None}
