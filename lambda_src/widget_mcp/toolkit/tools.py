"""Tool declarations: one place states a tool's contract; both host dialects are derived from it."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, Union, cast

from pydantic import BaseModel, TypeAdapter

from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.portable import portable_input_schema
from widget_mcp.toolkit.results import ToolResult
from widget_mcp.toolkit.schema_refs import inline_refs
from widget_mcp.toolkit.widgets import WidgetSpec

if TYPE_CHECKING:
    from widget_mcp.toolkit.prompts import Completer, PromptHandler, PromptSpec
    from widget_mcp.toolkit.resources import ResourceHandler, ResourceSpec, ResourceTemplateSpec

# Whether a tool's call may become a task (tasks.py): never, when the client allows it, or only as one.
TaskSupport = Literal["forbidden", "optional", "required"]

Visibility = Literal["public", "private"]
Handler = Callable[[Any, ToolCall], ToolResult | Awaitable[ToolResult]]

INVOCATION_TEXT_LIMIT = 64
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class SignInDeclaration:
    """Sign-in as tools declare it: each scope a tool names is published as `scope_prefix + scope`."""

    scope_prefix: str = ""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    read_only: bool
    destructive: bool
    open_world: bool
    idempotent: bool
    invoking: str
    invoked: str
    handler: Handler
    widget: WidgetSpec | None = None
    # The structuredContent this tool's error results may carry besides `output_model` (e.g. DGUI's `dgui_error`);
    # the outputSchema admits both, since clients validate structuredContent on errors too.
    error_output: type[BaseModel] | None = None
    # Other shapes a success may return besides `output_model` (e.g. ask_question's answered form, a
    # `dgui_response`); the outputSchema admits each.
    other_outputs: tuple[type[BaseModel], ...] = ()
    widget_accessible: bool = False
    visibility: Visibility = "public"
    # With sign-in on, the scopes a caller's token must hold; None keeps the tool public.
    sign_in: tuple[str, ...] | None = None
    task_support: TaskSupport = "forbidden"
    # The inputSchema, generated once (optional arguments without a null union): the cap check and the tool list
    # both read it.
    input_schema: dict[str, Any] = field(init=False, repr=False, compare=False)
    # The outputSchema, generated once: the output model, or the union of it and `error_output`.
    output_schema: dict[str, Any] = field(init=False, repr=False, compare=False)
    # Whether the handler is a coroutine function, read once: every call asks.
    is_async: bool = field(init=False, repr=False, compare=False)
    # The `Mcp-Param-*` header names of arguments marked `x-mcp-header` (clients mirror them in HTTP headers).
    header_arguments: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise DeclarationError(self.name, "tool names are snake_case, at most 64 characters")
        if not self.description.strip():
            raise DeclarationError(self.name, "a tool needs a description; the model chooses tools by it")
        for label, text in (("invoking", self.invoking), ("invoked", self.invoked)):
            if not text.strip() or len(text) > INVOCATION_TEXT_LIMIT:
                raise DeclarationError(
                    self.name, f"the {label} text must be 1..{INVOCATION_TEXT_LIMIT} characters, got {len(text)}"
                )
        if self.read_only and self.destructive:
            raise DeclarationError(self.name, "a read-only tool cannot be destructive")
        if self.task_support not in ("forbidden", "optional", "required"):
            raise DeclarationError(self.name, "task_support is forbidden, optional or required")
        if self.visibility == "private" and not self.widget_accessible:
            raise DeclarationError(self.name, "a private tool is only reachable from a widget: set widget_accessible")
        for output in (self.output_model, *self.other_outputs):
            if not isinstance(output, type) or not issubclass(output, BaseModel):
                raise DeclarationError(self.name, "an output must be a pydantic model (it becomes the outputSchema)")
        if self.error_output is not None and not (
            isinstance(self.error_output, type) and issubclass(self.error_output, BaseModel)
        ):
            raise DeclarationError(self.name, "error_output must be a pydantic model (it joins the outputSchema)")
        object.__setattr__(self, "input_schema", input_json_schema(self.input_model))
        object.__setattr__(
            self, "output_schema", output_json_schema((self.output_model, *self.other_outputs), self.error_output)
        )
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))
        uncapped = uncapped_arguments(self.input_schema)
        if uncapped:
            raise DeclarationError(self.name, "; ".join(f"argument {arg!r} {problem}" for arg, problem in uncapped))
        object.__setattr__(self, "header_arguments", header_arguments(self.name, self.input_schema))

    def declares(self, structured: BaseModel) -> bool:
        """Whether `structured` may be this tool's structuredContent: an instance of a model its outputSchema
        was generated from, so it conforms by construction."""
        models = (self.output_model, *self.other_outputs)
        return isinstance(structured, models if self.error_output is None else (*models, self.error_output))

    def security_schemes(self, auth: SignInDeclaration | None) -> list[dict[str, Any]]:
        """How a host must call the tool: anonymously, or with an OAuth token holding these scopes."""
        if auth is None or self.sign_in is None:
            return [{"type": "noauth"}]
        return [{"type": "oauth2", "scopes": [auth.scope_prefix + s for s in self.sign_in]}]

    def describe(self, template_uri: str | None, auth: SignInDeclaration | None = None) -> dict[str, Any]:
        """The `tools/list` entry, in wire form. `auth` is given when sign-in is on."""
        if self.visibility == "private":
            ui_visibility = ["app"]
        elif self.widget_accessible:
            ui_visibility = ["model", "app"]
        else:
            ui_visibility = ["model"]
        ui: dict[str, Any] = {"visibility": ui_visibility}
        schemes = self.security_schemes(auth)
        meta: dict[str, Any] = {
            "openai/toolInvocation/invoking": self.invoking,
            "openai/toolInvocation/invoked": self.invoked,
            "openai/widgetAccessible": self.widget_accessible,
            "openai/visibility": self.visibility,
            # The back-compat mirror of the top-level field (OpenAI Apps SDK reference).
            "securitySchemes": schemes,
        }
        if template_uri is not None:
            ui["resourceUri"] = template_uri
            meta["openai/outputTemplate"] = template_uri
        meta["ui"] = ui
        annotations: dict[str, Any] = {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "openWorldHint": self.open_world,
        }
        if self.idempotent:
            annotations["idempotentHint"] = True
        execution = {"execution": {"taskSupport": self.task_support}} if self.task_support != "forbidden" else {}
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": annotations,
            # Outside the MCP schema, so the SDK's serializer drops it; WireExtras (wire_extras.py) puts it back.
            "securitySchemes": schemes,
            **execution,
            "_meta": meta,
        }


@cache
def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON Schema with its references written out (schema_refs.py), generated once per process (several
    tools share a model); read-only."""
    return inline_refs(model.model_json_schema())


