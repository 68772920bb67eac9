"""`make bootstrap`, `make deploy`, `make synth` and `make destroy` hand the CDK CLI the same context: a stack
deployed with `CDK_ARGS="-c stackName=…"` is the one destroy finds (the CLI adds cdk.json's and cdk.context.json's
context to all four alike)."""

from __future__ import annotations

import subprocess

from repo_copy import ROOT

CONTEXT = "-c stackName=Second -c signIn=true"


def cli_call(target: str) -> str:
    """The CDK CLI command line `make <target>` runs, without running it or anything it depends on."""
    made = ["-o", ".venv/.synced", "-o", "infra/node_modules/.bin/cdk", "-o", "widget_bundles/dist/.build-stamp"]
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", *made, target, f"CDK_ARGS={CONTEXT}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    [line] = [line for line in dry.stdout.splitlines() if "node_modules/.bin/cdk " in line]
    return line


def test_every_deploy_command_passes_the_same_context_to_the_cdk_cli() -> None:
    for target in ("synth", "deploy", "bootstrap", "destroy"):
        line = cli_call(target)
        assert f"infra/node_modules/.bin/cdk {target} " in line
        assert line.endswith(CONTEXT), line
