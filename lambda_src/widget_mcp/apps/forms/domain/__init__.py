"""Pure DGUI forms domain (seed 001): schema checks, answer validation, multi-step sessions. No I/O."""

from widget_mcp.apps.forms.domain.answers import check_answers, field_errors
from widget_mcp.apps.forms.domain.errors import AlreadyAnswered, FormError, InvalidAnswer, InvalidSchema, TooComplex
from widget_mcp.apps.forms.domain.limits import FormLimits
from widget_mcp.apps.forms.domain.schema import check_form_schema, read_json_object
from widget_mcp.apps.forms.domain.session import FormSession, FormStep

__all__ = [
    "AlreadyAnswered",
    "FormError",
    "FormLimits",
    "FormSession",
    "FormStep",
    "InvalidAnswer",
    "InvalidSchema",
    "TooComplex",
    "check_answers",
    "check_form_schema",
    "field_errors",
    "read_json_object",
]
