"""Faults injected into a boto3 DynamoDB client at `before-send`, so botocore's real retry handler sees them.

A planned fault answers an operation in place of DynamoDB (an error response, or a raised timeout); every
attempt botocore sends is counted, faulted or not.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError
from botocore.httpsession import URLLib3Session

Action = Callable[[AWSPreparedRequest], AWSResponse | None]


class _Body:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._data


def error_response(status: int, code: str, message: str) -> Action:
    """DynamoDB's JSON error answer."""
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}).encode()
    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "injected-fault"}
    return lambda request: AWSResponse(request.url, status, headers, _Body(body))


def read_timeout(request: AWSPreparedRequest) -> None:
    raise ReadTimeoutError(endpoint_url=request.url)


def connect_timeout(request: AWSPreparedRequest) -> None:
    raise ConnectTimeoutError(endpoint_url=request.url)


def answer_lost(request: AWSPreparedRequest) -> None:
    """The request reaches DynamoDB and is applied, but its answer never comes back."""
    URLLib3Session().send(request)
    raise ReadTimeoutError(endpoint_url=request.url)


def before(side_effect: Callable[[], object]) -> Action:
    """Run `side_effect` (say another writer's save) just before the request goes out, then send it."""

    def action(_: AWSPreparedRequest) -> None:
        side_effect()

    return action


@dataclass(frozen=True)
class Fault:
    name: str
    action: Action
    throttling: bool = False  # botocore backs off from 1 s instead of 25 ms for these


THROTTLING = Fault(
    "throttling", error_response(400, "ThrottlingException", "Rate of requests exceeds the allowed throughput."), True
)
PROVISIONED_THROUGHPUT = Fault(
    "provisioned throughput exceeded",
    error_response(
        400,
        "ProvisionedThroughputExceededException",
        "The level of configured provisioned throughput for the table was exceeded.",
    ),
    True,
)
SERVICE_UNAVAILABLE = Fault("503", error_response(503, "ServiceUnavailable", "Service unavailable."))
INTERNAL_ERROR = Fault("500", error_response(500, "InternalServerError", "Internal server error."))
READ_TIMEOUT = Fault("read timeout", read_timeout)
CONNECT_TIMEOUT = Fault("connect timeout", connect_timeout)
RETRIED_FAULTS = [
    THROTTLING,
    PROVISIONED_THROUGHPUT,
    SERVICE_UNAVAILABLE,
    INTERNAL_ERROR,
    READ_TIMEOUT,
    CONNECT_TIMEOUT,
]


class FaultInjector:
    """Hooks one client. `plan(operation, action, times)` faults the next `times` attempts (None: all of them)."""

    def __init__(self, client: Any) -> None:
        self.attempts: Counter[str] = Counter()
        self._plans: dict[str, tuple[Action, int | None]] = {}
        self._events = client.meta.events
        self._events.register("before-send.dynamodb", self._send, unique_id="storage-faults")

    def plan(self, operation: str, action: Action, times: int | None = None) -> None:
        self._plans[operation] = (action, times)

    def clear(self) -> None:
        self._plans.clear()
        self.attempts.clear()

    def remove(self) -> None:
        self._events.unregister("before-send.dynamodb", unique_id="storage-faults")

    def _send(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse | None:
        target = request.headers["X-Amz-Target"]  # DynamoDB_20120810.<Operation>
        operation = (target.decode() if isinstance(target, bytes) else target).rsplit(".", 1)[-1]
        self.attempts[operation] += 1
        planned = self._plans.get(operation)
        if planned is None:
            return None
        action, times = planned
        if times is not None:
            if times == 0:
                return None
            self._plans[operation] = (action, times - 1)
        return action(request)
