"""A resource template names the URIs a regex of `[^/?#]+` variables would (each value as long as the rest allows),
matched piece by piece so that its work grows with the URI alone, and no URI past MAX_URI_LENGTH is matched."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from widget_mcp.toolkit.errors import CatalogError
from widget_mcp.toolkit.resources import MAX_URI_LENGTH, ResourceTemplateSpec, check_uri_length

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def spec(template: str) -> ResourceTemplateSpec:
    names = _VARIABLE.findall(template)
    handler = eval(f"lambda {', '.join(names)}: ''")  # a function whose parameters are the variables
    return ResourceTemplateSpec(template, "r", "R", "A resource.", "text/plain", handler)


def backtracking(template: str, uri: str) -> dict[str, str] | None:
    """What a regex of the template names: the meaning the matcher keeps, at a cost quadratic in the URI."""
    pattern = "".join(
        f"(?P<{part}>[^/?#]+)" if index % 2 else re.escape(part) for index, part in enumerate(_VARIABLE.split(template))
    )
    found = re.fullmatch(pattern, uri)
    return None if found is None else found.groupdict()


LITERALS = st.text(alphabet="ab./?#:", max_size=3)
TEMPLATES = st.lists(LITERALS, min_size=2, max_size=5).map(
    lambda literals: "x:" + "".join(f"{text}{{v{i}}}" for i, text in enumerate(literals[:-1])) + literals[-1]
)


@settings(max_examples=400, deadline=None)
@given(template=TEMPLATES, rest=st.text(alphabet="ab./?#:", max_size=14))
def test_a_template_names_the_uris_and_values_its_regex_would(template: str, rest: str) -> None:
    for uri in ("x:" + rest, "x:a" + rest, "x:a.b" + rest):
        assert spec(template).match(uri) == backtracking(template, uri), (template, uri)


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("files://{name}.{ext}", "files://report.final.pdf", {"name": "report.final", "ext": "pdf"}),
        ("files://{name}.{ext}", "files://report", None),
        ("files://{name}.{ext}", "files://a.b/c", None),
        ("test://template/{id}/data", "test://template/42/data", {"id": "42"}),
        ("test://template/{id}/data", "test://template//data", None),
        ("notes://{topic}", "notes://caf%C3%A9", {"topic": "café"}),
        ("pair://{a}{b}", "pair://xyz", {"a": "xy", "b": "z"}),
        ("q://{q}?page={n}", "q://a?b?page=3", None),
        ("q://{q}?page={n}", "q://ab?page=3", {"q": "ab", "n": "3"}),
    ],
)
def test_a_template_takes_each_value_as_long_as_the_rest_allows(
    template: str, uri: str, expected: dict[str, str] | None
) -> None:
    assert spec(template).match(uri) == expected


def test_a_uri_past_max_uri_length_is_refused_before_any_template_reads_it() -> None:
    long = "files://" + "a." * MAX_URI_LENGTH + "txt"

    assert spec("files://{name}.{ext}").match(long) is None
    with pytest.raises(CatalogError) as refused:
        check_uri_length(long)
    assert refused.value.kind == "invalid_params"
    assert f"at most {MAX_URI_LENGTH:,}" in refused.value.message
    assert check_uri_length("files://a.txt") == "files://a.txt"
