"""The function's code asset, bundled locally (no Docker) by `widget_mcp.lambda_asset.build`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_

from widget_mcp.lambda_asset.build import asset, asset_key
from widget_mcp.lambda_asset.source import LambdaSource
from widget_mcp.lambda_asset.target import AssetBuildFailed, Target


@jsii.implements(cdk.ILocalBundling)
class LocalAssetBundler:
    """Copies the cached asset build of `source` for `target` into CDK's bundling output directory."""

    def __init__(self, target: Target, manifest: Path | None, source: LambdaSource | None = None) -> None:
        self._target = target
        self._manifest = manifest
        self._source = source

    def try_bundle(self, output_dir: str, *, image: Any = None, **_: Any) -> bool:
        """Build (or find) the asset and copy it into `output_dir`; a failure becomes one marked sentence."""
        try:
            built = asset(self._target, self._manifest, self._source)
        except Exception as exc:  # reaches the CLI through jsii: one marked sentence, not a traceback
            raise AssetBuildFailed.of(exc) from exc
        shutil.copytree(built, Path(output_dir), dirs_exist_ok=True)
        (Path(output_dir) / ".complete").unlink(missing_ok=True)
        return True


def lambda_code(target: Target, manifest: Path | None, source: LambdaSource | None = None) -> lambda_.Code:
    """Code for `target` from `source` (this checkout by default); its asset hash covers the locked dependencies, the
    sources and the packaged manifest."""
    source = source or LambdaSource.repository()
    return lambda_.Code.from_asset(
        str(source.source_root),
        asset_hash=asset_key(target, manifest, source),
        asset_hash_type=cdk.AssetHashType.CUSTOM,
        bundling=cdk.BundlingOptions(
            # Never used: the local bundler always succeeds or raises. CDK requires an image anyway.
            image=lambda_.Runtime.PYTHON_3_13.bundling_image,
            local=LocalAssetBundler(target, manifest, source),
        ),
    )