@cache
def input_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A tool's inputSchema: its input model's, with optional arguments published as their type alone
    (portable.py), so that every agent framework's converter reads it; generated once per process; read-only."""
    return portable_input_schema(json_schema(model))


@cache
def output_json_schema(outputs: tuple[type[BaseModel], ...], error_output: type[BaseModel] | None) -> dict[str, Any]:
    """A tool's outputSchema: its output model's, or with other outputs or an `error_output`, an object that is any
    of them (hosts require `type: "object"` at the top; `anyOf` keeps it readable by any JSON Schema validator). The
    first output model is the first branch: what a success usually returns, as the playground reads it."""
    models = outputs if error_output is None else (*outputs, error_output)
    if len(models) == 1:
        return json_schema(models[0])
    union: dict[str, Any] = TypeAdapter(cast(Any, Union[models])).json_schema()  # noqa: UP007 - built from a tuple
    return inline_refs({"type": "object", **union})


# What bounds a value of each JSON type in an input schema: anything a caller sends is stored or processed,
# so an argument without a cap is an invitation to send megabytes.
_CAPS = {
    "string": (("maxLength", "enum", "const"), "is a string without a length cap: give it max_length=…"),
    "integer": (("maximum", "exclusiveMaximum", "enum", "const"), "is a number without a maximum: give it le=…"),
    "number": (("maximum", "exclusiveMaximum", "enum", "const"), "is a number without a maximum: give it le=…"),
    "array": (("maxItems",), "is a list without a length cap: give it max_length=…"),
}


