"""Resources an app declares beside its widget templates: fixed URIs and URI templates, text or binary.

`book.resource(uri=...)` serves one URI; `book.resource_template(uri_template="notes://{topic}")` serves every URI
the template matches, its variables passed to the function by name. A function returns `str` (text contents),
`bytes` (a base64 `blob`), or None for "no such resource".
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import unquote

from widget_mcp.toolkit.content import ContentError, EmbeddedResource, check_mime_type, check_uri
from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.prompts import Completer

Contents = str | bytes | None
ResourceHandler = Callable[..., Contents | Awaitable[Contents]]

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Lists and fixed resources change only with a deployment; a template's answer may change at any time.
FIXED_TTL_MS = 300_000
TEMPLATE_TTL_MS = 0


def _checked(subject: str, check: Callable[[str], str], value: str) -> None:
    try:
        check(value)
    except ContentError as exc:
        raise DeclarationError(subject, str(exc)) from None


def _listing(key: str, value: str, name: str, title: str, description: str, mime_type: str) -> dict[str, Any]:
    return {key: value, "name": name, "title": title, "description": description, "mimeType": mime_type}


async def _contents(handler: ResourceHandler, is_async: bool, uri: str, mime_type: str, **variables: str) -> Any:
    outcome = handler(**variables)
    value = await cast(Awaitable[Contents], outcome) if is_async else outcome
    if value is None:
        return None
    if isinstance(value, str):
        return EmbeddedResource(uri=uri, mime_type=mime_type, text=value).contents()
    if isinstance(value, bytes):
        return EmbeddedResource(uri=uri, mime_type=mime_type, blob=value).contents()
    raise TypeError(f"resource {uri} returned {type(value).__name__}, not str, bytes or None")


@dataclass(frozen=True)
class ResourceSpec:
    """One resource at a fixed URI; its function takes no parameter."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    handler: ResourceHandler
    # Clients may subscribe to it, and tools say when it changed (`call.resource_updated`); its answer is not kept.
    subscribable: bool = False
    is_async: bool = field(init=False)

    def __post_init__(self) -> None:
        _checked(self.uri, check_uri, self.uri)
        _checked(self.uri, check_mime_type, self.mime_type)
        if not self.name.strip() or not self.description.strip():
            raise DeclarationError(self.uri, "a resource needs a name and a description")
        if inspect.signature(self.handler).parameters:
            raise DeclarationError(self.uri, "a resource at a fixed URI is read by a function without parameters")
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))

    def listing(self) -> dict[str, Any]:
        """The `resources/list` entry."""
        return _listing("uri", self.uri, self.name, self.title, self.description, self.mime_type)

    async def read(self) -> dict[str, Any] | None:
        """The contents (`TextResourceContents` or `BlobResourceContents`), or None when there are none."""
        return cast(dict[str, Any] | None, await _contents(self.handler, self.is_async, self.uri, self.mime_type))


@dataclass(frozen=True)
class ResourceTemplateSpec:
    """Resources named by an RFC 6570 template of simple `{name}` variables, one path segment each."""

    uri_template: str
    name: str
    title: str
    description: str
    mime_type: str
    handler: ResourceHandler
    complete: Mapping[str, Completer] = field(default_factory=dict)
    subscribable: bool = False
    variables: tuple[str, ...] = field(init=False)
    is_async: bool = field(init=False)
    _pattern: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        template = self.uri_template
        _checked(template, check_uri, _VARIABLE.sub("x", template))
        _checked(template, check_mime_type, self.mime_type)
        if not self.name.strip() or not self.description.strip():
            raise DeclarationError(template, "a resource template needs a name and a description")
        literal = _VARIABLE.sub("", template)
        if "{" in literal or "}" in literal:
            raise DeclarationError(template, "only simple {name} variables are supported (RFC 6570 level 1)")
        variables = tuple(_VARIABLE.findall(template))
        if not variables:
            raise DeclarationError(template, "a template needs at least one {variable}; use book.resource otherwise")
        if len(set(variables)) != len(variables):
            raise DeclarationError(template, "a variable appears twice")
        parameters = set(inspect.signature(self.handler).parameters)
        if parameters != set(variables):
            raise DeclarationError(
                template, f"the function's parameters {sorted(parameters)} must be the variables {sorted(variables)}"
            )
        unknown = set(self.complete) - set(variables)
        if unknown:
            raise DeclarationError(template, f"completers for variables it does not have: {', '.join(sorted(unknown))}")
        pattern = "".join(
            f"(?P<{part}>[^/?#]+)" if index % 2 else re.escape(part)
            for index, part in enumerate(_VARIABLE.split(template))
        )
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))
        object.__setattr__(self, "_pattern", re.compile(pattern))

    def listing(self) -> dict[str, Any]:
        """The `resources/templates/list` entry."""
        return _listing("uriTemplate", self.uri_template, self.name, self.title, self.description, self.mime_type)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of `uri` (percent-decoded) if the template names it."""
        found = self._pattern.fullmatch(uri)
        return None if found is None else {k: unquote(v) for k, v in found.groupdict().items()}

    async def read(self, uri: str, variables: Mapping[str, str]) -> dict[str, Any] | None:
        return cast(
            dict[str, Any] | None,
            await _contents(self.handler, self.is_async, uri, self.mime_type, **variables),
        )
