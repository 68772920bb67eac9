"""Tasks (`task_support`, `ToolCall.background`): the record in the store, its rounds, input, cancellation, deadline
and TTL, driven round by round (the invoker port records each round it is sent, and the test runs it), on the tools
of tests/library_app.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.stub import Stubber
from library_app import RUNS, book
from readme_snippets import run_python_section
from widget_mcp.server import build_runtime, build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import StoreUnavailable
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.task_invokers import LambdaInvoker, LocalInvoker, task_event, task_of
from widget_mcp.toolkit import CallerClient, ToolBook
from widget_mcp.toolkit.errors import RateLimited
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.toolkit.runtime import ToolRuntime
from widget_mcp.toolkit.task_service import KIND, POLL_INTERVAL_MS, QUEUE_SLACK_SECONDS, AnswersTooLarge, TaskService
from widget_mcp.toolkit.tasks import TASKS_EXTENSION, TaskNotFound, TaskRef, TasksRequired
from widget_mcp.wiring import task_invoker_for

TTL = 600
WORK = 20
DECLARES_TASKS = CallerClient("2026-07-28", True, {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}})
NO_TASKS = CallerClient("2026-07-28", True, {"elicitation": {}})
ANN = {"openai/subject": "ann"}
BOB = {"openai/subject": "bob"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Sent:
    """The invoker port: keeps each round it is sent, for the test to run."""

    def __init__(self, fail: bool = False) -> None:
        self.rounds: list[TaskRef] = []
        self.fail = fail

    def invoke(self, task: TaskRef) -> None:
        if self.fail:
            raise ConnectionError("the invocation could not be sent")
        self.rounds.append(task)


@dataclass
class Tasks:
    runtime: ToolRuntime
    service: TaskService
    store: InMemoryDocumentStore
    clock: Clock
    sent: Sent = field(default_factory=Sent)

    async def call(
        self, tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None, **options: Any
    ) -> dict[str, Any]:
        options.setdefault("client", DECLARES_TASKS)
        return await self.runtime.call(tool, arguments, meta, **options)

    async def work(self) -> int:
        """Run every round sent so far (and those they send); how many ran."""
        ran = 0
        while self.sent.rounds:
            await self.service.run(self.sent.rounds.pop(0))
            ran += 1
        return ran

    def get(self, task_id: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        principal, source = self.caller(meta)
        return self.service.get(principal, source, task_id)

    def update(self, task_id: str, responses: dict[str, Any], meta: dict[str, Any] | None = ANN) -> None:
        principal, source = self.caller(meta)
        self.service.update(principal, source, task_id, responses)

    def cancel(self, task_id: str, meta: dict[str, Any] | None = ANN) -> None:
        principal, source = self.caller(meta)
        self.service.cancel(principal, source, task_id)

    @staticmethod
    def caller(meta: dict[str, Any] | None) -> tuple[Any, str | None]:
        from widget_mcp.toolkit.principal import resolve_principal

        return resolve_principal(meta), "192.0.2.1"


def make_tasks(settings: Settings, *, fail: bool = False, anonymous_state: str = "capability") -> Tasks:
    clock = Clock()
    store = InMemoryDocumentStore(clock=clock)
    service = TaskService(store, ttl_seconds=TTL, work_seconds=WORK, clock=clock)
    settings = settings.model_copy(update={"anonymous_state": anonymous_state})
    runtime = build_runtime(settings, [book], tasks=service)
    tasks = Tasks(runtime, service, store, clock, Sent(fail))
    service.runner, service.invoker = runtime, tasks.sent
    RUNS.clear()
    return tasks


@pytest.fixture
def tasks(settings: Settings) -> Tasks:
    return make_tasks(settings)


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


async def test_a_task_tool_called_by_a_client_declaring_tasks_answers_with_a_stored_task_that_a_later_round_completes(
    tasks: Tasks,
) -> None:
    created = await tasks.call("library_count", {"shelf": "poetry"}, ANN)

    assert created["resultType"] == "task"
    assert created["status"] == "working"
    assert (created["ttlMs"], created["pollIntervalMs"]) == (TTL * 1000, POLL_INTERVAL_MS)
    assert created["createdAt"] == created["lastUpdatedAt"] == "2027-01-15T08:00:00.000Z"
    assert not {"result", "error", "inputRequests", "requestState", "task"} & set(created)
    assert RUNS["library_count"] == 0, "the work runs in a later invocation, not in the request"
    working = tasks.get(created["taskId"], ANN)
    assert (working["resultType"], working["status"]) == ("complete", "working")
    assert "result" not in working

    assert await tasks.work() == 1

    done = tasks.get(created["taskId"], ANN)
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"shelf": "poetry", "books": 2}
    assert done["result"]["content"][0] == {"type": "text", "text": "2 books on poetry."}
    assert RUNS["library_count"] == 1


async def test_without_the_tasks_extension_an_optional_task_tool_runs_to_its_end_in_the_request(tasks: Tasks) -> None:
    for client in (NO_TASKS, CallerClient()):
        result = await tasks.call("library_count", {}, ANN, client=client)
        assert result["structuredContent"] == {"shelf": "all", "books": 2}
        assert "taskId" not in result
    assert tasks.sent.rounds == []


@pytest.mark.parametrize("client", [NO_TASKS, CallerClient()], ids=["2026-07-28", "2025-11-25"])
async def test_a_required_task_tool_is_refused_with_32021_naming_the_extension_before_its_handler_runs(
    tasks: Tasks, client: CallerClient
) -> None:
    with pytest.raises(TasksRequired) as refused:
        await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN, client=client)
    assert refused.value.code == -32021
    assert refused.value.data == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    assert tasks.store.newest("openai:ann", KIND, 10) == []


async def test_a_task_is_found_by_its_owner_only_like_a_game(tasks: Tasks) -> None:
    owned = (await tasks.call("library_count", {}, ANN))["taskId"]
    anonymous = (await tasks.call("library_count", {}, None))["taskId"]

    assert tasks.get(owned, ANN)["taskId"] == owned
    assert tasks.get(anonymous, None)["taskId"] == anonymous, "a caller without identity holds the id as capability"
    for task_id, stranger in ((owned, BOB), (owned, None), (anonymous, ANN), ("not-a-task", ANN), ("../x", ANN)):
        with pytest.raises(TaskNotFound) as missing:
            tasks.get(task_id, stranger)
        assert (missing.value.code, missing.value.data) == (-32602, {"taskId": task_id})
        with pytest.raises(TaskNotFound):
            tasks.cancel(task_id, stranger)
    with pytest.raises(TaskNotFound):
        tasks.update(owned, {"x": accept()}, BOB)


async def test_with_anonymous_state_refused_a_caller_without_identity_gets_identity_required_and_no_task(
    settings: Settings,
) -> None:
    tasks = make_tasks(settings, anonymous_state="refuse")
    result = await tasks.call("library_count", {}, None)
    assert result["isError"] is True
    assert result["_meta"]["error"]["code"] == "identity_required"
    assert tasks.sent.rounds == []


async def test_a_task_that_asks_waits_in_input_required_until_every_answer_arrives_one_at_a_time(tasks: Tasks) -> None:
    task_id = (await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN))["taskId"]
    await tasks.work()

    waiting = tasks.get(task_id, ANN)
    assert waiting["status"] == "input_required"
    assert set(waiting["inputRequests"]) == {"confirm", "who"}
    assert {r["method"] for r in waiting["inputRequests"].values()} == {"elicitation/create"}

    tasks.update(task_id, {"who": accept(name="Ada"), "stray": accept()})
    partly = tasks.get(task_id, ANN)
    assert partly["status"] == "input_required"
    assert list(partly["inputRequests"]) == ["confirm"]
    assert tasks.sent.rounds == [], "no round starts while an answer is missing"

    tasks.update(task_id, {"confirm": accept(confirm=True)})
    assert tasks.get(task_id, ANN)["status"] == "working"
    assert await tasks.work() == 1
    done = tasks.get(task_id, ANN)
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"shelf": "poetry", "by": "Ada"}
    assert "inputRequests" not in done


async def test_tasks_update_counts_against_the_callers_rate_limit_and_past_it_changes_nothing(
    settings: Settings,
) -> None:
    tasks = make_tasks(settings)
    tasks.runtime.limiter = CallLimiter(tasks.store, RateLimit(calls=2, window_seconds=60), tasks.clock)
    task_id = (await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN))["taskId"]  # the first call
    await tasks.work()
    tasks.update(task_id, {"who": accept(name="Ada")})  # the second
    before = tasks.get(task_id, ANN)

    with pytest.raises(RateLimited) as refused:
        tasks.update(task_id, {"confirm": accept(confirm=True)})

    assert 1 <= refused.value.retry_after <= 60
    after = tasks.get(task_id, ANN)
    assert (after["status"], list(after["inputRequests"])) == ("input_required", ["confirm"])
    assert after == before  # not even its lastUpdatedAt moved
    assert tasks.sent.rounds == []
    tasks.clock.now += 60  # the next window
    tasks.update(task_id, {"confirm": accept(confirm=True)})
    assert tasks.get(task_id, ANN)["status"] == "working"


async def test_answers_gathered_by_input_requests_in_the_request_reach_the_tasks_round(tasks: Tasks) -> None:
    first = await tasks.call("library_lend", {"isbn": "9780441013593"}, ANN)
    assert first["resultType"] == "input_required"
    assert "taskId" not in first

    created = await tasks.call(
        "library_lend",
        {"isbn": "9780441013593"},
        ANN,
        input_responses={"borrower": accept(name="Ada")},
        request_state=first["requestState"],
    )
    assert created["resultType"] == "task"
    assert "requestState" not in created
    await tasks.work()
    assert tasks.get(created["taskId"], ANN)["result"]["structuredContent"] == {
        "isbn": "9780441013593",
        "borrower": "Ada",
    }


async def test_a_tool_error_completes_the_task_with_an_error_result_and_a_crash_fails_it_with_a_json_rpc_error(
    tasks: Tasks,
) -> None:
    declined = (await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN))["taskId"]
    crashed = (await tasks.call("library_reshelve", {"shelf": "crash"}, ANN))["taskId"]
    await tasks.work()
    answers = {"who": accept(name="Ada"), "confirm": accept(confirm=False)}
    tasks.update(declined, answers)
    tasks.update(crashed, answers)
    await tasks.work()

    completed = tasks.get(declined, ANN)
    assert completed["status"] == "completed"
    assert completed["result"]["isError"] is True
    assert completed["result"]["_meta"]["error"]["code"] == "not_confirmed"
    failed = tasks.get(crashed, ANN)
    assert failed["status"] == "failed"
    assert "result" not in failed
    assert failed["error"]["code"] == -32603
    assert "fell over" not in json.dumps(failed), "what crashed stays in the server's log"


async def test_a_round_answering_the_wrong_kind_of_input_fails_the_task_with_invalid_params(tasks: Tasks) -> None:
    task_id = (await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN))["taskId"]
    await tasks.work()
    tasks.update(task_id, {"who": {"action": "maybe"}, "confirm": accept(confirm=True)})
    await tasks.work()
    failed = tasks.get(task_id, ANN)
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == -32602
    assert failed["error"]["data"] == {"inputResponse": "who"}


async def test_cancelling_is_final_even_when_the_round_ends_after_it_and_cancelling_again_changes_nothing(
    tasks: Tasks,
) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]
    tasks.cancel(task_id)
    await tasks.work()

    cancelled = tasks.get(task_id, ANN)
    assert cancelled["status"] == "cancelled"
    assert "result" not in cancelled
    tasks.cancel(task_id)
    assert tasks.get(task_id, ANN)["status"] == "cancelled"

    finished = (await tasks.call("library_count", {}, ANN))["taskId"]
    await tasks.work()
    tasks.cancel(finished)
    assert tasks.get(finished, ANN)["status"] == "completed", "an ended task stays as it ended"


async def test_a_running_round_sees_its_task_cancelled(tasks: Tasks) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]
    ref = tasks.sent.rounds[0]
    assert tasks.service.is_cancelled(ref) is False
    tasks.cancel(task_id)
    assert tasks.service.is_cancelled(ref) is True


async def test_a_round_not_ended_by_its_deadline_is_reported_failed_and_a_late_start_does_not_run(
    tasks: Tasks,
) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]
    tasks.clock.now += QUEUE_SLACK_SECONDS + WORK + 1

    overdue = tasks.get(task_id, ANN)
    assert overdue["status"] == "failed"
    assert overdue["error"]["code"] == -32603
    assert f"{WORK} s" in overdue["error"]["message"]
    await tasks.work()
    assert RUNS["library_count"] == 0
    assert tasks.get(task_id, ANN)["status"] == "failed"


async def test_a_round_that_starts_too_late_to_end_in_time_fails_the_task_without_running(tasks: Tasks) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]
    tasks.clock.now += QUEUE_SLACK_SECONDS + 1
    await tasks.work()
    assert RUNS["library_count"] == 0
    assert tasks.get(task_id, ANN)["status"] == "failed"


async def test_a_task_is_stored_with_its_ttl_and_is_gone_once_it_passes(tasks: Tasks) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]
    await tasks.work()
    stored = tasks.store.get("openai:ann", KIND, task_id)
    assert stored is not None
    assert stored.expires_at == stored.created_at + TTL

    tasks.clock.now += TTL
    with pytest.raises(TaskNotFound):
        tasks.get(task_id, ANN)


async def test_a_round_that_cannot_be_sent_fails_the_task_at_once(settings: Settings) -> None:
    tasks = make_tasks(settings, fail=True)
    created = await tasks.call("library_count", {}, ANN)
    assert created["status"] == "failed"
    assert tasks.get(created["taskId"], ANN)["error"]["code"] == -32603


def test_the_lambda_invoker_sends_an_asynchronous_invocation_of_the_function_it_was_invoked_as() -> None:
    import boto3

    client = boto3.client("lambda", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
    invoker = LambdaInvoker(lambda: client)
    ref = TaskRef("capability:abc", "abc")
    alias = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp:live"
    with pytest.raises(RuntimeError):
        invoker.invoke(ref)
    invoker.function = alias
    with Stubber(client) as stub:
        payload = json.dumps(task_event(ref)).encode()
        stub.add_response(
            "invoke",
            {"StatusCode": 202},
            {"FunctionName": alias, "InvocationType": "Event", "Payload": payload},
        )
        invoker.invoke(ref)
        stub.assert_no_pending_responses()
    assert task_of(json.loads(payload)) == ref


@pytest.mark.parametrize(
    "event",
    [{}, {"version": "2.0", "routeKey": "POST /mcp"}, {"widget-mcp/task": "x"}, {"widget-mcp/task": {"taskId": 1}}],
)
def test_no_other_event_is_taken_for_a_task_round(event: dict[str, Any]) -> None:
    assert task_of(event) is None


def readme_book() -> ToolBook:
    book: ToolBook = run_python_section("Run long work as a task")["book"]
    return book


async def test_the_readme_example_runs_as_a_task_for_a_client_declaring_tasks_and_in_the_request_otherwise(
    settings: Settings,
) -> None:
    tasks = make_tasks(settings)
    tasks.runtime = build_runtime(settings, [readme_book()], tasks=tasks.service)
    tasks.service.runner = tasks.runtime

    created = await tasks.call("report_write", {"pages": 2}, ANN)
    assert created["resultType"] == "task"
    await tasks.work()
    assert tasks.get(created["taskId"], ANN)["result"]["structuredContent"] == {"pages": 2}

    at_once = await tasks.call("report_write", {"pages": 2}, ANN, client=NO_TASKS)
    assert at_once["structuredContent"] == {"pages": 2}

    cancelled = (await tasks.call("report_write", {"pages": 50}, ANN))["taskId"]
    tasks.cancel(cancelled)
    await tasks.work()
    assert tasks.get(cancelled, ANN)["status"] == "cancelled"


def test_only_a_server_with_tools_that_run_as_tasks_offers_the_extension_and_its_requests(settings: Settings) -> None:
    plain = ToolBook()
    plain.tools = {n: t for n, t in book.tools.items() if t.task_support == "forbidden"}
    for books, offered in (([book], True), ([plain], False)):
        service = TaskService(InMemoryDocumentStore(), ttl_seconds=TTL, work_seconds=WORK)
        server = build_server(build_runtime(settings, books, tasks=service))
        assert (TASKS_EXTENSION in server.extensions) is offered
        assert all((server.get_request_handler(m) is not None) is offered for m in ("tasks/get", "tasks/cancel"))


async def test_past_its_quota_of_live_tasks_a_caller_gets_quota_exceeded_until_one_expires(settings: Settings) -> None:
    tasks = make_tasks(settings)
    tasks.service.quota = 2
    for _ in range(2):
        assert (await tasks.call("library_count", {}, ANN))["resultType"] == "task"

    refused = await tasks.call("library_count", {}, ANN)
    assert refused["isError"] is True
    assert refused["_meta"]["error"]["code"] == "quota_exceeded"
    assert len(tasks.sent.rounds) == 2
    assert (await tasks.call("library_count", {}, BOB))["resultType"] == "task", "each principal has its own"

    tasks.clock.now += TTL
    assert (await tasks.call("library_count", {}, ANN))["resultType"] == "task"


async def test_a_round_whose_store_fails_is_logged_and_the_task_fails_at_its_deadline(
    tasks: Tasks, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    task_id = (await tasks.call("library_count", {}, ANN))["taskId"]

    def unavailable(*args: Any, **kwargs: Any) -> None:
        raise StoreUnavailable("DynamoDB is throttling")

    with monkeypatch.context() as patched:
        patched.setattr(tasks.store, "replace", unavailable)
        await tasks.work()
    assert "could not be run or stored" in caplog.text
    assert tasks.get(task_id, ANN)["status"] == "working"
    tasks.clock.now += QUEUE_SLACK_SECONDS + WORK + 1
    assert tasks.get(task_id, ANN)["status"] == "failed"


def test_on_lambda_a_round_is_an_invocation_of_the_function_and_elsewhere_a_thread_of_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = TaskService(InMemoryDocumentStore(), ttl_seconds=TTL, work_seconds=WORK)
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    assert isinstance(task_invoker_for(service), LocalInvoker)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "widget-mcp")
    assert isinstance(task_invoker_for(service), LambdaInvoker)


async def test_answers_that_would_outgrow_the_stored_task_are_refused_and_the_task_still_waits(
    settings: Settings,
) -> None:
    tasks = make_tasks(settings)
    tasks.store = InMemoryDocumentStore(clock=tasks.clock, max_item_bytes=8 * 1024)
    tasks.service = TaskService(tasks.store, ttl_seconds=TTL, work_seconds=WORK, clock=tasks.clock)
    tasks.service.runner, tasks.service.invoker = tasks.runtime, tasks.sent
    tasks.runtime.tasks = tasks.service
    task_id = (await tasks.call("library_reshelve", {"shelf": "poetry"}, ANN))["taskId"]
    await tasks.work()

    with pytest.raises(AnswersTooLarge) as refused:
        tasks.update(task_id, {"who": accept(name="A" * 10_000)})
    assert refused.value.code == -32602
    assert (refused.value.data or {})["budget"] == 8 * 1024
    assert set(tasks.get(task_id, ANN)["inputRequests"]) == {"confirm", "who"}
