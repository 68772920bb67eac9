"""The generated project's CDK app: one stack holding one `WidgetMcpService` that serves the project's app."""

from __future__ import annotations

from pathlib import Path
from string import Template

CDK_APP = '''"""The CDK app: `make synth` writes cdk.out/ (checked by cdk-nag), `make deploy` deploys what it wrote.

Deployment choices are CDK context keys, as on the command line of the toolkit's own stack:
`make synth CDK_ARGS="-c stage=prod -c alarmEmail=ops@example.com"`.
"""

from __future__ import annotations

import os
import sys
from itertools import pairwise
$path_import
import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from widget_mcp.cdk import ConfigError, WidgetMcpService, options_from_context

# The app's packages, importable however the CDK app is run (make synth, `npx cdk synth`, an IDE).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

# The packages under src/ this deployment serves (the Makefile's WIDGET_MCP_APPS says the same for make dev).
APPS = ["$name"]
STACK_NAME = "$stack"
# The widget bundles the CDN serves: $bundles_note
BUNDLES = $bundles


def context_arguments(argv: list[str]) -> dict[str, str]:
    """`-c key=value` pairs, as the CDK CLI takes them, for a synth run without the CLI."""
    context: dict[str, str] = {}
    for flag, pair in pairwise(argv):
        if flag in ("-c", "--context") and "=" in pair:
            key, value = pair.split("=", 1)
            context[key] = value
    return context


def build_app(context: dict[str, str] | None = None) -> cdk.App:
    app = cdk.App(outdir=os.environ.get("CDK_OUTDIR") or "cdk.out", context=context)
    env = cdk.Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION"))
    stack = cdk.Stack(app, str(app.node.try_get_context("stackName") or STACK_NAME), env=env)
    options = options_from_context(app.node, apps=APPS)
    WidgetMcpService(stack, "Service", apps=APPS, options=options, bundle_dir=BUNDLES)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def main() -> None:
    try:
        build_app(context_arguments(sys.argv[1:])).synth()
    except ConfigError as exc:  # a `-c` value: its sentence names the key
        sys.exit(f"cannot synthesize: {exc}")


if __name__ == "__main__":
    main()
'''


def cdk_app_files(name: str, title: str, *, widget: bool = False) -> dict[Path, str]:
    stack = title.replace(" ", "")
    bundles = 'Path("build/widgets")' if widget else "None"
    note = "the toolkit's and this app's, merged by `make widgets`." if widget else "the toolkit's own."
    return {
        Path("infra/__init__.py"): "",
        Path("infra/app.py"): Template(CDK_APP).substitute(
            name=name,
            stack=stack,
            bundles=bundles,
            bundles_note=note,
            path_import="from pathlib import Path\n" if widget else "",
        ),
        Path("cdk.json"): '{\n  "app": ".venv/bin/python -m infra.app"\n}\n',
    }
