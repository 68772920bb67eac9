"""The scripted model every agent-framework driver plugs into its framework's agent loop (python/*_driver.py of the
agent matrix): its first turn calls the one tool a run names, its next turn keeps what the framework handed it as
that tool's output and ends the run. No LLM: what the tests check is what a model would read. Standard library
only, like driver_loop.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FINAL_TEXT = "done"


@dataclass
class Script:
    """One run: the call the model makes, what it was offered and what it saw (set by the driver's model)."""

    tool: str
    arguments: dict[str, Any]
    call_id: str = "call_1"
    offered: list[str] = field(default_factory=list)
    seen: list[Any] = field(default_factory=list)
    turns: int = 0

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments)

    def next_turn(self, offered: list[str]) -> bool:
        """Counts a model turn; True when this turn should call the tool (the first), False when it should end."""
        self.turns += 1
        if self.turns == 1:
            self.offered = sorted(offered)
        return self.turns == 1

    def answer(self) -> dict[str, Any]:
        """What the driver sends back: the tools offered and each tool output the model was handed, as JSON."""
        return {"offered": self.offered, "seen": [_plain(item) for item in self.seen], "turns": self.turns}


def _plain(value: Any) -> Any:
    """A framework's tool output as JSON (pydantic models dumped, anything else as its text)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    try:
        json.dumps(value)
    except TypeError:
        return str(value)
    return value
