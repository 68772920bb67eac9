"""DGUI forms (seed 001): the model asks with a JSON Schema form, the answer is validated and kept per user.

`tools.py` declares ask_question, submit_form (widget only) and get_form_response (light: listing them loads
nothing below); `handlers.py` runs them, loaded on the first forms call; `service.py` holds the use cases;
`repository.py` stores sessions; `domain/` checks schemas and answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.forms.tools import build_book

if TYPE_CHECKING:
    from widget_mcp import AppContext, ToolBook

__all__ = ["tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return build_book(context)
