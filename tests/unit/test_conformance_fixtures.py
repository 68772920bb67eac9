"""The conformance suite's fixtures: served only on request and never in Lambda; the runner's score and baseline."""

from __future__ import annotations

import pytest
from widget_mcp.apps.registry import APPS, CONFORMANCE_APP
from widget_mcp.settings import Settings, SettingsError, load_settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_books

from tests.conformance.run_suite import Score, baseline_problems, score_of

REPORT = """\
=== SUMMARY ===
✗ server-stateless: 21 passed, 4 failed
✓ tools-list: 4 passed, 0 failed
✓ tools-call-simple-text: 2 passed, 0 failed
✗ tasks-lifecycle: 1 passed, 8 failed
✓ http-header-validation: 14 passed, 0 failed

Total: 42 passed, 12 failed

Not scored for 2026-07-28: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✗ tasks-lifecycle (extension)
  ✓ http-header-validation (pending)
"""


def served_tools(settings: Settings) -> set[str]:
    return {name for book in build_books(settings, InMemoryDocumentStore()) for name in book.tools}


def test_the_fixtures_are_served_only_when_conformance_is_on() -> None:
    fixtures = served_tools(Settings(conformance=True)) - served_tools(Settings())
    assert "test_simple_text" in fixtures
    assert not any(name.startswith("test_") for name in served_tools(Settings()))
    assert CONFORMANCE_APP not in APPS


def test_conformance_is_refused_inside_lambda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "widget-mcp")
    monkeypatch.setenv("CONFORMANCE", "1")
    with pytest.raises(SettingsError, match="CONFORMANCE=1"):
        load_settings()


def test_resumable_streams_are_on_by_default_and_the_setting_turns_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    for conformance in ("1", "0"):
        monkeypatch.setenv("CONFORMANCE", conformance)
        monkeypatch.delenv("RESUMABLE_STREAMS", raising=False)
        assert load_settings().resumable_streams is True
        monkeypatch.setenv("RESUMABLE_STREAMS", "0")
        assert load_settings().resumable_streams is False


def test_the_score_counts_only_the_scenarios_the_revision_scores() -> None:
    score = score_of("2026-07-28", REPORT)
    assert score == Score(
        revision="2026-07-28",
        scored_passed=2,
        scored_total=3,
        checks_passed=27,
        checks_total=31,
        unscored={"tasks-lifecycle": (1, 9), "http-header-validation": (14, 14)},
        failing=frozenset({"server-stateless", "tasks-lifecycle"}),
    )
    assert score.summary() == (
        "MCP 2026-07-28: 2 of 3 scored scenarios pass (27 of 31 checks); not scored (extension, pending): 1 of 2 pass"
    )


def test_a_failure_missing_from_the_baseline_and_a_listed_scenario_that_passes_are_both_problems() -> None:
    score = score_of("2026-07-28", REPORT.replace("✓ tools-list", "✗ tools-list"))
    problems = baseline_problems(score)
    assert any(p.startswith("tools-list fails and") for p in problems)
    listed = "tools-list"
    listed_but_passing = score_of("2026-07-28", REPORT)
    problems = baseline_problems(listed_but_passing, expected=frozenset({listed}))
    assert any(p.startswith(f"{listed} passes now") for p in problems)
