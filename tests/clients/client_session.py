"""One client connected in one protocol era, as the tests use it: calls, and the checks every result must pass in
every client (a result a client could not hand over is a failure that names the client, the call and the throw)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from client_driver import Driver
from client_plan import (
    SPECS,
    example_arguments,
    identity_hint,
    ids_to_make,
    needs_identity,
    output_schema,
    planning_hint,
    schema_errors,
)
from client_specs import ClientSpec
from form_keys import answer_key, keyed
from served_tools import SERVED_TOOLS
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL
from widget_mcp.toolkit.id_sources import IdSource

# A user's answer to a form the server asks for during a call (an ElicitResult: action, and content if accepted).
Answer = dict[str, Any]
DECLINE: Answer = {"action": "decline"}


@dataclass(frozen=True)
class Outcome:
    """What one client made of one tools/call: a result, or what it threw instead."""

    where: str
    answer: dict[str, Any]

    @property
    def thrown(self) -> dict[str, Any] | None:
        return None if self.answer["ok"] else self.answer["error"]

    @property
    def result(self) -> dict[str, Any]:
        thrown = self.thrown
        assert thrown is None, f"{self.where} threw {thrown['type']}: {thrown['message']}"
        result: dict[str, Any] = self.answer["result"]
        return result

    @property
    def is_error(self) -> bool:
        return bool(self.result.get("isError"))

    @property
    def text(self) -> str:
        return "\n".join(block.get("text", "") for block in self.result.get("content") or [])

    @property
    def narration(self) -> str:
        """The first text block: a success's narration, an error's sentence."""
        blocks = self.result.get("content") or []
        assert blocks, f"{self.where}: a result with no content"
        assert blocks[0].get("type") == "text", f"{self.where}: no text first in {blocks}"
        return str(blocks[0]["text"])

    def assert_text_carries_structure(self) -> None:
        """What a framework that hands its model only the text passes on: after the narration, the structuredContent
        as JSON, so the model has the state (a FEN, a ply, a form's answers) without reading structuredContent."""
        structured = self.result.get("structuredContent")
        if structured is None:
            return
        blocks = self.result.get("content") or []
        assert len(blocks) > 1, f"{self.where}: no serialized result in {blocks}"
        assert blocks[1].get("type") == "text", f"{self.where}: no serialized result in {blocks}"
        assert json.loads(blocks[1]["text"]) == structured, f"{self.where}: the text says {blocks[1]['text']!r}"

    @property
    def structured(self) -> dict[str, Any]:
        structured = self.result.get("structuredContent")
        assert isinstance(structured, dict), f"{self.where}: no structuredContent in {self.result}"
        return structured

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self.result.get("_meta") or {})

    @property
    def asked(self) -> list[dict[str, Any]]:
        """The params of each form the server asked the client to show during the call (elicitation/create)."""
        asked: list[dict[str, Any]] = self.answer.get("asked") or []
        return asked

    @property
    def resumed(self) -> int:
        """How often the client resumed the call's stream (GET with Last-Event-ID) before it had the result."""
        return int(self.answer.get("resumed") or 0)

    @property
    def error(self) -> dict[str, Any]:
        """`_meta.error` ({code, message}), where widgets and programs read an error's code."""
        error = self.meta.get("error")
        assert isinstance(error, dict), f"{self.where}: an error result without _meta.error: {self.result}"
        return error


