"""What the matrix calls, derived from the app registry and the tools' declarations (never from a list of today's
tools): arguments that work from each tool's declared `examples` and defaults, the ids another tool's result
supplies (declared with `ids=` on `book.tool`, and which tool makes them), arguments that break each tool's input
schema, and an id no one was given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import find
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import from_regex
from jsonschema import Draft202012Validator
from served_tools import SERVED_SPECS, needs_identity
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL
from widget_mcp.toolkit.id_sources import IdSource, makers_of
from widget_mcp.toolkit.tools import ToolSpec

SPECS: dict[str, ToolSpec] = SERVED_SPECS


def output_schema(tool: str) -> dict[str, Any]:
    """The outputSchema the tool declares (a union where it declares an error payload): every client may check
    a result's structuredContent against it, errors included."""
    return SPECS[tool].output_schema


def schema_errors(schema: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in Draft202012Validator(schema).iter_errors(value)
    ]


def _properties(spec: ToolSpec) -> tuple[dict[str, dict[str, Any]], set[str]]:
    schema = spec.input_schema
    return dict(schema.get("properties", {})), set(schema.get("required", []))


def _argument_schema(spec: ToolSpec, name: str) -> dict[str, Any]:
    return {**spec.input_schema["properties"][name], "$defs": spec.input_schema.get("$defs", {})}


@dataclass(frozen=True)
class Producer:
    """The tool whose result makes an id, and the field of its structuredContent that holds it."""

    spec: ToolSpec
    field: str


def producer_of(argument: str, tool: str) -> Producer | None:
    """The tool that makes `argument` of `tool`, as `tool` declares it (`ids={argument: "maker.field"}` on
    `book.tool`); None for an argument it does not declare an id. Nothing is guessed from field names."""
    source = SPECS[tool].ids.get(argument)
    if source is None:
        return None
    assert source.tool in SPECS, f"{tool} declares ids[{argument!r}] = {str(source)!r}, and no app serves {source.tool}"
    return Producer(SPECS[source.tool], source.field)


def id_fields(tool: str) -> dict[str, Producer]:
    """The arguments of `tool` that another tool's result supplies (its declared ids), with the tool that makes
    each."""
    return {argument: producer for argument in sorted(SPECS[tool].ids) if (producer := producer_of(argument, tool))}


def ids_to_make(tool: str, given: set[str]) -> list[IdSource]:
    """The ids to make before calling `tool` with the arguments `given`, makers first, each once: those of its
    declared id arguments not given, and those their makers need in turn (a list's id, then its item's)."""
    order = makers_of(SPECS, tool)
    needed = {source for argument, source in SPECS[tool].ids.items() if argument not in given}
    for source in reversed(order):
        if source in needed:
            needed |= set(SPECS[source.tool].ids.values())
    return [source for source in order if source in needed]


def identity_hint(tool: str, code: object) -> str:
    """What to declare when `tool` answered identity_required to a call it was planned without identity for."""
    if code != "identity_required" or needs_identity(tool):
        return ""
    return f" ({tool} needs an identified user: declare needs_identity=True on its book.tool, and the tests send one)"


def form_tools() -> list[str]:
    """The tools a model may call that ask the user a form: those whose result makes the id the chat fallback's
    tool (RECORD_TOOL) records an answer to, as it declares."""
    return sorted({p.spec.name for p in id_fields(RECORD_TOOL).values() if p.spec.visibility != "private"})


def readers_of(tool: str) -> list[str]:
    """The read-only tools that take an id `tool`'s result makes (get_form_response for a form), as declared."""
    return [
        name
        for name, spec in SPECS.items()
        if spec.read_only and tool in {p.spec.name for p in id_fields(name).values()}
    ]


def shown_again_by(tool: str) -> list[str]:
    """The model-visible tools with a widget that take an id `tool`'s result makes (show_form for a form), as
    declared: they show it again."""
    return [
        name
        for name, spec in SPECS.items()
        if spec.widget is not None
        and spec.visibility != "private"
        and name != tool
        and tool in {p.spec.name for p in id_fields(name).values()}
    ]


