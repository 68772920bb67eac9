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
from widget_mcp.toolkit.errors import CatalogError, DeclarationError
from widget_mcp.toolkit.prompts import Completer

Contents = str | bytes | None
ResourceHandler = Callable[..., Contents | Awaitable[Contents]]

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A variable's value holds none of these: they split a URI into the pieces a template is matched against.
_DELIMITER = re.compile(r"([/?#])")
# The longest URI read or followed: a subscription keeps it in an item, and no template is matched against more.
MAX_URI_LENGTH = 2_048
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


class UriTooLong(CatalogError):
    def __init__(self, uri: str) -> None:
        message = (
            f"This URI is too long ({len(uri):,} characters; at most {MAX_URI_LENGTH:,}, MAX_URI_LENGTH, are read "
            "or followed)"
        )
        super().__init__("invalid_params", uri[:200], message)


def check_uri_length(uri: str) -> str:
    """`uri`, or UriTooLong (Invalid Params) past MAX_URI_LENGTH: checked before any template is matched."""
    if len(uri) > MAX_URI_LENGTH:
        raise UriTooLong(uri)
    return uri


@dataclass(frozen=True)
class _Piece:
    """The part of a template between two delimiters: literals around its variables (one more literal than
    variables; any may be empty)."""

    literals: tuple[str, ...]
    names: tuple[str, ...]

    def match(self, text: str) -> list[str] | None:
        """The variables' values in `text` (each non-empty), as a backtracking regex of `[^/?#]+` groups would
        take them: each as long as the rest allows. Found from the right, each literal at its last place that
        leaves the variables after it a character: one search per literal, so linear in `text` whatever the
        template (the regex is quadratic with two variables in a piece, `{name}.{ext}`)."""
        first, last = self.literals[0], self.literals[-1]
        if not self.names:
            return [] if text == first else None
        lo, hi = len(first), len(text) - len(last)
        if hi - lo < len(self.names) or not text.startswith(first) or not text.endswith(last):
            return None
        values: list[str] = []
        for index in range(len(self.names) - 1, 0, -1):
            literal = self.literals[index]
            at = text.rfind(literal, lo + 1, hi - 1)
            if at < 0:
                return None
            values.append(text[at + len(literal) : hi])
            hi = at
        values.append(text[lo:hi])
        return values[::-1]


def _pieces(template: str) -> tuple[tuple[_Piece, ...], tuple[str, ...]]:
    """The template's pieces and the delimiters between them."""
    pieces: list[_Piece] = []
    delimiters: list[str] = []
    literals, names = [""], []
    for index, part in enumerate(_VARIABLE.split(template)):
        if index % 2:
            names.append(part)
            literals.append("")
            continue
        for at, text in enumerate(_DELIMITER.split(part)):
            if at % 2:
                pieces.append(_Piece(tuple(literals), tuple(names)))
                delimiters.append(text)
                literals, names = [""], []
            else:
                literals[-1] += text
    pieces.append(_Piece(tuple(literals), tuple(names)))
    return tuple(pieces), tuple(delimiters)


@dataclass(frozen=True)
class ResourceTemplateSpec:
    """Resources named by an RFC 6570 template of simple `{name}` variables, each within a path segment (several
    may share one: `files://{name}.{ext}`)."""

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
    _pieces: tuple[tuple[_Piece, ...], tuple[str, ...]] = field(init=False, repr=False)

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
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))
        object.__setattr__(self, "_pieces", _pieces(template))

    def listing(self) -> dict[str, Any]:
        """The `resources/templates/list` entry."""
        return _listing("uriTemplate", self.uri_template, self.name, self.title, self.description, self.mime_type)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of `uri` (percent-decoded) if the template names it; None past MAX_URI_LENGTH. Matched
        piece by piece between the delimiters `/?#`, which no value holds: linear in the URI."""
        pieces, delimiters = self._pieces
        if len(uri) > MAX_URI_LENGTH:
            return None
        parts = _DELIMITER.split(uri)
        if len(parts) != 2 * len(pieces) - 1 or tuple(parts[1::2]) != delimiters:
            return None
        found: dict[str, str] = {}
        for piece, text in zip(pieces, parts[::2], strict=True):
            values = piece.match(text)
            if values is None:
                return None
            found.update(zip(piece.names, (unquote(v) for v in values), strict=True))
        return found

    async def read(self, uri: str, variables: Mapping[str, str]) -> dict[str, Any] | None:
        return cast(
            dict[str, Any] | None,
            await _contents(self.handler, self.is_async, uri, self.mime_type, **variables),
        )
