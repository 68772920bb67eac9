"""DGUI forms (seed 001): the model asks with a JSON Schema form, the answer is validated and kept per user.

`domain/` checks schemas and answers; `service.py` holds the use cases; `repository.py` stores sessions;
`tools.py` declares ask_question, submit_form (widget only) and get_form_response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.forms.repository import FormRepository
from widget_mcp.apps.forms.service import FormService
from widget_mcp.apps.forms.tools import FORM, build_book

if TYPE_CHECKING:
    from widget_mcp.apps.registry import AppContext
    from widget_mcp.toolkit import ToolBook

__all__ = ["FORM", "FormRepository", "FormService", "build_book", "tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return build_book(FormService(FormRepository(context.store, context.settings.forms_ttl_days)))
