"""Input requests: a tool asks its client for an answer (a form, a model completion, the client's roots) mid-call.

MCP 2026-07-28 does this without holding a connection open (multi-round-trip requests, SEP-2322): the call ends
with an `input_required` result naming what it needs, and the client calls the tool again with the same arguments,
the answers (`inputResponses`) and the `requestState` it was given. The handler runs again from the top, and each
`call.ask(...)` now returns its answer. Answers of earlier rounds ride in the signed `requestState`
(request_state.py), so any instance of a stateless server can resume the call.

    answer = call.ask(Elicitation("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}}}))
    if answer.accepted:
        name = answer.content["name"]

A handler runs once per round: do what has effects after the last `ask`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from widget_mcp.toolkit.errors import ToolError

# JSON-RPC codes the server answers these refusals with (the MCP schema's; the toolkit imports no SDK).
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Elicitation:
    """Ask the user to fill a form (`elicitation/create`, form mode).

    `schema` is the form: an object of flat primitive properties (string, number, integer, boolean, or a string
    enum), as MCP elicitation allows; or a pydantic model with such fields, whose JSON Schema is sent.
    """

    message: str
    schema: Mapping[str, Any] | type[BaseModel]

    method = "elicitation/create"
    capability = "elicitation"

    def requested_schema(self) -> dict[str, Any]:
        if isinstance(self.schema, type) and issubclass(self.schema, BaseModel):
            return self.schema.model_json_schema()
        return dict(self.schema)

    def wire(self) -> dict[str, Any]:
        return {"method": self.method, "params": {"message": self.message, "requestedSchema": self.requested_schema()}}


@dataclass(frozen=True)
class Sampling:
    """Ask the client's model for a completion of `prompt` (`sampling/createMessage`)."""

    prompt: str
    max_tokens: int = 256
    system_prompt: str | None = None

    method = "sampling/createMessage"
    capability = "sampling"

    def wire(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": self.max_tokens,
        }
        if self.system_prompt is not None:
            params["systemPrompt"] = self.system_prompt
        return {"method": self.method, "params": params}


@dataclass(frozen=True)
class ListRoots:
    """Ask for the client's roots (`roots/list`): the folders or URIs the user shared with the server."""

    method = "roots/list"
    capability = "roots"

    def wire(self) -> dict[str, Any]:
        return {"method": self.method, "params": {}}


InputRequest = Elicitation | Sampling | ListRoots
"""What a tool may ask its client mid-call (`call.ask`): a form, a completion or the client's roots."""


@dataclass(frozen=True)
class Elicited:
    """The user's answer to an `Elicitation`: `content` holds the form's values when `action` is `accept`."""

    action: ElicitAction
    content: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True)
class Sampled:
    """The client model's answer to a `Sampling` request; `text` is its text content, if any."""

    text: str | None
    model: str | None = None
    stop_reason: str | None = None


@dataclass(frozen=True)
class Root:
    """One root the client shared: a folder or URI, with the name it gave it."""

    uri: str
    name: str | None = None


@dataclass(frozen=True)
class Roots:
    """The client's answer to `ListRoots`."""

    roots: tuple[Root, ...]


Answer = Elicited | Sampled | Roots


class InputRequired(Exception):
    """Raised by `ToolCall.ask` when an answer is missing; the runtime answers with an `input_required` result.

    Let it propagate: a handler that catches it ends the call without asking.
    """

    def __init__(self, requests: Mapping[str, InputRequest]) -> None:
        super().__init__(f"the call needs input: {', '.join(requests)}")
        self.requests = dict(requests)