class ClientSession:
    """A client of the matrix connected in `era`, with the tools listed (hosts list them first; the TypeScript SDK
    v1 validates results against the outputSchemas the listing gave it).

    `declares` is what the client says it can do, for the drivers that can play a host (ClientSpec.answers_input):
    "elicitation" (it shows the server's forms as its own and answers them) and "apps" (it shows widgets).
    `known`: whether the server knows what the client declared on each call (every 2026-07-28 request carries it; a
    2025-11-25 one only in a kept session, with RESUMABLE_STREAMS on). Where it knows the client shows no widget,
    app-only tools are left out of tools/list and refused (`app_only`)."""

    def __init__(
        self, driver: Driver, spec: ClientSpec, era: str, declares: tuple[str, ...] = (), *, known: bool = True
    ) -> None:
        self.driver, self.spec, self.era = driver, spec, era
        self.hides_app_tools = known and "apps" not in declares
        # The host shows the server's forms itself (as widgets, or as its own forms): none is asked in chat.
        self.shows_forms = bool({"apps", "elicitation"} & set(declares))
        self.name = f"{spec.name} ({era}{''.join(f', {d}' for d in declares)})"
        # Who the client's calls come from where a tool needs an identified user: ChatGPT's openai/subject, a user of
        # the client and era's own for each planned chain of calls (with_ids), so that no test's state counts against
        # another's quotas (a user's live spaces are counted across every app that makes them).
        self._user = "-".join(("matrix", spec.key, era, *declares))
        self._chains = 0
        self.identity = {"openai/subject": self._user}
        connected = driver.ask("connect", era=era, **({"declares": list(declares)} if declares else {}))
        assert connected["ok"], f"{self.name} could not connect: {connected['error']}"
        assert connected["version"] == spec.version, (
            f"{spec.library}: the driver loaded {connected['version']}, the matrix names {spec.version}"
        )
        assert connected["protocolVersion"] == era, f"{self.name} negotiated {connected['protocolVersion']}"
        listed = driver.ask("list_tools")
        assert listed["ok"], f"{self.name} could not list the tools: {listed['error']}"
        self.tools: dict[str, dict[str, Any]] = {tool["name"]: tool for tool in listed["tools"]}

    def read(self, uri: str) -> list[dict[str, Any]]:
        answer = self.driver.ask("read_resource", uri=uri)
        assert answer["ok"], f"{self.name} could not read {uri}: {answer['error']}"
        contents: list[dict[str, Any]] = answer["contents"]
        return contents

    def call(
        self, tool: str, arguments: dict[str, Any], answer: Answer | None = None, *, identified: bool | None = None
    ) -> Outcome:
        """Call `tool`; `answer` is what the user answers if the server asks for a form during the call (a client
        asked with no answer given answers the server with an error). `identified`: whether the call carries the
        client's user identity (`_meta`), by default where the tool's plan needs one (client_plan.needs_identity)."""
        as_user = needs_identity(tool) if identified is None else identified
        where = f"{self.name}: {tool}({json.dumps(arguments)[:300]}){'' if as_user else ' without identity'}"
        given = {"answer": answer} if answer is not None else {}
        if as_user:
            given["meta"] = self.identity
        return Outcome(where, self.driver.ask("call_tool", name=tool, arguments=arguments, **given))

    def resumed_after_settling(self, within_seconds: float) -> list[int]:
        """The HTTP statuses of the resumptions (GET with Last-Event-ID) the client made after its last call
        settled, once there is one or `within_seconds` has passed with none."""
        answer = self.driver.ask("resumed_after_settling", within_ms=round(within_seconds * 1000))
        assert answer["ok"], f"{self.name}: {answer['error']}"
        statuses: list[int] = answer["statuses"]
        return statuses

    def refuses(self, tool: str) -> bool:
        """Whether the server refuses `tool` to this client: an app-only tool, where it shows no widget."""
        return self.hides_app_tools and SPECS[tool].visibility == "private"

    def refusal(self, tool: str) -> str | None:
        """The error code `tool`'s example call gets in this client, or None when it succeeds: an app-only tool's
        where the client shows no widget; recording a chat answer where the host showed the form itself."""
        if self.refuses(tool):
            return "app_only"
        return "answered_in_form" if tool == RECORD_TOOL and self.shows_forms else None

    @property
    def offered_tools(self) -> list[str]:
        """The tools this client is listed, in order: app-only ones left out where the listing request says the
        client shows no widget (a 2026-07-28 request carries its capabilities; a 2025-11-25 one names its session,
        which keeps them)."""
        hidden = self.hides_app_tools
        return [tool for tool in SERVED_TOOLS if not (hidden and SPECS[tool].visibility == "private")]

    def with_ids(self, tool: str, arguments: dict[str, Any], answer: Answer | None = None) -> dict[str, Any]:
        """`arguments` with each id the tool needs and lacks made fresh by the tool that makes it, makers first
        through a declared chain (a list, then its item in that list), each id once and as the user `tool` is
        called as; and, for a tool that takes a form's answer key, the key that form came with, as the form's widget
        sends it."""
        identified = needs_identity(tool)
        if identified:
            self._chains += 1
            self.identity = {"openai/subject": f"{self._user}-{self._chains}"}
        made: dict[IdSource, Any] = {}
        for source in ids_to_make(tool, set(arguments)):
            maker = SPECS[source.tool]
            given = {argument: made[s] for argument, s in maker.ids.items() if s in made}
            outcome = self.succeeds(
                source.tool,
                self._keyed(source.tool, {**example_arguments(source.tool), **given}),
                answer,
                identified=identified,
            )
            assert source.field in outcome.structured, (
                f"{outcome.where}: no {source.field!r} in its result, which {tool} declares an id from"
            )
            answer_key(outcome.result)
            made[source] = outcome.structured[source.field]
        filled = {argument: made[s] for argument, s in SPECS[tool].ids.items() if argument not in arguments}
        return self._keyed(tool, {**arguments, **filled})

    @staticmethod
    def _keyed(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return keyed(arguments) if "answerKey" in SPECS[tool].input_schema.get("properties", {}) else arguments

    def succeeds(
        self, tool: str, arguments: dict[str, Any], answer: Answer | None = None, *, identified: bool | None = None
    ) -> Outcome:
        """Call `tool` and check the result is a success whose structuredContent fits the tool's outputSchema."""
        outcome = self.call(tool, arguments, answer, identified=identified)
        assert not outcome.is_error, (
            f"{outcome.where} failed: {outcome.text}{planning_hint(tool)}"
            f"{identity_hint(tool, outcome.meta.get('error', {}).get('code'))}"
        )
        problems = schema_errors(output_schema(tool), outcome.structured)
        assert problems == [], f"{outcome.where}: structuredContent does not fit the outputSchema: {problems}"
        assert outcome.narration.strip(), f"{outcome.where}: a success with no text for the model"
        outcome.assert_text_carries_structure()
        return outcome

    def fails(
        self,
        tool: str,
        arguments: dict[str, Any],
        code: str | None = None,
        answer: Answer | None = None,
        *,
        identified: bool | None = None,
    ) -> Outcome:
        """Call `tool` and check the client got an error result (not a throw) whose text is the sentence in
        `_meta.error`, with `code` when given, and structuredContent only where it fits the outputSchema."""
        outcome = self.call(tool, arguments, answer, identified=identified)
        thrown = outcome.thrown
        assert thrown is None, (
            f"{outcome.where} threw {thrown['type']} instead of returning the error result: {thrown['message']}"
        )
        assert outcome.is_error, f"{outcome.where} succeeded, an error was expected: {outcome.text}"
        error = outcome.error
        if code is not None:
            assert error.get("code") == code, f"{outcome.where}: error {error.get('code')!r}, not {code!r}: {error}"
        assert outcome.narration.strip(), f"{outcome.where}: an error result with no sentence in its content"
        assert outcome.narration == error.get("message"), (
            f"{outcome.where}: the content's text {outcome.narration!r} is not the error's sentence "
            f"{error.get('message')!r}"
        )
        outcome.assert_text_carries_structure()
        if outcome.result.get("structuredContent") is not None:
            problems = schema_errors(output_schema(tool), outcome.result["structuredContent"])
            assert problems == [], (
                f"{outcome.where}: an error's structuredContent must fit the outputSchema or be absent: {problems}"
            )
        return outcome
