"""The widget CDN: a private bucket, CloudFront over HTTPS with OAC, headers, caching and non-pruning uploads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import aws_cdk as cdk
from aws_cdk.assertions import Annotations, Match, Template
from synth_support import Synthesized
from widget_mcp.cdk.widget_cdn import IMMUTABLE, SHORT, WidgetCdn
from widget_mcp.publishing.legal import LEGAL_PREFIX


def _distribution_config(synthesized: Synthesized) -> dict[str, object]:
    (distribution,) = synthesized.resources("AWS::CloudFront::Distribution").values()
    config: dict[str, object] = distribution["Properties"]["DistributionConfig"]
    return config


def test_the_bucket_blocks_public_access_requires_tls_and_keeps_versions(synthesized: Synthesized) -> None:
    synthesized.template.has_resource_properties(
        "AWS::S3::Bucket",
        {
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True,
                "BlockPublicPolicy": True,
                "IgnorePublicAcls": True,
                "RestrictPublicBuckets": True,
            },
            "VersioningConfiguration": {"Status": "Enabled"},
            "BucketEncryption": Match.object_like({"ServerSideEncryptionConfiguration": Match.any_value()}),
        },
    )
    synthesized.template.has_resource_properties(
        "AWS::S3::BucketPolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [Match.object_like({"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}})]
                )
            }
        },
    )


def test_only_cloudfront_through_origin_access_control_may_read_the_bucket(synthesized: Synthesized) -> None:
    synthesized.template.resource_count_is("AWS::CloudFront::OriginAccessControl", 1)
    (policy,) = synthesized.resources("AWS::S3::BucketPolicy").values()
    allows = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    readers = [s for s in allows if "s3:GetObject" in str(s["Action"])]
    assert [s["Principal"] for s in readers] == [{"Service": "cloudfront.amazonaws.com"}]
    assert "AWS:SourceArn" in readers[0]["Condition"]["StringEquals"]
    config = _distribution_config(synthesized)
    (origin,) = config["Origins"]  # type: ignore[misc]
    assert origin["OriginAccessControlId"]


def test_every_behaviour_is_https_only_with_the_security_headers_policy(synthesized: Synthesized) -> None:
    config = _distribution_config(synthesized)
    behaviours = [config["DefaultCacheBehavior"], *config["CacheBehaviors"]]  # type: ignore[misc]
    assert {b["ViewerProtocolPolicy"] for b in behaviours} == {"https-only"}
    assert all(b["ResponseHeadersPolicyId"] for b in behaviours)
    synthesized.template.has_resource_properties(
        "AWS::CloudFront::ResponseHeadersPolicy",
        {
            "ResponseHeadersPolicyConfig": Match.object_like(
                {
                    "SecurityHeadersConfig": Match.object_like(
                        {
                            "StrictTransportSecurity": Match.object_like({"AccessControlMaxAgeSec": 63072000}),
                            "ContentTypeOptions": {"Override": True},
                        }
                    ),
                    "CorsConfig": Match.object_like(
                        {
                            "AccessControlAllowOrigins": {"Items": ["*"]},
                            "AccessControlAllowCredentials": False,
                            "AccessControlAllowMethods": {"Items": ["GET", "HEAD", "OPTIONS"]},
                        }
                    ),
                }
            )
        },
    )


def test_hashed_files_are_cached_for_a_year_and_the_manifest_and_legal_pages_for_a_minute(
    synthesized: Synthesized,
) -> None:
    ttls = {
        p["Properties"]["CachePolicyConfig"]["MaxTTL"]
        for p in synthesized.resources("AWS::CloudFront::CachePolicy").values()
    }
    assert ttls == {365 * 86400, 60}
    config = _distribution_config(synthesized)
    behaviors = {b["PathPattern"]: b["CachePolicyId"] for b in config["CacheBehaviors"]}  # type: ignore[attr-defined]
    assert list(behaviors) == ["widgets/manifest.json", f"{LEGAL_PREFIX}/*"]
    assert behaviors["widgets/manifest.json"] == behaviors[f"{LEGAL_PREFIX}/*"]


def test_bundle_uploads_never_prune_files_that_cached_templates_still_name(synthesized: Synthesized) -> None:
    every = synthesized.resources("Custom::CDKBucketDeployment").values()
    deployments = [d for d in every if d["Properties"]["DestinationBucketKeyPrefix"] == "widgets"]
    assert len(deployments) == 2
    metadata = sorted(d["Properties"]["SystemMetadata"]["cache-control"] for d in deployments)
    assert metadata == sorted([IMMUTABLE, SHORT])
    assert {d["Properties"]["Prune"] for d in deployments} == {False}
    assert {d["Properties"]["DestinationBucketKeyPrefix"] for d in deployments} == {"widgets"}


def test_without_built_bundles_synth_warns_and_uploads_nothing(
    bare_stack: Callable[..., cdk.Stack], tmp_path: Path
) -> None:
    stack = bare_stack()
    cdn = WidgetCdn(stack, "Cdn", bundle_dir=tmp_path / "dist", removal_policy=cdk.RemovalPolicy.DESTROY)
    Template.from_stack(stack).resource_count_is("Custom::CDKBucketDeployment", 0)
    Annotations.from_stack(stack).has_warning("/Probe/Cdn", Match.string_like_regexp("widget bundles are not built"))
    assert cdn.manifest is None
