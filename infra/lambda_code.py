"""The function's code asset, bundled locally (no Docker) by `infra.asset_build`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_

from infra.asset_build import LAMBDA_SRC, AssetBuildFailed, Target, asset, asset_key


@jsii.implements(cdk.ILocalBundling)
class LocalAssetBundler:
    """Copies the cached asset build for `target` into CDK's bundling output directory."""

    def __init__(self, target: Target, manifest: Path | None) -> None:
        self._target = target
        self._manifest = manifest

    def try_bundle(self, output_dir: str, *, image: Any = None, **_: Any) -> bool:
        try:
            built = asset(self._target, self._manifest)
        except Exception as exc:  # reaches the CLI through jsii: one marked sentence, not a traceback
            raise AssetBuildFailed.of(exc) from exc
        shutil.copytree(built, Path(output_dir), dirs_exist_ok=True)
        (Path(output_dir) / ".complete").unlink(missing_ok=True)
        return True


def lambda_code(target: Target, manifest: Path | None) -> lambda_.Code:
    """Code for `target`; its asset hash covers the locked dependencies, the sources and the packaged manifest."""
    return lambda_.Code.from_asset(
        str(LAMBDA_SRC),
        asset_hash=asset_key(target, manifest),
        asset_hash_type=cdk.AssetHashType.CUSTOM,
        bundling=cdk.BundlingOptions(
            # Never used: the local bundler always succeeds or raises. CDK requires an image anyway.
            image=lambda_.Runtime.PYTHON_3_13.bundling_image,
            local=LocalAssetBundler(target, manifest),
        ),
    )
