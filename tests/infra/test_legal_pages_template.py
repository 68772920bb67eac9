"""The stack deploys the legal pages with the bundles, written from the served apps and its own constants, and
outputs their URLs; `-c publisherName`/`-c supportContact` name who runs it, and a bad contact fails synth."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING
from widget_mcp.apps.registry import APPS, app_name
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.cdk.served_apps import served_books
from widget_mcp.publishing.legal import LEGAL_PREFIX, PAGES

from infra.app import build_app


def _legal_deployment(template: Template) -> dict[str, Any]:
    (found,) = [
        d["Properties"]
        for d in template.find_resources("Custom::CDKBucketDeployment").values()
        if d["Properties"]["DestinationBucketKeyPrefix"] == LEGAL_PREFIX
    ]
    return found


def test_the_pages_ship_with_the_bundles_name_the_served_apps_data_and_are_stack_outputs(
    tmp_path: Path, fake_bundles: Path
) -> None:
    chosen = app_name(APPS[-1])
    context = {**NO_BUNDLING, "apps": chosen, "logRetentionDays": "90", "supportContact": "help@example.com"}
    app, stack = build_app(outdir=str(tmp_path), context=context, bundle_dir=fake_bundles)
    template = Template.from_stack(stack)
    legal = _legal_deployment(template)
    assert legal["Prune"] is False
    assert legal["SystemMetadata"]["content-type"].startswith("text/html")
    assert len(legal["SourceObjectKeys"]) == len(PAGES)
    outputs = template.to_json()["Outputs"]
    for page in PAGES:
        joined = outputs[f"{page.title()}Url"]["Value"]["Fn::Join"][1]
        assert joined[-1] == f"/{LEGAL_PREFIX}/{page}.html"
    # The pages themselves are assets in the cloud assembly: the privacy page names the served app's data only.
    assembly = app.synth()
    texts = [p.read_text() for p in Path(assembly.directory).rglob("privacy.html")]
    assert len(texts) == 1
    privacy = texts[0]
    for item in (d for book in served_books((APPS[-1],)) for d in book.stored):
        assert item.what in privacy
    others = [d for entry in APPS[:-1] for book in served_books((entry,)) for d in book.stored]
    assert all(d.what not in privacy for d in others)
    assert "90 days, then deleted by CloudWatch Logs" in privacy
    assert "mailto:help@example.com" in privacy


@pytest.mark.parametrize(
    ("context", "sentence"),
    [
        ({"supportContact": "not a contact"}, r"^supportContact must be an email address or an https URL"),
        ({"supportContact": "http://example.com"}, r"^supportContact must be"),
        ({"publisherName": "x" * 121}, r"^publisherName must be one printable line"),
    ],
)
def test_a_bad_publisher_or_contact_fails_synth_naming_its_key(
    bare_stack: Callable[..., cdk.Stack], context: dict[str, str], sentence: str
) -> None:
    with pytest.raises(ConfigError, match=sentence):
        ServiceOptions.from_context(bare_stack(**context).node)
