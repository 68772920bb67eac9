"""Every prompt, resource and resource template the apps declare, built once per process.

It answers `prompts/list`, `prompts/get`, the apps' part of `resources/list`, `resources/templates/list` and
`resources/read`, and `completion/complete`, in wire form. Failures the caller caused raise CatalogError.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from widget_mcp.toolkit.errors import CatalogError, DeclarationError
from widget_mcp.toolkit.prompts import Completer, completion
from widget_mcp.toolkit.resources import FIXED_TTL_MS, MAX_URI_LENGTH, TEMPLATE_TTL_MS, check_uri_length

if TYPE_CHECKING:
    from widget_mcp.toolkit.call import PromptCall
    from widget_mcp.toolkit.prompts import PromptSpec
    from widget_mcp.toolkit.resources import ResourceSpec, ResourceTemplateSpec
    from widget_mcp.toolkit.tools import ToolBook


class Catalog:
    def __init__(self, books: Iterable[ToolBook], reserved_uris: Iterable[str] = ()) -> None:
        """`reserved_uris`: URIs served otherwise (the widget templates), which no app resource may take."""
        self.prompts: dict[str, PromptSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.templates: dict[str, ResourceTemplateSpec] = {}
        taken = set(reserved_uris)
        for book in books:
            for name, prompt in book.prompts.items():
                if name in self.prompts:
                    raise DeclarationError(name, "two apps declare a prompt with this name")
                self.prompts[name] = prompt
            for uri, resource in book.resources.items():
                if uri in self.resources or uri in taken:
                    raise DeclarationError(uri, "two resources have this URI")
                self.resources[uri] = resource
            for template_uri, template in book.resource_templates.items():
                if template_uri in self.templates:
                    raise DeclarationError(template_uri, "two apps declare this resource template")
                self.templates[template_uri] = template
        self.prompt_list = [p.describe() for p in self.prompts.values()]
        self.resource_list = [r.listing() for r in self.resources.values()]
        self.template_list = [t.listing() for t in self.templates.values()]
        self.completes = any(p.complete for p in self.prompts.values()) or any(
            t.complete for t in self.templates.values()
        )

    def is_fixed(self, uri: object) -> bool:
        """Whether `uri` is a fixed resource's that no one says changes: its answer stays the same while the
        process lives."""
        return isinstance(uri, str) and uri in self.resources and not self.resources[uri].subscribable

    @property
    def offers_subscriptions(self) -> bool:
        return any(r.subscribable for r in self.resources.values()) or any(
            t.subscribable for t in self.templates.values()
        )

    def subscribable(self, uri: str) -> bool:
        """Whether clients may subscribe to `uri`: a subscribable resource's, or one a subscribable template names
        (never one past MAX_URI_LENGTH)."""
        if len(uri) > MAX_URI_LENGTH:
            return False
        resource = self.resources.get(uri)
        if resource is not None:
            return resource.subscribable
        return any(t.subscribable and t.match(uri) is not None for t in self.templates.values())

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None, call: PromptCall | None = None
    ) -> dict[str, Any]:
        """The `prompts/get` result; `call` is the request's context for a prompt that asks for input."""
        prompt = self.prompts.get(name)
        if prompt is None:
            raise CatalogError("invalid_params", name, f"Unknown prompt: {name}")
        return await prompt.get(arguments, call)

    async def read(self, uri: str) -> dict[str, Any]:
        """The `resources/read` result, with its caching hint; CatalogError `not_found` when nothing is there,
        `invalid_params` (UriTooLong) past MAX_URI_LENGTH."""
        resource = self.resources.get(check_uri_length(uri))
        if resource is not None:
            contents, scope = await resource.read(), "public"
            ttl = TEMPLATE_TTL_MS if resource.subscribable else FIXED_TTL_MS
        else:
            contents, ttl, scope = None, TEMPLATE_TTL_MS, "private"
            for template in self.templates.values():
                variables = template.match(uri)
                if variables is not None:
                    contents = await template.read(uri, variables)
                    break
        if contents is None:
            raise CatalogError("not_found", uri, "Resource not found")
        return {"contents": [contents], "ttlMs": ttl, "cacheScope": scope}

    def complete(self, ref: Mapping[str, Any], argument: str, value: str, context: Mapping[str, str]) -> dict[str, Any]:
        """The `completion/complete` result for a prompt's argument or a resource template's variable."""
        completers: Mapping[str, Completer]
        if ref.get("type") == "ref/prompt":
            name = str(ref.get("name"))
            prompt = self.prompts.get(name)
            if prompt is None:
                raise CatalogError("invalid_params", name, f"Unknown prompt: {name}")
            completers = prompt.complete
        elif ref.get("type") == "ref/resource":
            uri = str(ref.get("uri"))
            template = self.templates.get(uri)
            if template is None:
                raise CatalogError("invalid_params", uri, f"Unknown resource template: {uri}")
            completers = template.complete
        else:
            raise CatalogError("invalid_params", str(ref.get("type")), "ref.type must be ref/prompt or ref/resource")
        completer = completers.get(argument)
        if completer is None:
            return {"completion": {"values": [], "total": 0, "hasMore": False}}
        return {"completion": completion(completer, value, context)}
