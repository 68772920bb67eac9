"""Infra fixtures: the whole CDK app synthesized once per session (with cdk-nag), and small single-construct stacks."""

from __future__ import annotations

import os

# Before aws_cdk starts jsii: its Node 20 end-of-life banner is noise here (infra/__init__.py does the same).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING, Synthesized
from worker_groups import once_per_run

from infra.app import build_app

HASHED_FILE = "assets/display-3f9a1c0d.js"


@pytest.fixture(scope="session")
def fake_bundles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built-bundles stand-in, so tests never depend on widget_bundles/dist."""
    dist = tmp_path_factory.mktemp("dist")
    (dist / "assets").mkdir()
    (dist / HASHED_FILE).write_text("export {};\n")
    (dist / "manifest.json").write_text(json.dumps({"entries": {"display": {"js": HASHED_FILE, "css": []}}}))
    return dist


@once_per_run
def synthesized(tmp_path_factory: pytest.TempPathFactory, fake_bundles: Path) -> Synthesized:
    """The real app (cdk-nag on) synthesized once; synth raises if any finding is unacknowledged."""
    outdir = tmp_path_factory.mktemp("cdk.out")
    app, stack = build_app(outdir=str(outdir), context=NO_BUNDLING, bundle_dir=fake_bundles)
    app.synth()
    return Synthesized(app, stack, Template.from_stack(stack), outdir)


@once_per_run
def with_sign_in(tmp_path_factory: pytest.TempPathFactory, fake_bundles: Path) -> Synthesized:
    """The real app with `-c signIn=true` (and a local callback URL), synthesized once, cdk-nag on."""
    outdir = tmp_path_factory.mktemp("cdk.out.sign-in")
    context = {**NO_BUNDLING, "signIn": "true", "signInCallbackUrls": "http://localhost:6274/oauth/callback"}
    app, stack = build_app(outdir=str(outdir), context=context, bundle_dir=fake_bundles)
    app.synth()  # cdk-nag runs here: every finding on the sign-in resources is fixed or acknowledged with a reason
    return Synthesized(app, stack, Template.from_stack(stack), outdir)


@pytest.fixture
def bare_stack() -> Callable[..., cdk.Stack]:
    """Make an empty stack in a fresh app (bundling skipped), for construct-level variants."""

    def make(**context: Any) -> cdk.Stack:
        app = cdk.App(context={**NO_BUNDLING, **context})
        return cdk.Stack(app, "Probe")

    return make
