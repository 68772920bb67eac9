"""Tool declarations: one place states a tool's contract; both host dialects are derived from it."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from widget_mcp.toolkit.argument_rules import header_arguments, uncapped_arguments
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.id_sources import IDS_META, IdSource, ids_meta, parse_ids
from widget_mcp.toolkit.inventory import StoredData
from widget_mcp.toolkit.listing import Justifications, Listing, NegativeCase, ReviewCase
from widget_mcp.toolkit.model_schemas import input_json_schema, output_json_schema
from widget_mcp.toolkit.results import ToolResult
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
    """A tool as `book.tool(...)` declared it: the source of its listing (schemas, annotations, `_meta`) and its
    handler."""

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
    # One sentence per hint for the directories' review (listing.py); None until the tool declares them.
    justify: Justifications | None = None
    # Arguments that are ids another tool's result makes, as declared: argument → "tool.field" (id_sources.py).
    declared_ids: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    # Whether a call must carry a user identity (a space's tools: membership is by identity). A call without one is
    # answered identity_required before the handler runs, so the test clients can trust the declaration.
    needs_identity: bool = False
    ids: dict[str, IdSource] = field(init=False, repr=False, compare=False)
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
        object.__setattr__(self, "ids", parse_ids(self.name, self.declared_ids, self.input_schema))

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
        if self.ids:
            meta[IDS_META] = ids_meta(self.ids)
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
    `warm_up` names a call of one of its tools; before a SnapStart snapshot the server makes it, so that what the
    app's handlers import is loaded in the snapshot rather than on the first real call, and `make dev` makes it at
    start and after each reload, so a broken handler shows at once. A call that keeps no state runs on the real
    store; with `warm_up_keeps_state`, it runs on a book built afresh on an in-memory store (as a signed-in user),
    so an app whose every tool writes can still be checked, and nothing reaches the table.
    `keeps` names the document kinds the app stores in its callers' own partitions: `erase_my_data` deletes them
    and `export_my_data` reads them (apps/my_data), so a new app's state is covered by this declaration.
    """

    def __init__(
        self, *, warm_up: WarmUp | None = None, warm_up_keeps_state: bool = False, keeps: tuple[str, ...] = ()
    ) -> None:
        self.tools: dict[str, ToolSpec] = {}
        self.prompts: dict[str, PromptSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.resource_templates: dict[str, ResourceTemplateSpec] = {}
        self.warm_up = warm_up
        # The app's directory listing and review cases (listing.py): `make submission` and the review-case test.
        self.listing: Listing | None = None
        self.review_cases: list[ReviewCase] = []
        self.negative_cases: list[NegativeCase] = []
        # What the app keeps about its users (inventory.py): the privacy page lists each.
        self.stored: list[StoredData] = []
        self.warm_up_keeps_state = warm_up_keeps_state
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
        justify: Mapping[str, str] | None = None,
        ids: Mapping[str, str] | None = None,
        needs_identity: bool = False,
    ) -> Callable[[Handler], Handler]:
        """Declare a tool. The hints have no defaults on purpose: hosts require all three to be stated.

        `justify` gives one sentence per hint (`read_only`, `open_world`, `destructive`) saying why the tool
        behaves as the hint states: the directories ask for them at review.

        `task_support` (`optional` or `required`) lets a call run as a task: see `ToolCall.background`.

        `ids` names the arguments that are ids another tool's result makes: `{"poll_id": "create_poll.pollId"}`
        (argument → that tool's name and its structuredContent field). Clients that plan calls (the playground, the
        test clients) make the id first with that tool; nothing else tells them an argument is an id. A maker may itself
        need ids (a list's item, made by a tool that takes the list's id): clients make the whole chain, each id once.

        `needs_identity=True` says the tool works only for an identified user (it enters a space, answers a member id):
        a call without identity is answered `identity_required` before the handler runs, and the test clients call it
        as ChatGPT does, with an `openai/subject`.

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
                justify=None if justify is None else Justifications.of(name, justify),
                declared_ids=ids,
                needs_identity=needs_identity,
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
