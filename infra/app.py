"""The CDK app: `python -m infra.app` (what cdk.json runs) synthesizes into cdk.out/, checked by cdk-nag."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from widget_mcp.cdk import ConfigError, options_from_context
from widget_mcp.lambda_asset.target import AssetBuildFailed

from infra.stack import BUNDLE_DIR, WidgetMcpStack

ROOT = Path(__file__).resolve().parents[1]
STACK_NAME = "WidgetMcp"


def build_app(
    *, outdir: str | None = None, context: dict[str, Any] | None = None, bundle_dir: Path = BUNDLE_DIR
) -> tuple[cdk.App, WidgetMcpStack]:
    # The CLI passes its output directory in CDK_OUTDIR; a plain `python -m infra.app` writes cdk.out/ too.
    app = cdk.App(outdir=outdir or os.environ.get("CDK_OUTDIR") or str(ROOT / "cdk.out"), context=context)
    config = options_from_context(app.node)
    env = cdk.Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION"))
    stack = WidgetMcpStack(
        app, str(app.node.try_get_context("stackName") or STACK_NAME), config=config, bundle_dir=bundle_dir, env=env
    )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app, stack


def main() -> None:
    try:
        app, _ = build_app()
        app.synth()
    except ConfigError as exc:  # a `-c` value: its sentence names the key, a traceback would only bury it
        sys.exit(f"cannot synthesize: {exc}")
    except RuntimeError as exc:  # jsii re-raises a failure of the asset's bundling hook as its own RuntimeError
        sentence = AssetBuildFailed.found_in(exc)
        if sentence is None:
            raise
        sys.exit(f"cannot synthesize: {sentence}")


if __name__ == "__main__":
    main()
