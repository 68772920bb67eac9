"""Prompts: message templates a user picks in the host (`prompts/list`, `prompts/get`), with completion.

A prompt is declared on a book with `book.prompt(...)`; its arguments are a pydantic model of string fields
(MCP prompt arguments are strings), and it returns the messages. A parameter annotated `PromptCall` lets it ask the
client for input first, as a tool does. Completers suggest values for an argument as
the user types (`completion/complete`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from pydantic import BaseModel, ValidationError

from widget_mcp.toolkit.argument_rules import uncapped_arguments
from widget_mcp.toolkit.call import PromptCall
from widget_mcp.toolkit.content import ContentBlock, Text
from widget_mcp.toolkit.errors import CatalogError, DeclarationError
from widget_mcp.toolkit.model_schemas import json_schema

# Suggests values for one argument: (what the user typed so far, the other arguments already given) -> values.
Completer = Callable[[str, Mapping[str, str]], Iterable[str]]
PromptHandler = Callable[..., Sequence["PromptMessage"] | Awaitable[Sequence["PromptMessage"]]]

# The spec's cap on the values of one completion answer.
MAX_COMPLETIONS = 100
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def complete_from(choices: Iterable[str]) -> Completer:
    """A completer offering the given choices that start with what was typed (ignoring case), in their order."""
    values = tuple(choices)

    def complete(value: str, context: Mapping[str, str]) -> list[str]:
        prefix = value.casefold()
        return [choice for choice in values if choice.casefold().startswith(prefix)]

    return complete


def completion(completer: Completer, value: str, context: Mapping[str, str]) -> dict[str, Any]:
    """The `completion` object of a `completion/complete` answer: at most 100 values, with the total found."""
    found = list(completer(value, context))
    if not all(isinstance(v, str) for v in found):
        raise TypeError("a completer must return strings")
    return {"values": found[:MAX_COMPLETIONS], "total": len(found), "hasMore": len(found) > MAX_COMPLETIONS}


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """One message of a prompt: `PromptMessage("user", "Summarize this.")`, or with an `Image`, `Audio`,
    `EmbeddedResource` or `ResourceLink` as its content."""

    role: Literal["user", "assistant"]
    content: str | ContentBlock

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant"):
            raise ValueError(f"role {self.role!r}: a prompt message is from the 'user' or the 'assistant'")

    def to_wire(self) -> dict[str, Any]:
        block = Text(self.content) if isinstance(self.content, str) else self.content
        return {"role": self.role, "content": block.to_wire()}


def _is_string(prop: Mapping[str, Any]) -> bool:
    branches = prop.get("anyOf") or [prop]
    types = {b.get("type") for b in branches}
    return "string" in types and types <= {"string", "null"}


def _parameters(name: str, fn: Callable[..., Any]) -> tuple[type[BaseModel] | None, tuple[str, ...]]:
    """The prompt's arguments model (or None) and what each parameter receives, in order: `args` or `call`."""
    params = list(inspect.signature(fn).parameters.values())
    hints = inspect.get_annotations(fn, eval_str=True)
    model: type[BaseModel] | None = None
    kinds: list[str] = []
    for param in params:
        hint = hints.get(param.name)
        if hint is PromptCall and "call" not in kinds:
            kinds.append("call")
        elif isinstance(hint, type) and issubclass(hint, BaseModel) and model is None:
            model = hint
            kinds.append("args")
        else:
            raise DeclarationError(
                name, "a prompt takes a pydantic model of its arguments and a PromptCall, each optional"
            )
    return model, tuple(kinds)


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    handler: PromptHandler
    complete: Mapping[str, Completer] = field(default_factory=dict)
    input_model: type[BaseModel] | None = field(init=False)
    # The `arguments` of the prompts/list entry, derived from the model once.
    arguments: tuple[dict[str, Any], ...] = field(init=False)
    # What the handler's parameters receive, in order: "args" (the model) and "call" (the PromptCall).
    parameters: tuple[str, ...] = field(init=False)
    is_async: bool = field(init=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise DeclarationError(self.name, "prompt names are 1..128 letters, digits, '_', '.' or '-'")
        if not self.description.strip():
            raise DeclarationError(self.name, "a prompt needs a description; hosts show it in their prompt picker")
        model, parameters = _parameters(self.name, self.handler)
        object.__setattr__(self, "input_model", model)
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))
        schema = json_schema(model) if model is not None else {}
        properties: dict[str, Any] = schema.get("properties", {})
        not_strings = [arg for arg, prop in properties.items() if not _is_string(prop)]
        if not_strings:
            raise DeclarationError(self.name, f"prompt arguments are strings; not {', '.join(not_strings)}")
        uncapped = uncapped_arguments(schema)
        if uncapped:
            raise DeclarationError(self.name, "; ".join(f"argument {arg!r} {problem}" for arg, problem in uncapped))
        unknown = set(self.complete) - set(properties)
        if unknown:
            names = ", ".join(sorted(unknown))
            raise DeclarationError(self.name, f"completers for arguments it does not have: {names}")
        required = set(schema.get("required", ()))
        arguments = []
        for arg, prop in properties.items():
            entry: dict[str, Any] = {"name": arg, "required": arg in required}
            if "description" in prop:
                entry["description"] = prop["description"]
            arguments.append(entry)
        object.__setattr__(self, "arguments", tuple(arguments))

    def describe(self) -> dict[str, Any]:
        """The `prompts/list` entry."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": [dict(a) for a in self.arguments],
        }

    async def get(self, arguments: Mapping[str, str] | None, call: PromptCall | None = None) -> dict[str, Any]:
        """The `prompts/get` result; arguments that fail the model are the caller's mistake (CatalogError).

        `call` carries the client and its answers; the handler's `ask` raises `InputRequired` when an answer is
        missing, for the caller to turn into an `input_required` result."""
        args: BaseModel | None = None
        if self.input_model is not None:
            try:
                args = self.input_model.model_validate(dict(arguments or {}))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                    for e in exc.errors(include_url=False, include_input=False)
                )
                message = f"Invalid arguments for {self.name}: {problems}"
                raise CatalogError("invalid_params", self.name, message) from None
        context = call if call is not None else PromptCall(self.name)
        outcome = self.handler(*(args if kind == "args" else context for kind in self.parameters))
        messages: Any = await cast(Awaitable[Any], outcome) if self.is_async else outcome
        if isinstance(messages, (str, bytes)) or not all(isinstance(m, PromptMessage) for m in messages):
            raise TypeError(f"prompt {self.name} must return a list of PromptMessage")
        return {"description": self.description, "messages": [m.to_wire() for m in messages]}