class ProtocolRefusal(ValueError):
    """The request itself is wrong (not the tool's work): the server answers it with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = dict(data) if data is not None else None


class MissingClientCapability(ProtocolRefusal):
    """A tool asked for input the client did not declare it can give (MCP's MissingRequiredClientCapability)."""

    def __init__(self, capability: str, method: str) -> None:
        super().__init__(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"This tool needs to send a {method} request, and the client did not declare the {capability!r} "
            "capability in this request's clientCapabilities.",
            {"requiredCapabilities": {capability: {}}},
        )
        self.capability = capability


class InvalidInputResponse(ProtocolRefusal):
    """An `inputResponses` entry does not answer the request it is keyed to."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(INVALID_PARAMS, f"inputResponses[{key!r}] {problem}", {"inputResponse": key})
        self.key = key


class InputUnsupported(ToolError):
    """The call's protocol cannot carry input requests (the 2025-11-25 handshake on a stateless endpoint)."""

    code = "input_unsupported"

    def __init__(self, method: str) -> None:
        super().__init__(
            f"This tool needs to send a {method} request, which needs a client speaking MCP 2026-07-28 "
            "(input requests in the result); this connection uses an earlier protocol version."
        )


class PromptInputUnsupported(ProtocolRefusal):
    """A prompt asked for input on a protocol that cannot carry input requests (the 2025-11-25 handshake on a
    stateless endpoint); a prompt has no error result, so the request is refused."""

    def __init__(self, method: str) -> None:
        super().__init__(
            INVALID_REQUEST,
            f"This prompt needs to send a {method} request, which needs a client speaking MCP 2026-07-28 "
            "(input requests in the result); this connection uses an earlier protocol version.",
            {"requiredProtocolVersion": "2026-07-28"},
        )
        self.method = method


def default_key(request: InputRequest) -> str:
    """A key for a request the handler did not name: the same request gets the same key in every round."""
    digest = hashlib.sha256(json.dumps(request.wire(), sort_keys=True, default=str).encode()).hexdigest()
    return f"{request.method.split('/')[0]}-{digest[:12]}"


def parse_answer(key: str, request: InputRequest, wire: Any) -> Answer:
    """The typed answer to `request` from its `inputResponses` entry; `InvalidInputResponse` when it is not one."""
    if not isinstance(wire, Mapping):
        raise InvalidInputResponse(key, "must be an object")
    if isinstance(request, Elicitation):
        action = wire.get("action")
        if action not in ("accept", "decline", "cancel"):
            raise InvalidInputResponse(key, "answers an elicitation and needs action accept, decline or cancel")
        content = wire.get("content") or {}
        if not isinstance(content, Mapping):
            raise InvalidInputResponse(key, "has content that is not an object")
        if action == "accept":
            problem = form_problem(request.requested_schema(), content)
            if problem:
                raise InvalidInputResponse(key, f"does not fill the form: {problem}")
        return Elicited(action, dict(content))
    if isinstance(request, Sampling):
        if wire.get("role") != "assistant" or "content" not in wire:
            raise InvalidInputResponse(key, "answers a sampling request and needs role assistant and content")
        blocks = wire["content"] if isinstance(wire["content"], list) else [wire["content"]]
        texts = [b["text"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "text" and "text" in b]
        model, stop = wire.get("model"), wire.get("stopReason")
        return Sampled(
            "".join(str(t) for t in texts) if texts else None,
            model if isinstance(model, str) else None,
            stop if isinstance(stop, str) else None,
        )
    roots = wire.get("roots")
    if not isinstance(roots, list) or not all(isinstance(r, Mapping) and isinstance(r.get("uri"), str) for r in roots):
        raise InvalidInputResponse(key, "answers roots/list and needs a roots list of {uri, name?}")
    return Roots(tuple(Root(r["uri"], r.get("name") if isinstance(r.get("name"), str) else None) for r in roots))


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
}


def form_problem(schema: Mapping[str, Any], content: Mapping[str, Any]) -> str | None:
    """What is wrong with `content` as an answer to an elicitation form, or None: required fields, primitive
    types and enums (the flat schemas elicitation allows)."""
    properties = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in content:
            return f"{name!r} is required"
    for name, value in content.items():
        prop = properties.get(name)
        if not isinstance(prop, Mapping):
            continue
        expected = _JSON_TYPES.get(str(prop.get("type")))
        wrong_type = expected is not None and (
            not isinstance(value, expected) or (isinstance(value, bool) and prop.get("type") != "boolean")
        )
        if wrong_type:
            return f"{name!r} must be of type {prop.get('type')}"
        allowed = prop.get("enum")
        if isinstance(allowed, list) and value not in allowed:
            return f"{name!r} must be one of {allowed}"
    return None
