"""`make cost` (`python -m bench.cost`): what one tool call costs, per tool, and a typical session, at the list
prices in bench/prices.py.

Measured in this process, through the Lambda handler as deployed (telemetry on), with the table on moto:
- DynamoDB units per call: worked out from the items each request reads and writes (dynamodb_units.py);
- the function's duration: the handler's CPU time on this thread, scaled to the CPU share Lambda gives the stack's
  memory (MEMORY_MB of the 1,769 MB that make one vCPU), plus DYNAMODB_ROUND_TRIP_MS for each table request; billed
  per started millisecond at the stack's arm64 price (measured on this machine's CPU, not Graviton's);
- the log bytes each call writes (CloudWatch Logs ingestion);
- one API Gateway request and one Lambda request per call (stateless POST /mcp).
Secrets Manager is read per warm instance, not per call (key_ring.REFRESH_SECONDS): priced per instance-hour.

The sessions: a 40-move game against the engine (chess_new_game, then 40 of the user's moves, each with the engine's
reply; a game that ends early is followed by a new one), 40 moves between two people (`, friend`: each move a call,
no engine) and a three-step form (ask_question, submit_form for each step, get_form_response).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import chess
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.local.aws import SerializedMotoServer

from bench import prices
from bench.dynamodb_units import UnitMeter
from bench.events import HOST, LambdaContext, http_v2_event
from bench.load_users import FORM_STEPS, form_chain, step_schema

MEMORY_MB = 1024  # widget_mcp/cdk/mcp_api.py MEMORY_MB (tests/infra/test_cost_matches_the_stack.py holds them equal)
VCPU_MB = 1769  # Lambda gives one full vCPU at 1,769 MB, proportionally less below
# A GetItem or PutItem from Lambda to DynamoDB in the same region: single-digit milliseconds; this is an assumption,
# not a measurement (moto on loopback says nothing about it).
DYNAMODB_ROUND_TRIP_MS = 5.0
TABLE = "cost-state"
GAME_MOVES = 40
FORMS = 5  # forms measured (a game gives 40 moves already)
SECRETS = 2  # the stack's requestState and host-token keys (widget_mcp/cdk/shared_secrets.py)


@dataclass
class Sample:
    read: float
    write: float
    requests: int
    cpu_ms: float
    log_bytes: int


@dataclass
class Calls:
    samples: dict[str, list[Sample]] = field(default_factory=dict)

    def add(self, tool: str, sample: Sample) -> None:
        self.samples.setdefault(tool, []).append(sample)


@dataclass(frozen=True)
class ToolCost:
    tool: str
    calls: int
    read: float
    write: float
    requests: float
    cpu_ms: float
    billed_ms: float
    log_bytes: float

    @property
    def dynamodb(self) -> float:
        return self.read * prices.DYNAMODB_PER_READ_UNIT + self.write * prices.DYNAMODB_PER_WRITE_UNIT

    @property
    def lambda_(self) -> float:
        gb_seconds = MEMORY_MB / 1024 * self.billed_ms / 1000
        return gb_seconds * prices.LAMBDA_ARM64_PER_GB_SECOND + prices.LAMBDA_PER_REQUEST

    @property
    def logs(self) -> float:
        return self.log_bytes / 1e9 * prices.LOGS_INGESTED_PER_GB

    @property
    def total(self) -> float:
        return self.dynamodb + self.lambda_ + prices.HTTP_API_PER_REQUEST + self.logs


class Bench:
    """The handler on a moto table, with a meter on its DynamoDB client."""

    def __init__(self, moto_url: str) -> None:
        os.environ.update(
            {
                "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
                "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": "cost",
                "AWS_SECRET_ACCESS_KEY": "cost",
                "TABLE_NAME": TABLE,
                "ALLOWED_HOSTS": HOST,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(MEMORY_MB),
                # A session's calls come from one caller faster than a person would make them; the counter is still
                # written on every call, as deployed.
                "RATE_LIMIT_CALLS": "1000000",
            }
        )
        import boto3
        from widget_mcp.handler import core, handler
        from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
        from widget_mcp.storage.table import create_state_table

        raw = boto3.client("dynamodb")
        create_state_table(raw, TABLE)
        assert isinstance(core.store, DynamoDbDocumentStore)
        self.meter = UnitMeter(core.store.client, raw)
        self.handler = handler
        self.calls = Calls()

    def call(
        self, tool: str, arguments: dict[str, Any], subject: str, *, sizing: bool, label: str = ""
    ) -> dict[str, Any]:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": {"openai/subject": subject}},
        }
        self.meter.sizing = sizing
        self.meter.take()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            start = time.thread_time()
            response = self.handler(http_v2_event(body), LambdaContext())
            cpu_ms = (time.thread_time() - start) * 1000
        units = self.meter.take()
        answer = json.loads(response["body"])
        result = answer.get("result")
        if result is None or result.get("isError"):
            raise SystemExit(f"{tool} failed: {answer}")
        sample = Sample(units.read, units.write, sum(units.requests.values()), cpu_ms, len(out.getvalue().encode()))
        self.calls.add(f"{tool}{label}{'' if sizing else ' (timed)'}", sample)
        return dict(result)


def game_session(bench: Bench, subject: str, *, sizing: bool, engine: bool = True) -> None:
    """GAME_MOVES of the user's moves against the engine (each with its reply), or of both players' against a
    friend (each a call of its own: `chess_move, friend`)."""
    from widget_mcp.apps.chess.domain.engine import choose_move

    label = "" if engine else ", friend"
    moves = 0
    while moves < GAME_MOVES:
        args = {"opponent": "engine" if engine else "human"}
        state = bench.call("chess_new_game", args, subject, sizing=sizing, label=label)["structuredContent"]
        while moves < GAME_MOVES and state["status"] == "active":
            board = chess.Board(state["fen"])
            mine = choose_move(board, max_nodes=300).best_move_uci  # a fair player, so games last
            args = {"gameId": state["gameId"], "move": mine, "expectedPly": state["ply"]}
            state = bench.call("chess_move", args, subject, sizing=sizing, label=label)["structuredContent"]
            moves += 1


def form_session(bench: Bench, subject: str, *, sizing: bool) -> None:
    asked = bench.call("ask_question", {"question": step_schema(0), "metadata": form_chain(1)}, subject, sizing=sizing)
    form_id, key = asked["structuredContent"]["formId"], asked["_meta"][ANSWER_KEY_META]
    for n in range(FORM_STEPS):
        answers = {f"answer{n}": f"a reply of some thirty characters {n}"}
        data = {"formId": form_id, "data": answers, "step": n, "answerKey": key}  # as the form's widget sends them
        bench.call("submit_form", data, subject, sizing=sizing)
    bench.call("get_form_response", {"formId": form_id}, subject, sizing=sizing)


def summarize(calls: Calls) -> list[ToolCost]:
    """Units from the sized runs, time from the timed ones (which did not pay for sizing), per tool."""
    costs = []
    for tool, sized in sorted(calls.samples.items()):
        if tool.endswith("(timed)"):
            continue
        timed = calls.samples.get(f"{tool} (timed)", sized)
        cpu = statistics.mean(s.cpu_ms for s in timed)
        requests = statistics.mean(s.requests for s in sized)
        billed = statistics.mean(
            math.ceil(s.cpu_ms * VCPU_MB / MEMORY_MB + s.requests * DYNAMODB_ROUND_TRIP_MS) for s in timed
        )
        costs.append(
            ToolCost(
                tool,
                len(sized),
                statistics.mean(s.read for s in sized),
                statistics.mean(s.write for s in sized),
                requests,
                cpu,
                billed,
                statistics.mean(s.log_bytes for s in timed),
            )
        )
    return costs


def table(costs: list[ToolCost]) -> str:
    lines = [
        "| tool | calls | read units | write units | table requests | CPU ms | billed ms | "
        "$ DynamoDB | $ Lambda | $ API GW | $ logs | $ per million calls |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    million = 1e6
    for c in costs:
        lines.append(
            f"| `{c.tool}` | {c.calls} | {c.read:.2f} | {c.write:.2f} | {c.requests:.1f} | {c.cpu_ms:.1f} | "
            f"{c.billed_ms:.0f} | {c.dynamodb * million:.2f} | {c.lambda_ * million:.2f} | "
            f"{prices.HTTP_API_PER_REQUEST * million:.2f} | {c.logs * million:.2f} | **{c.total * million:.2f}** |"
        )
    return "\n".join(lines)


def session_lines(costs: list[ToolCost], calls: Calls) -> list[str]:
    by_tool = {c.tool: c for c in costs}
    game = {"chess_new_game": len(calls.samples["chess_new_game"]), "chess_move": GAME_MOVES}
    friend = {"chess_new_game, friend": 1, "chess_move, friend": GAME_MOVES}
    form = {"ask_question": 1, "submit_form": FORM_STEPS, "get_form_response": 1}
    lines = []
    for name, mix in (
        (f"a {GAME_MOVES}-move game against the engine", game),
        (f"a game of {GAME_MOVES} moves between two people (each move a call)", friend),
        ("a three-step form", form),
    ):
        dollars = sum(by_tool[tool].total * count for tool, count in mix.items())
        spelled = " + ".join(f"{count:g} {tool}" for tool, count in mix.items())
        lines.append(f"- {name} ({spelled}): ${dollars:.6f}, ${dollars * 1e6:,.0f} per million sessions")
    return lines


def secrets_line() -> str:
    from widget_mcp.key_ring import REFRESH_SECONDS

    reads_per_hour = SECRETS * 3600 / REFRESH_SECONDS
    hourly = reads_per_hour * prices.SECRETS_MANAGER_PER_REQUEST
    monthly = SECRETS * prices.SECRETS_MANAGER_PER_SECRET_MONTH
    return (
        f"- Secrets Manager: not per call; {SECRETS} secrets read at an instance's first use and every "
        f"{REFRESH_SECONDS // 60} min while it is busy: {reads_per_hour:g} requests, ${hourly:.5f}, per busy "
        f"instance-hour (at 10 calls/s on one instance, ${hourly / 36_000 * 1e6:.4f} per million calls), "
        f"plus ${monthly:.2f} a month for storing them"
    )


def main() -> int:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs every request
    server = SerializedMotoServer()
    server.start()
    try:
        bench = Bench(server.url)
        with contextlib.redirect_stdout(io.StringIO()):
            game_session(bench, "cost-warm-up", sizing=False)  # imports, the engine's tables, the answer cache
            form_session(bench, "cost-warm-up", sizing=False)
        bench.calls = Calls()
        for sizing, subject in ((True, "cost-sized"), (False, "cost-timed")):
            game_session(bench, subject, sizing=sizing)
            game_session(bench, subject, sizing=sizing, engine=False)
            for _ in range(FORMS):
                form_session(bench, subject, sizing=sizing)
    finally:
        server.stop()
    costs = summarize(bench.calls)
    print(
        f"make cost: {prices.REGION} list prices as of {prices.PRICES_AS_OF} (bench/prices.py); Lambda arm64 "
        f"{MEMORY_MB} MB, CPU time x {VCPU_MB}/{MEMORY_MB} + {DYNAMODB_ROUND_TRIP_MS:g} ms per table request, "
        f"billed per started ms; measured on {os.uname().machine}, load average {os.getloadavg()[0]:.1f}"
    )
    print()
    print(table(costs))
    print()
    for line in [*session_lines(costs, bench.calls), secrets_line()]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
