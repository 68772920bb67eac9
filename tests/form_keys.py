"""The form widget's answer key, as the tests hand it on: taken from the result that showed the form (its
`_meta.dgui_answer_key`, which hosts give the widget and not the model) and sent back with submit_form, as the
widget sends it. One place, for results read through the MCP client and for results read as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from mcp.client import advertise
from mcp_types import CallToolResult
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.toolkit.call import APPS_EXTENSION
from widget_mcp.toolkit.widgets import APP_MIME_TYPE

# A ChatGPT call's display signal (toolkit/client_surface.py): with it, the host shows the form's widget, so the
# form gets an answer key and submit_form is the widget's to call.
SHOWS_WIDGETS = {"openai/locale": "en-US"}
# What an MCP Apps host declares (the official client's `extensions=`): with it, the host shows the form's widget.
MCP_APPS = advertise(APPS_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})

# The answer key each form's widget got with it, by form id (ids are unguessable, so one table serves every test).
KEYS: dict[str, str] = {}

Result = TypeVar("Result", CallToolResult, Mapping[str, Any])


def answer_key(result: CallToolResult | Mapping[str, Any]) -> str | None:
    """The answer key a result that shows a form carries, or None."""
    if isinstance(result, CallToolResult):
        meta, form = result.meta or {}, result.structured_content or {}
    else:
        meta, form = result.get("_meta") or {}, result.get("structuredContent") or {}
    key = meta.get(ANSWER_KEY_META)
    if isinstance(key, str) and isinstance(form.get("formId"), str):
        KEYS[form["formId"]] = key
    return key if isinstance(key, str) else None


def keep_key(result: Result) -> Result:
    """`result` (ask_question's, or a step's that shows the next form), its answer key kept for `keyed`."""
    answer_key(result)
    return result


def keyed(args: dict[str, Any]) -> dict[str, Any]:
    """submit_form's arguments as the widget that showed the form sends them: with its answer key (unchanged for a
    form no widget was given a key for, or arguments that name their own)."""
    form_id = args.get("formId")
    if "answerKey" in args or not isinstance(form_id, str) or form_id not in KEYS:
        return args
    return {**args, "answerKey": KEYS[form_id]}
