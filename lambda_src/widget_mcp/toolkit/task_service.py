"""Tasks kept in the state store: created by the call that goes to the background, read by `tasks/get`, answered by
`tasks/update`, cancelled by `tasks/cancel`, and brought forward by the invocation that runs the work (`run`).

A task is one document (kind `task`) in its owner's partition, as games and forms are (ownership.py): an
identified caller's tasks live under its principal, a caller without identity reaches a task by its unguessable id
alone, so a stranger's task id is simply not found. Every change is a conditional write on the version read, so
concurrent requests and invocations never overwrite each other: whoever writes first wins, and a terminal status
(`completed`, `failed`, `cancelled`) is never left. The document expires (DynamoDB TTL) `ttl_seconds` after its
creation, and a read treats an expired one as gone, since TTL deletes late.

The work of a round must end within `work_seconds` (the function's timeout) of its start, and start within
QUEUE_SLACK_SECONDS of being sent: a round that has not ended by then is reported `failed`, so a task whose
invocation was lost, throttled or timed out does not stay `working` until it expires.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from widget_mcp.storage.documents import Document, DocumentStore, ItemOverBudget, QuotaFull, VersionConflict
from widget_mcp.toolkit.call import CallerClient, ToolCall
from widget_mcp.toolkit.errors import IdentityRequired, QuotaExceeded, TooLarge
from widget_mcp.toolkit.inputs import INVALID_PARAMS, ProtocolRefusal
from widget_mcp.toolkit.ownership import AnonymousState, caller_key, capability_id, state_owner
from widget_mcp.toolkit.principal import Principal
from widget_mcp.toolkit.tasks import INTERNAL_ERROR, TERMINAL, TaskNotFound, TaskRef

if TYPE_CHECKING:
    from widget_mcp.toolkit.limits import CallLimiter
    from widget_mcp.toolkit.runtime import TaskRound

logger = logging.getLogger(__name__)

KIND = "task"
POLL_INTERVAL_MS = 1000
# How long an invocation sent to run a round may wait before it starts (Lambda's smallest maximum event age).
QUEUE_SLACK_SECONDS = 60
# Conditional writes retried when another request changed the task in between.
WRITE_ATTEMPTS = 3
_TASK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class AnswersTooLarge(ProtocolRefusal):
    """A `tasks/update` whose answers would make the stored task larger than the item budget; nothing was kept."""

    def __init__(self, size: int, budget: int) -> None:
        super().__init__(
            INVALID_PARAMS,
            f"With these answers the task would take {size} bytes, over the {budget}-byte budget of a stored task; "
            "nothing was kept. Send shorter answers.",
            {"size": size, "budget": budget},
        )


class TaskInvoker(Protocol):
    """Starts the invocation that runs a task's round: on AWS an asynchronous invocation of the function itself,
    locally a thread of the server (task_invokers.py). It returns once the invocation is sent."""

    def invoke(self, task: TaskRef) -> None: ...


class TaskRunner(Protocol):
    """The runtime side of a task's work (runtime.ToolRuntime)."""

    anonymous_state: AnonymousState
    # The per-caller rate limit on calls that use state (limits.py); None: no limit.
    limiter: CallLimiter | None

    async def run_task_round(self, call: ToolCall, arguments: Mapping[str, Any]) -> TaskRound: ...


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TaskService:
    def __init__(
        self,
        store: DocumentStore,
        *,
        ttl_seconds: int,
        work_seconds: int,
        quota: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`quota`: how many live tasks one principal may keep (callers without identity: per source address)."""
        self._store = store
        self.ttl_seconds = ttl_seconds
        self.work_seconds = work_seconds
        self.quota = quota
        self._clock = clock
        # Both set by the wiring, which builds the runtime with this service and then the invoker around it.
        self.runner: TaskRunner | None = None
        self.invoker: TaskInvoker | None = None

    # --- the wire -------------------------------------------------------------------------------------------

    @staticmethod
    def envelope(task_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "taskId": task_id,
            "status": body["status"],
            "createdAt": _iso(body["createdMs"]),
            "lastUpdatedAt": _iso(body["updatedMs"]),
            "ttlMs": body["ttlMs"],
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if body.get("statusMessage"):
            wire["statusMessage"] = body["statusMessage"]
        return wire

    def detailed(self, task_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The `tasks/get` result: the task, with its result, error or pending input requests inlined."""
        wire = {"resultType": "complete", **self.envelope(task_id, body)}
        status = body["status"]
        if status == "completed":
            wire["result"] = {"resultType": "complete", **body["result"]}
        elif status == "failed":
            wire["error"] = body["error"]
        elif status == "input_required":
            wire["inputRequests"] = body["pending"]
        return wire

    # --- requests -------------------------------------------------------------------------------------------

    async def launch(self, call: ToolCall, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Store the task of a call that went to the background, start its first round, return its envelope.

        The task is stored before the answer, so a `tasks/get` right after it finds it."""
        owner = call.owner("Tasks")
        task_id = capability_id()
        now_ms = self._now_ms()
        body: dict[str, Any] = {
            "tool": call.tool,
            "arguments": dict(arguments),
            "principal": [call.principal.source, call.principal.subject],
            "source": call.source,
            "client": {"protocolVersion": call.client.protocol_version, "capabilities": call.client.capabilities},
            "answers": dict(call.used_answers),
            "pending": {},
            "status": "working",
            "createdMs": now_ms,
            "updatedMs": now_ms,
            "ttlMs": self.ttl_seconds * 1000,
            "deadline": self._round_deadline(),
        }
        now = now_ms // 1000
        ref = TaskRef(owner.partition(task_id), task_id)
        doc = Document(KIND, task_id, body, 1, now, now, now + self.ttl_seconds)
        # Counted against its owner's live tasks until it expires (its expiry never moves).
        doc = replace(doc, quota_holder=owner.quota_holder, counted_until=doc.expires_at)
        try:
            self._store.create(ref.partition, doc, quota=self.quota)
        except QuotaFull as exc:
            raise QuotaExceeded("tasks", exc.limit, exc.frees_at) from exc
        except ItemOverBudget as exc:
            raise TooLarge("task", exc.size, exc.budget, "Call the tool with smaller arguments.") from exc
        started = self._start(ref, doc)
        return {"resultType": "task", **self.envelope(task_id, started.body)}

    def get(self, principal: Principal, source: str | None, task_id: object) -> dict[str, Any]:
        ref, doc = self._load(principal, source, task_id)
        if doc.body["status"] == "working" and self._clock() > doc.body["deadline"]:
            doc = self._settle(ref, doc, self._overdue)
        return self.detailed(ref.task_id, doc.body)

    def update(self, principal: Principal, source: str | None, task_id: object, responses: Mapping[str, Any]) -> None:
        """Take the answers to the task's pending input requests (others are ignored); once none is pending, the
        next round starts. Answers are checked by the handler's `ask` in that round, as in a call.

        It changes state and may start a round, so it counts against the caller's rate limit as a call of a tool
        that uses state does, before anything is read (RateLimited past it)."""
        assert self.runner is not None, "the wiring sets the runner"
        if self.runner.limiter is not None:
            self.runner.limiter.admit(caller_key(principal, source))
        for _ in range(WRITE_ATTEMPTS):
            ref, doc = self._load(principal, source, task_id)
            pending = doc.body.get("pending") or {}
            accepted = {k: v for k, v in responses.items() if k in pending}
            if doc.body["status"] != "input_required" or not accepted:
                return
            body = {
                **doc.body,
                "answers": {**doc.body["answers"], **accepted},
                "pending": {k: v for k, v in pending.items() if k not in accepted},
                "updatedMs": self._now_ms(),
            }
            if not body["pending"]:
                body.update(status="working", deadline=self._round_deadline())
            try:
                stored = self._replace(ref, doc, body)
            except VersionConflict:
                continue
            except ItemOverBudget as exc:
                raise AnswersTooLarge(exc.size, exc.budget) from exc
            if body["status"] == "working":
                self._start(ref, stored)
            return

    def cancel(self, principal: Principal, source: str | None, task_id: object) -> None:
        """Cancel the task unless it has ended already (then nothing changes: the same acknowledgement)."""
        ref, doc = self._load(principal, source, task_id)
        self._settle(ref, doc, lambda body: {**body, "status": "cancelled", "pending": {}})

    def is_cancelled(self, task: TaskRef) -> bool:
        doc = self._store.get(task.partition, KIND, task.task_id)
        return doc is None or doc.body["status"] == "cancelled"

    # --- the invocation that does the work ------------------------------------------------------------------

    async def run(self, ref: TaskRef) -> None:
        """Run one round of a task: its handler from the top with the answers given so far; store the outcome
        unless the task changed meanwhile (cancelled, or another invocation of the same round got there first)."""

        try:
            await self._run(ref)
        except Exception:
            logger.exception("the round of task %s could not be run or stored", ref.task_id)

    async def _run(self, ref: TaskRef) -> None:

        assert self.runner is not None, "the wiring sets the runner"
        doc = self._store.get(ref.partition, KIND, ref.task_id)
        if doc is None or doc.body["status"] != "working":
            return
        body = doc.body
        if self._clock() > body["deadline"] - self.work_seconds:
            # Started too late to end before the deadline: report it now rather than run work that is dropped.
            self._settle(ref, doc, self._overdue)
            return
        source, subject = body["principal"]
        client = body["client"]
        call = ToolCall(
            tool=body["tool"],
            principal=Principal(source, subject),
            anonymous_state=self.runner.anonymous_state,
            source=body["source"],
            client=CallerClient(client["protocolVersion"], True, client["capabilities"]),
            answers=body["answers"],
            tasks=self,
            task=ref,
        )
        outcome: TaskRound = await self.runner.run_task_round(call, body["arguments"])
        done = {**body, "status": outcome.status, "updatedMs": self._now_ms()}
        if outcome.status == "completed":
            done["result"] = outcome.payload
        elif outcome.status == "failed":
            done["error"] = outcome.payload
        else:
            done["pending"] = outcome.payload
        try:
            self._replace(ref, doc, done)
        except VersionConflict:
            return  # cancelled meanwhile, or a duplicate invocation of this round stored its outcome first
        except ItemOverBudget as exc:
            error = {
                "code": INTERNAL_ERROR,
                "message": f"The task's result is {exc.size} bytes, over the {exc.budget}-byte budget of a stored "
                "task; it was not kept.",
            }
            self._settle(ref, doc, lambda b: {**b, "status": "failed", "error": error})

    # --- helpers --------------------------------------------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _round_deadline(self) -> int:
        return int(self._clock()) + QUEUE_SLACK_SECONDS + self.work_seconds

    def _overdue(self, body: dict[str, Any]) -> dict[str, Any]:
        message = (
            f"The task's work did not finish within its time limit ({self.work_seconds} s once started); it "
            "was stopped or lost. Call the tool again."
        )
        return {**body, "status": "failed", "error": {"code": INTERNAL_ERROR, "message": message}}

    def _start(self, ref: TaskRef, doc: Document) -> Document:
        """Send the invocation of the next round; if it cannot be sent, the task fails at once."""
        assert self.invoker is not None, "the wiring sets the invoker"
        try:
            self.invoker.invoke(ref)
        except Exception:
            logger.exception("could not start the work of task %s", ref.task_id)
            error = {"code": INTERNAL_ERROR, "message": "The task's work could not be started. Call the tool again."}
            return self._settle(ref, doc, lambda b: {**b, "status": "failed", "error": error})
        return doc

    def _replace(self, ref: TaskRef, doc: Document, body: dict[str, Any]) -> Document:
        now = int(self._clock())
        new = doc.next(body, now=now, expires_at=doc.expires_at)
        self._store.replace(ref.partition, new, doc.version)
        return new

    def _settle(self, ref: TaskRef, doc: Document, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Document:
        """Apply `change` to a task that has not ended; re-read and retry when another write came first."""
        for _ in range(WRITE_ATTEMPTS):
            if doc.body["status"] in TERMINAL:
                return doc
            try:
                return self._replace(ref, doc, {**change(doc.body), "updatedMs": self._now_ms()})
            except VersionConflict as conflict:
                if conflict.current is None:
                    return doc
                doc = conflict.current
        return doc

    def _load(self, principal: Principal, source: str | None, task_id: object) -> tuple[TaskRef, Document]:
        if not isinstance(task_id, str) or not _TASK_ID.match(task_id):
            raise TaskNotFound(task_id)
        assert self.runner is not None, "the wiring sets the runner"
        try:
            owner = state_owner(principal, self.runner.anonymous_state, "Tasks", source)
        except IdentityRequired:
            raise TaskNotFound(task_id) from None
        ref = TaskRef(owner.partition(task_id), task_id)
        doc = self._store.get(ref.partition, KIND, task_id)
        if doc is None or doc.expires_at <= self._clock():
            raise TaskNotFound(task_id)
        return ref, doc
