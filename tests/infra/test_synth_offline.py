"""`make synth` where the registries cannot be reached: the first asset build fails in one sentence saying what it
downloads and from where, not in jsii's traceback. (A copy of the repository, so nothing is built yet, with uv
pointed at a port that refuses connections and an empty uv cache.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repo_copy import ROOT, copy_repo

from infra.asset_build import AssetBuildFailed


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