def uncapped_arguments(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(argument, problem) for each top-level argument with a string, number or list form that has no cap.

    Objects are not judged here: their size is a byte count, which only a validator can check.
    """
    found = []
    for argument, prop in schema.get("properties", {}).items():
        for branch in prop.get("anyOf") or prop.get("oneOf") or [prop]:
            rule = _CAPS.get(branch.get("type", ""))
            if rule is not None and not any(key in branch or key in prop for key in rule[0]):
                found.append((argument, rule[1]))
                break
    return found


X_MCP_HEADER = "x-mcp-header"


def _mentions(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_mentions(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, key) for v in value)
    return False


def header_arguments(tool: str, schema: dict[str, Any]) -> tuple[str, ...]:
    """The `Mcp-Param-<name>` headers an input schema declares with `x-mcp-header`, checked by the SDK's rules
    (a token, unique ignoring case, on a string, integer or boolean property reached through `properties`)."""
    if not _mentions(schema, X_MCP_HEADER):
        return ()
    from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

    problem = find_invalid_x_mcp_header(schema)
    if problem is not None:
        raise DeclarationError(tool, problem)
    return tuple(f"Mcp-Param-{token}" for token in x_mcp_header_map(schema).values())


def _input_model_of(fn: Handler) -> type[BaseModel]:
    params = list(inspect.signature(fn).parameters.values())
    hints = inspect.get_annotations(fn, eval_str=True)
    model = hints.get(params[0].name) if params else None
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise DeclarationError(
            getattr(fn, "__name__", "tool"), "the first parameter must be annotated with a pydantic model"
        )
    return model


# A tool call that keeps no state: (tool name, arguments).
WarmUp = tuple[str, Mapping[str, Any]]


class ToolBook:
    """A set of tools and widgets, declared with the `tool` decorator, and of the prompts and resources declared
    with `prompt`, `resource` and `resource_template`; apps each own one.

    Listing tools reads only their declarations, so a book's module should import no more than pydantic and the
    toolkit: a handler imports what it works with (the app's domain, service, libraries) when first called.
    `warm_up` names a call of one of its tools that keeps no state; before a SnapStart snapshot the server makes
    it, so that what the app's handlers import is loaded in the snapshot rather than on the first real call.
    `keeps` names the document kinds the app stores in its callers' own partitions: `erase_my_data` deletes them
    and `export_my_data` reads them (apps/my_data), so a new app's state is covered by this declaration.
    """

    def __init__(self, *, warm_up: WarmUp | None = None, keeps: tuple[str, ...] = ()) -> None:
        self.tools: dict[str, ToolSpec] = {}
        self.prompts: dict[str, PromptSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.resource_templates: dict[str, ResourceTemplateSpec] = {}
        self.warm_up = warm_up
        self.keeps = keeps

    def tool(
        self,
        *,
        name: str,
        title: str,
        description: str,
        output: type[BaseModel] | tuple[type[BaseModel], ...],
        read_only: bool,
        destructive: bool,
        open_world: bool,
        invoking: str,
        invoked: str,
        idempotent: bool = False,
        widget: WidgetSpec | None = None,
        widget_accessible: bool = False,
        visibility: Visibility = "public",
        sign_in: tuple[str, ...] | None = None,
        error_output: type[BaseModel] | None = None,
        task_support: TaskSupport = "forbidden",
    ) -> Callable[[Handler], Handler]:
        """Declare a tool. The hints have no defaults on purpose: hosts require all three to be stated.

        `task_support` (`optional` or `required`) lets a call run as a task: see `ToolCall.background`.

        `output` is the model of what a success returns, or a tuple of models when it returns one of several shapes
        (the first is the usual one); the outputSchema admits each. An error result carries structuredContent only
        when its `ToolError` gives a `structured` instance of an output or of `error_output` (declared here, so the
        outputSchema admits it)."""

        outputs = output if isinstance(output, tuple) else (output,)
        if not outputs:
            raise DeclarationError(name, "output names at least one model")

        def register(fn: Handler) -> Handler:
            if name in self.tools:
                raise DeclarationError(name, "declared twice")
            self.tools[name] = ToolSpec(
                name=name,
                title=title,
                description=description,
                input_model=_input_model_of(fn),
                output_model=outputs[0],
                other_outputs=outputs[1:],
                read_only=read_only,
                destructive=destructive,
                open_world=open_world,
                idempotent=idempotent,
                invoking=invoking,
                invoked=invoked,
                handler=fn,
                widget=widget,
                error_output=error_output,
                widget_accessible=widget_accessible,
                visibility=visibility,
                sign_in=sign_in,
                task_support=task_support,
            )
            return fn

        return register

    def prompt(
        self, *, name: str, title: str, description: str, complete: Mapping[str, Completer] | None = None
    ) -> Callable[[PromptHandler], PromptHandler]:
        """Declare a prompt. Its function takes a pydantic model of string fields (the prompt's arguments) and a
        `PromptCall` (to ask the client for input), each optional, and returns a list of `PromptMessage`;
        `complete` maps an argument to its completer."""
        from widget_mcp.toolkit.prompts import PromptSpec

        def register(fn: PromptHandler) -> PromptHandler:
            if name in self.prompts:
                raise DeclarationError(name, "declared twice")
            self.prompts[name] = PromptSpec(name, title, description, fn, dict(complete or {}))
            return fn

        return register

    def resource(
        self, *, uri: str, name: str, title: str, description: str, mime_type: str, subscribable: bool = False
    ) -> Callable[[ResourceHandler], ResourceHandler]:
        """Declare a resource at a fixed URI, read by a function without parameters that returns `str` (text) or
        `bytes` (binary). Its answer is kept for the life of the process, like the lists, unless it is
        `subscribable`: then clients may subscribe to it (with RESUMABLE_STREAMS) and a tool that changes it says so
        with `call.resource_updated(uri)`."""
        from widget_mcp.toolkit.resources import ResourceSpec

        def register(fn: ResourceHandler) -> ResourceHandler:
            if uri in self.resources:
                raise DeclarationError(uri, "declared twice")
            self.resources[uri] = ResourceSpec(uri, name, title, description, mime_type, fn, subscribable)
            return fn

        return register

    def resource_template(
        self,
        *,
        uri_template: str,
        name: str,
        title: str,
        description: str,
        mime_type: str,
        complete: Mapping[str, Completer] | None = None,
        subscribable: bool = False,
    ) -> Callable[[ResourceHandler], ResourceHandler]:
        """Declare resources named by a URI template (`notes://{topic}`): the function takes the variables as
        parameters and returns `str`, `bytes`, or None when there is no such resource. `subscribable`: as for
        `resource`, for every URI the template names."""
        from widget_mcp.toolkit.resources import ResourceTemplateSpec

        def register(fn: ResourceHandler) -> ResourceHandler:
            if uri_template in self.resource_templates:
                raise DeclarationError(uri_template, "declared twice")
            spec = ResourceTemplateSpec(
                uri_template, name, title, description, mime_type, fn, dict(complete or {}), subscribable
            )
            self.resource_templates[uri_template] = spec
            return fn

        return register