def chat_answer(form: dict[str, Any]) -> dict[str, Any]:
    """A user's answer to every field of `form` (a JSON schema): a string, or a number at its minimum."""
    return {
        field: schema.get("minimum", 1) if schema.get("type") in ("integer", "number") else f"answer to {field}"
        for field, schema in form["properties"].items()
    }


def unplanned_arguments(tool: str) -> list[str]:
    """Required arguments the plan fills with a made-up placeholder: no example, no default, no declared id."""
    properties, required = _properties(SPECS[tool])
    ids = SPECS[tool].ids
    return [
        name
        for name in sorted(required)
        if name not in ids and not properties[name].get("examples") and properties[name].get("default") is None
    ]


def planning_hint(tool: str) -> str:
    """What to declare so that a derived call of `tool` can be planned: empty when every argument is planned."""
    unplanned = unplanned_arguments(tool)
    if not unplanned:
        return ""
    names = ", ".join(unplanned)
    example = unplanned[0]
    return (
        f" (the plan made up {names}: if {example} is an id another tool's result makes, declare it on {tool}'s "
        f'book.tool: ids={{"{example}": "that_tool.itsOutputField"}}; otherwise give it examples=[…] in its Field)'
    )


_TYPE_PLACEHOLDERS: dict[str, Any] = {"boolean": False, "object": {}, "array": [], "string": "example"}


def _placeholder(schema: dict[str, Any]) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if schema.get("type") in ("integer", "number"):
        return schema.get("minimum", 0)
    return _TYPE_PLACEHOLDERS.get(schema.get("type", ""), "example")


def example_arguments(tool: str) -> dict[str, Any]:
    """The arguments the playground starts from, ids left out: each argument's first declared example, else its
    default, else (when required) its first enum value or a placeholder of its type."""
    spec = SPECS[tool]
    properties, required = _properties(spec)
    ids = id_fields(tool)
    args: dict[str, Any] = {}
    for name, schema in properties.items():
        if name in ids:
            continue
        if schema.get("examples"):
            args[name] = schema["examples"][0]
        elif schema.get("default") is not None:
            args[name] = schema["default"]
        elif name in required:
            args[name] = _placeholder(schema)
    return args


# Values of every JSON type; an argument gets the first its schema refuses.
_WRONG_VALUES: tuple[Any, ...] = ([1, 2], {"unexpected": True}, 12345, "not this", True)


def invalid_arguments(tool: str) -> dict[str, Any] | None:
    """Arguments the tool's input schema refuses: its required arguments left out; else its first argument given a
    value of a type the schema does not admit; else an argument it does not declare. None if it accepts anything."""
    spec = SPECS[tool]
    properties, required = _properties(spec)
    if required:
        return {}
    for name in properties:
        for wrong in _WRONG_VALUES:
            if schema_errors(_argument_schema(spec, name), wrong):
                return {name: wrong}
    if spec.input_schema.get("additionalProperties") is False:
        return {"unexpected_argument": 1}
    return None


_UNKNOWN_IDS = ("unknown-id-0000", "unknown0000", "0")


def identity_probe(tool: str) -> dict[str, Any]:
    """Arguments `tool`'s schema admits, its ids made up (nothing made them): a client sends the call, and a tool that
    needs an identified user refuses it before reading any (identity_required)."""
    return {**example_arguments(tool), **{field: unknown_id(tool, field) for field in id_fields(tool)}}


def unknown_id(tool: str, field: str) -> str:
    """A well-formed id (it passes the argument's schema, so the tool itself looks it up) that nothing returned: a
    made-up one, else the argument's declared example (no test makes an id from it), else the simplest string its
    `pattern` matches (ids are random, so none of these names anything)."""
    schema = _argument_schema(SPECS[tool], field)
    for candidate in (*_UNKNOWN_IDS, *schema.get("examples", ())):
        if isinstance(candidate, str) and not schema_errors(schema, candidate):
            return candidate
    if isinstance(pattern := schema.get("pattern"), str):
        try:
            fitting: str = find(from_regex(pattern, fullmatch=True), lambda value: not schema_errors(schema, value))
        except NoSuchExample:
            pass
        else:
            return fitting
    raise AssertionError(
        f"{tool}.{field}: no made-up id fits its schema; declare an example value for {field!r} on its Field "
        "(examples=[...]) that fits it"
    )
