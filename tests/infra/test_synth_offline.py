"""`make synth` where the registries cannot be reached: the first asset build fails in one sentence saying what it
downloads and from where, not in jsii's traceback. (A copy of the repository, so nothing is built yet, with uv
pointed at a port that refuses connections and an empty uv cache.) A bad `-c` value fails in one sentence too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from repo_copy import ROOT, copy_repo
from widget_mcp.lambda_asset.target import AssetBuildFailed


def test_a_failed_build_seen_through_jsii_is_found_again_as_its_sentence() -> None:
    failure = AssetBuildFailed.of(RuntimeError("uv pip install failed:\nerror: Failed to fetch: https://pypi.org/"))
    through_jsii = RuntimeError(f"Failed to bundle asset X: @jsii/kernel.RuntimeError: {failure}\n    at stack")
    sentence = AssetBuildFailed.found_in(through_jsii)
    assert sentence is not None
    assert sentence.startswith("the Lambda asset's first build downloads its arm64 wheels from PyPI")
    assert AssetBuildFailed.found_in(RuntimeError("something else")) is None


def test_synth_without_the_network_fails_in_one_sentence(tmp_path: Path) -> None:
    copy = copy_repo(tmp_path / "repo")
    (copy / ".tools").symlink_to(ROOT / ".tools")
    env = {
        **os.environ,
        "PYTHONPATH": f"{copy / 'lambda_src'}:{copy}",
        "CDK_OUTDIR": str(tmp_path / "cdk.out"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_INDEX_URL": "http://127.0.0.1:9/simple",  # the discard port: nothing listens, the connection is refused
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    ran = subprocess.run(
        [sys.executable, "-m", "infra.app"], cwd=copy, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert ran.returncode == 1, ran.stderr[-3000:]
    assert "Traceback" not in ran.stderr
    [line] = [line for line in ran.stderr.splitlines() if line.startswith("cannot synthesize:")]
    assert "could not be reached: check the network" in line


def test_synth_with_a_bad_context_value_fails_in_one_sentence_naming_the_key(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "CDK_OUTDIR": str(tmp_path / "cdk.out"),
        # What the CDK CLI passes for `-c quotaLiveGames=5000` (and bundling off: nothing is built before the check).
        "CDK_CONTEXT_JSON": json.dumps({"quotaLiveGames": "5000", "aws:cdk:bundling-stacks": []}),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    ran = subprocess.run(
        [sys.executable, "-m", "infra.app"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert ran.returncode == 1, ran.stderr[-3000:]
    assert "Traceback" not in ran.stderr
    assert ran.stderr.strip().splitlines()[-1] == (
        "cannot synthesize: quotaLiveGames must be a whole number from 1 to 1000, got '5000'"
    )
