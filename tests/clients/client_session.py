"""One client connected in one protocol era, as the tests use it: calls, and the checks every result must pass in
every client (a result a client could not hand over is a failure that names the client, the call and the throw)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from client_driver import Driver
from client_plan import output_schema, schema_errors
from client_specs import ClientSpec


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
    def structured(self) -> dict[str, Any]:
        structured = self.result.get("structuredContent")
        assert isinstance(structured, dict), f"{self.where}: no structuredContent in {self.result}"
        return structured

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self.result.get("_meta") or {})

    @property
    def error(self) -> dict[str, Any]:
        """`_meta.error` ({code, message}), where widgets and programs read an error's code."""
        error = self.meta.get("error")
        assert isinstance(error, dict), f"{self.where}: an error result without _meta.error: {self.result}"
        return error


class ClientSession:
    """A client of the matrix connected in `era`, with the tools listed (hosts list them first; the TypeScript SDK
    v1 validates results against the outputSchemas the listing gave it)."""

    def __init__(self, driver: Driver, spec: ClientSpec, era: str) -> None:
        self.driver, self.spec, self.era = driver, spec, era
        self.name = f"{spec.name} ({era})"
        connected = driver.ask("connect", era=era)
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

    def call(self, tool: str, arguments: dict[str, Any]) -> Outcome:
        where = f"{self.name}: {tool}({json.dumps(arguments)[:300]})"
        return Outcome(where, self.driver.ask("call_tool", name=tool, arguments=arguments))

    def succeeds(self, tool: str, arguments: dict[str, Any]) -> Outcome:
        """Call `tool` and check the result is a success whose structuredContent fits the tool's outputSchema."""
        outcome = self.call(tool, arguments)
        assert not outcome.is_error, f"{outcome.where} failed: {outcome.text}"
        problems = schema_errors(output_schema(tool), outcome.structured)
        assert problems == [], f"{outcome.where}: structuredContent does not fit the outputSchema: {problems}"
        assert outcome.text.strip(), f"{outcome.where}: a success with no text for the model"
        return outcome

    def fails(self, tool: str, arguments: dict[str, Any], code: str | None = None) -> Outcome:
        """Call `tool` and check the client got an error result (not a throw) whose text is the sentence in
        `_meta.error`, with `code` when given, and structuredContent only where it fits the outputSchema."""
        outcome = self.call(tool, arguments)
        thrown = outcome.thrown
        assert thrown is None, (
            f"{outcome.where} threw {thrown['type']} instead of returning the error result: {thrown['message']}"
        )
        assert outcome.is_error, f"{outcome.where} succeeded, an error was expected: {outcome.text}"
        error = outcome.error
        if code is not None:
            assert error.get("code") == code, f"{outcome.where}: error {error.get('code')!r}, not {code!r}: {error}"
        assert outcome.text.strip(), f"{outcome.where}: an error result with no sentence in its content"
        assert outcome.text == error.get("message"), (
            f"{outcome.where}: the content's text {outcome.text!r} is not the error's sentence {error.get('message')!r}"
        )
        if outcome.result.get("structuredContent") is not None:
            problems = schema_errors(output_schema(tool), outcome.result["structuredContent"])
            assert problems == [], (
                f"{outcome.where}: an error's structuredContent must fit the outputSchema or be absent: {problems}"
            )
        return outcome
