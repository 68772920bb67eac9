"""Declare widget-backed MCP tools once; get both ChatGPT (`openai/*`) and MCP Apps (`ui.*`) metadata.

book = ToolBook()

@book.tool(name="hello", title="Hello", description="...", output=HelloOut,
           read_only=True, destructive=False, open_world=False,
           invoking="Saying hello…", invoked="Said hello")
async def hello(args: HelloIn, call: ToolCall) -> ToolResult: ...
"""

from widget_mcp.toolkit.app_settings import AppSettings
from widget_mcp.toolkit.call import CallerClient, PromptCall, ToolCall
from widget_mcp.toolkit.content import Audio, ContentError, EmbeddedResource, Image, ResourceLink, Text
from widget_mcp.toolkit.display import DISPLAY_HOST
from widget_mcp.toolkit.errors import (
    DeclarationError,
    IdentityRequired,
    InvalidArguments,
    QuotaExceeded,
    RateLimited,
    ServiceUnavailable,
    TooLarge,
    ToolError,
    TooManyAtOnce,
)
from widget_mcp.toolkit.inputs import (
    Elicitation,
    Elicited,
    InputRequest,
    InputRequired,
    InputUnsupported,
    ListRoots,
    MissingClientCapability,
    PromptInputUnsupported,
    Root,
    Roots,
    Sampled,
    Sampling,
)
from widget_mcp.toolkit.portable import NullMeansSomething
from widget_mcp.toolkit.principal import ANONYMOUS, Principal
from widget_mcp.toolkit.prompts import PromptMessage, complete_from
from widget_mcp.toolkit.results import DisplayWidget, ToolResult
from widget_mcp.toolkit.tools import ToolBook, ToolSpec
from widget_mcp.toolkit.widgets import WidgetSpec

__all__ = [
    "ANONYMOUS",
    "DISPLAY_HOST",
    "AppSettings",
    "Audio",
    "CallerClient",
    "ContentError",
    "DeclarationError",
    "DisplayWidget",
    "Elicitation",
    "Elicited",
    "EmbeddedResource",
    "IdentityRequired",
    "Image",
    "InputRequest",
    "InputRequired",
    "InputUnsupported",
    "InvalidArguments",
    "ListRoots",
    "MissingClientCapability",
    "NullMeansSomething",
    "Principal",
    "PromptCall",
    "PromptInputUnsupported",
    "PromptMessage",
    "QuotaExceeded",
    "RateLimited",
    "ResourceLink",
    "Root",
    "Roots",
    "Sampled",
    "Sampling",
    "ServiceUnavailable",
    "Text",
    "TooLarge",
    "TooManyAtOnce",
    "ToolBook",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "WidgetSpec",
    "complete_from",
]
