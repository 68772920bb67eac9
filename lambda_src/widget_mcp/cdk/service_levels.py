"""The service levels the stack aims for, and every alarm threshold derived from them (infra/README.md, "Service
levels" and "Runbook"): change an objective here and the alarms follow."""

from __future__ import annotations

import aws_cdk as cdk

from widget_mcp.toolkit.errors import ServiceUnavailable
from widget_mcp.toolkit.failures import INTERNAL_ERROR_CODE

# Of the tool calls the function answers, the fraction that do not fail on the server's side, over 30 days. A call
# refused for the caller's own reason (an illegal move, a quota, the rate limit, bad arguments) counts as served.
SUCCESS_OBJECTIVE = 0.999
# The error codes that are the server's fault: a bug (masked as internal_error), or storage out of reach.
SERVER_FAULT_CODES = (INTERNAL_ERROR_CODE, str(ServiceUnavailable.code))
# The p99 of a warm tool call, in the function (ToolLatency), for every tool that answers in the call: the engine's
# reply is capped at 0.5 s (CHESS_ENGINE_MAX_SECONDS) and a call's storage round trips take tens of milliseconds.
WARM_P99_MS = 1000

# Alarms look at 5-minute periods and fire when EVALUATION of them in a row breach: one bad period is noise.
PERIOD = cdk.Duration.minutes(5)
EVALUATION = 3
# A fault rate this many times the error budget spends 2% of a 30-day budget in an hour (the usual fast-burn page).
FAST_BURN = 14.4
FAULT_RATE_PERCENT = round(FAST_BURN * (1 - SUCCESS_OBJECTIVE) * 100, 4)  # 1.44 % of calls, or of API requests
# The function's p99 duration past this fraction of its timeout: calls are near being cut off (and the caller's
# retry near repeating a write).
TIMEOUT_FRACTION = 0.5
# Concurrent executions past this fraction of the reserve: the next burst is throttled.
CONCURRENCY_FRACTION = 0.8
# Requests the API refused with 429 past this share of all its requests: a runaway client, or a throttle set below
# the real traffic.
THROTTLED_PERCENT = 5.0
