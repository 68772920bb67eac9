"""`make load SCENARIO=hot`'s driver, briefly (a count of attempts, not a duration): eight users race moves on one
game and two answer one form, over HTTP against the app with DynamoDB on moto; the server takes one move per ply
and one answer per step, and the ledger comes back clean."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_app, build_core

from bench.load_hot import FORM_EVERY, HotPlan, drive_hot, partition_lines
from bench.load_ledger import check
from bench.load_users import read_back

TABLE = "load-hot-state"
USERS = 2 * FORM_EVERY + 2  # two on the form, the rest on the game


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as env, moto_dynamodb(TABLE) as dynamodb:
        env.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        settings = Settings(
            allowed_hosts=("127.0.0.1:*",),
            widget_base_url="https://d111111abcdef8.cloudfront.net/widgets",
            table_name=TABLE,
            rate_limit_calls=0,  # every user is one principal: the scenario measures the game, not the caller's limit
        )
        store = DynamoDbDocumentStore(client_for(dynamodb), TABLE)
        with serve(build_app(build_core(settings, concurrent=True, store=store))) as served:
            yield served


def test_many_users_racing_on_one_game_and_one_form_lose_and_double_nothing(url: str) -> None:
    tally, ledger, counts, hot = asyncio.run(drive_hot(url, HotPlan(users=USERS, deadline=None, attempts=12, seed=3)))
    verdict = check(ledger, asyncio.run(read_back(url, ledger)))
    assert verdict.clean, verdict.summary()
    assert verdict.moves == counts.moves_accepted + counts.moves_repeated
    assert counts.moves_accepted > 0
    assert counts.moves_refused > 0, "users at one ply race: the server refuses all but one"
    assert tally.outcomes["chess_move"]["conflict"] > 0
    assert set(tally.outcomes["chess_move"]) <= {"ok", "conflict", "game_over"}
    played = Counter((m.game_id, m.ply) for m in set(ledger.moves))  # one move per ply, however many sent it
    assert played.most_common(1)[0][1] == 1
    assert len(played) == counts.moves_accepted
    assert verdict.answers == counts.answers_accepted > 0
    assert sorted({(a.form_id, a.step) for a in ledger.answers}) == sorted((a.form_id, a.step) for a in ledger.answers)
    assert hot.games == len(ledger.games)
    assert hot.forms == len(ledger.forms)
    lines = partition_lines(counts)
    assert f"{counts.moves_accepted} moves accepted" in lines[0]
    assert "of the 1,000 WCU/s a partition takes" in lines[1]
