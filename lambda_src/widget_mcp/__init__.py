"""Serverless, widget-backed MCP tools for ChatGPT Apps and MCP Apps hosts.

What an app may import is what this module exports (`__all__`): declaring tools and widgets, the call and its
result, the errors a tool raises, the state store's port with its errors, ownership and shared spaces, and a
directory listing's declarations. Every other module of `widget_mcp` is the toolkit's own and may change in any
release; a name leaves this list only after a release in which it warns (`_DEPRECATED`).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from widget_mcp.apps.books import AppContext
from widget_mcp.storage.documents import (
    AlreadyExists,
    Document,
    DocumentStore,
    ItemOverBudget,
    QuotaFull,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    time_ordered_id,
)
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import (
    ANONYMOUS,
    DISPLAY_HOST,
    AppSettings,
    Audio,
    CallerClient,
    ContentError,
    DeclarationError,
    DisplayWidget,
    Elicitation,
    Elicited,
    EmbeddedResource,
    IdentityRequired,
    Image,
    InputRequest,
    InputRequired,
    InputUnsupported,
    InvalidArguments,
    ListRoots,
    MissingClientCapability,
    NullMeansSomething,
    Principal,
    PromptCall,
    PromptInputUnsupported,
    PromptMessage,
    QuotaExceeded,
    RateLimited,
    ResourceLink,
    Root,
    Roots,
    Sampled,
    Sampling,
    ServiceUnavailable,
    Text,
    TooLarge,
    ToolBook,
    ToolCall,
    ToolError,
    ToolResult,
    ToolSpec,
    TooManyAtOnce,
    WidgetSpec,
    complete_from,
)
from widget_mcp.toolkit.client_surface import elicits_forms, shows_widgets
from widget_mcp.toolkit.inventory import StoredData, days
from widget_mcp.toolkit.listing import Justifications, Listing, NegativeCase, ReviewCall, ReviewCase
from widget_mcp.toolkit.ownership import StateOwner, capability_id
from widget_mcp.toolkit.results import WIDGET_SESSION_KEY
from widget_mcp.toolkit.spaces import InvalidMember, NotSpaceOwner, Space, SpaceFull, SpaceNotFound, Spaces, member_id

__version__ = "0.1.0"

# A name that leaves the public API stays here for one release, mapped to where it went and why: reading it then
# warns (DeprecationWarning) and still works. tests/unit/test_public_api.py holds the record of public names.
_DEPRECATED: dict[str, tuple[Any, str]] = {}


if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise take any unknown name for a real one

    def __getattr__(name: str) -> Any:
        if name in _DEPRECATED:
            value, advice = _DEPRECATED[name]
            warnings.warn(f"widget_mcp.{name} is deprecated: {advice}", DeprecationWarning, stacklevel=2)
            return value
        raise AttributeError(f"module 'widget_mcp' has no attribute {name!r}")


__all__ = [
    "ANONYMOUS",
    "DISPLAY_HOST",
    "WIDGET_SESSION_KEY",
    "AlreadyExists",
    "AppContext",
    "AppSettings",
    "Audio",
    "CallerClient",
    "ContentError",
    "DeclarationError",
    "DisplayWidget",
    "Document",
    "DocumentStore",
    "Elicitation",
    "Elicited",
    "EmbeddedResource",
    "IdentityRequired",
    "Image",
    "InMemoryDocumentStore",
    "InputRequest",
    "InputRequired",
    "InputUnsupported",
    "InvalidArguments",
    "InvalidMember",
    "ItemOverBudget",
    "Justifications",
    "ListRoots",
    "Listing",
    "MissingClientCapability",
    "NegativeCase",
    "NotSpaceOwner",
    "NullMeansSomething",
    "Principal",
    "PromptCall",
    "PromptInputUnsupported",
    "PromptMessage",
    "QuotaExceeded",
    "QuotaFull",
    "RateLimited",
    "ResourceLink",
    "ReviewCall",
    "ReviewCase",
    "Root",
    "Roots",
    "Sampled",
    "Sampling",
    "ServiceUnavailable",
    "Space",
    "SpaceFull",
    "SpaceNotFound",
    "Spaces",
    "StateOwner",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "StoredData",
    "Text",
    "TooLarge",
    "TooManyAtOnce",
    "ToolBook",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "VersionConflict",
    "WidgetSpec",
    "capability_id",
    "complete_from",
    "days",
    "elicits_forms",
    "member_id",
    "shows_widgets",
    "time_ordered_id",
]
