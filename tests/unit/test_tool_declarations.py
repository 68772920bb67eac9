from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field
from widget_mcp.toolkit import DeclarationError, ToolBook, ToolCall, ToolResult, WidgetSpec
from widget_mcp.toolkit.tools import SignInDeclaration, ToolSpec

BOARD = WidgetSpec(name="board", entry="board", title="Board", description="A board.")


class In(BaseModel):
    x: int = Field(default=0, le=100)


class Out(BaseModel):
    y: int


async def handler(args: In, call: ToolCall) -> ToolResult:
    return ToolResult(structured=Out(y=args.x), narration="ok")


def declare(**overrides: Any) -> ToolSpec:
    fields: dict[str, Any] = {
        "name": "do_it",
        "title": "Do it",
        "description": "Does it.",
        "input_model": In,
        "output_model": Out,
        "read_only": False,
        "destructive": False,
        "open_world": False,
        "idempotent": False,
        "invoking": "Doing…",
        "invoked": "Done",
        "handler": handler,
    }
    fields.update(overrides)
    return ToolSpec(**fields)


def registrar(book: ToolBook, name: str) -> Any:
    return book.tool(
        name=name,
        title=name.title(),
        description="Does it.",
        output=Out,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="a",
        invoked="b",
    )


def test_invocation_texts_longer_than_64_characters_are_rejected_when_declared() -> None:
    with pytest.raises(DeclarationError, match=r"invoking text must be 1\.\.64 characters, got 65"):
        declare(invoking="x" * 65)
    assert declare(invoked="y" * 64).invoked == "y" * 64


def test_the_three_hints_cannot_be_left_out_of_a_declaration() -> None:
    book = ToolBook()
    with pytest.raises(TypeError, match="open_world"):
        book.tool(  # type: ignore[call-arg]
            name="x",
            title="X",
            description="X.",
            output=Out,
            read_only=True,
            destructive=False,
            invoking="a",
            invoked="b",
        )


def test_a_private_tool_must_be_callable_from_its_widget() -> None:
    with pytest.raises(DeclarationError, match="private tool"):
        declare(visibility="private")


def test_read_only_and_destructive_contradict_each_other() -> None:
    with pytest.raises(DeclarationError, match="read-only tool cannot be destructive"):
        declare(read_only=True, destructive=True)


def test_the_input_model_comes_from_the_handlers_first_parameter() -> None:
    book = ToolBook()
    registrar(book, "do_it")(handler)
    assert book.tools["do_it"].input_model is In


def test_a_handler_without_a_model_parameter_is_refused() -> None:
    async def untyped(args, call):  # type: ignore[no-untyped-def]
        raise AssertionError

    with pytest.raises(DeclarationError, match="pydantic model"):
        registrar(ToolBook(), "bad")(untyped)


def test_a_widget_tool_describes_itself_in_both_dialects() -> None:
    spec = declare(widget=BOARD, widget_accessible=True, idempotent=True)
    assert spec.describe("ui://widget/board-abc.html") == {
        "name": "do_it",
        "title": "Do it",
        "description": "Does it.",
        "inputSchema": In.model_json_schema(),
        "outputSchema": Out.model_json_schema(),
        "annotations": {
            "title": "Do it",
            "readOnlyHint": False,
            "destructiveHint": False,
            "openWorldHint": False,
            "idempotentHint": True,
        },
        "securitySchemes": [{"type": "noauth"}],
        "_meta": {
            "openai/toolInvocation/invoking": "Doing…",
            "openai/toolInvocation/invoked": "Done",
            "openai/widgetAccessible": True,
            "openai/visibility": "public",
            "openai/outputTemplate": "ui://widget/board-abc.html",
            "ui": {"visibility": ["model", "app"], "resourceUri": "ui://widget/board-abc.html"},
            "securitySchemes": [{"type": "noauth"}],
        },
    }


def test_a_private_tool_is_hidden_from_the_model_in_both_dialects() -> None:
    meta = declare(visibility="private", widget_accessible=True).describe(None)["_meta"]
    assert meta["openai/visibility"] == "private"
    assert meta["ui"] == {"visibility": ["app"]}
    assert "openai/outputTemplate" not in meta


@pytest.mark.parametrize("domain", ["*.example.com", "http://cdn.example.com", "https://cdn.example.com/path"])
def test_widget_csp_domains_must_be_exact_https_origins(domain: str) -> None:
    with pytest.raises(DeclarationError, match="exact https origin"):
        WidgetSpec(name="w", entry="w", title="W", description="W.", connect_domains=(domain,))


def test_two_apps_cannot_declare_the_same_tool_name() -> None:
    register = registrar(ToolBook(), "dup")
    register(handler)
    with pytest.raises(DeclarationError, match="declared twice"):
        register(handler)


def test_with_sign_in_on_a_tool_that_needs_it_asks_for_oauth2_with_its_prefixed_scopes() -> None:
    spec = declare(sign_in=("chess",))
    described = spec.describe(None, SignInDeclaration(scope_prefix="widget-mcp/"))
    assert described["securitySchemes"] == [{"type": "oauth2", "scopes": ["widget-mcp/chess"]}]
    assert described["_meta"]["securitySchemes"] == described["securitySchemes"]


def test_a_public_tool_or_any_tool_with_sign_in_off_needs_no_auth() -> None:
    for described in (declare().describe(None, SignInDeclaration()), declare(sign_in=("chess",)).describe(None)):
        assert described["securitySchemes"] == described["_meta"]["securitySchemes"] == [{"type": "noauth"}]


class Answered(BaseModel):
    answer: str


class Failed(BaseModel):
    reason: str


def test_a_tool_returning_one_of_several_shapes_publishes_an_output_schema_that_admits_each_and_only_those() -> None:
    book = ToolBook()

    @book.tool(
        name="ask",
        title="Ask",
        description="Asks, or answers at once.",
        output=(Out, Answered),
        error_output=Failed,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="a",
        invoked="b",
    )
    def ask(args: In, call: ToolCall) -> ToolResult:
        return ToolResult(structured=Answered(answer="yes"), narration="Answered.")

    spec = book.tools["ask"]
    schema = spec.output_schema
    validator = Draft202012Validator(schema)
    assert schema["type"] == "object"
    assert schema["anyOf"][0] == Out.model_json_schema()  # the usual success first, as the playground reads it
    for instance in (Out(y=1), Answered(answer="yes"), Failed(reason="no")):
        assert validator.is_valid(instance.model_dump(mode="json")), instance
        assert spec.declares(instance)
    assert not validator.is_valid({"neither": True})
    assert not spec.declares(In())
    assert spec.describe(None)["outputSchema"] == schema


def test_a_tool_must_name_at_least_one_output_model() -> None:
    with pytest.raises(DeclarationError, match="at least one model"):
        ToolBook().tool(
            name="empty",
            title="Empty",
            description="Returns nothing.",
            output=(),
            read_only=True,
            destructive=False,
            open_world=False,
            invoking="a",
            invoked="b",
        )
    with pytest.raises(DeclarationError, match="an output must be a pydantic model"):
        declare(other_outputs=(dict,))
