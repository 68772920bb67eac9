"""What the function writes that CloudWatch reads (widget_mcp/observability.py): the EMF namespace, metric names and
dimensions of a tool call's document, and the fields of its log line. tests/infra/test_operations_template.py checks
these against the lines the function's telemetry really writes, so a rename there fails a test here."""

from __future__ import annotations

from widget_mcp.settings import Settings

# The function's settings' defaults; a stack sets the namespace to this and the service to its own name
# (`service_of`), so two stacks in one account write tool metrics apart.
SERVICE = str(Settings.model_fields["service_name"].default)
NAMESPACE = str(Settings.model_fields["metrics_namespace"].default)


def service_of(stack_name: str) -> str:
    """The Powertools service (the tool metrics' `service` dimension and the log lines' `service`) of a stack's
    function: the stack's name, unique per account and region."""
    return stack_name


# One EMF document per tool call, with dimensions {tool, service}: service_of(the stack's name).
TOOL_DIMENSION = "tool"
SERVICE_DIMENSION = "service"
INVOCATIONS = "ToolInvocations"
ERRORS = "ToolErrors"  # every failed call, the caller's mistakes included
LATENCY = "ToolLatency"  # milliseconds, in the function, from the call's start to its result
CAPACITY = "DynamoDbCapacityUnits"

# A call's log fields: a success's EMF document carries them as metadata, a failure writes its own WARNING line.
MESSAGE = "message"
FINISHED = "tool call finished"
FAILED = "tool call failed"
ERROR_CODE = "error_code"
DURATION_MS = "duration_ms"
PRINCIPAL_SOURCE = "principal_source"
CORRELATION_ID = "correlation_id"  # the API Gateway request id (the access log's requestId)
SESSION_REF = "ref"  # a keyed reference to the game or form the call acted on (widget_mcp/log_refs.py)

# The API's access log (cdk/mcp_api.py ACCESS_LOG_FORMAT) fields the queries and the 429 filter read.
ACCESS_IP = "ip"
ACCESS_STATUS = "status"
ACCESS_REQUEST_ID = "requestId"
ACCESS_ROUTE = "routeKey"
ACCESS_LATENCY = "latency"
ACCESS_INTEGRATION_ERROR = "integrationError"
