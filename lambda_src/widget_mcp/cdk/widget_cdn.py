"""The widget CDN: a private bucket behind CloudFront (origin access control), serving the Vite bundles."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import aws_cdk as cdk
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from widget_mcp.cdk.config import CustomDomain
from widget_mcp.publishing.legal import LEGAL_PREFIX, legal_urls

BUNDLE_PREFIX = "widgets"
MANIFEST = "manifest.json"
# Hashed file names never change content, so browsers and CloudFront may keep them for a year.
IMMUTABLE = "public, max-age=31536000, immutable"
# The manifest names the current hashed files; it must be refreshed quickly after a deploy.
SHORT = "public, max-age=60"


class WidgetCdn(Construct):
    """The widget bundles (and the legal pages) in a private versioned bucket, served by CloudFront through origin
    access control, HTTPS only, with security headers."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        bundle_dir: Path,
        removal_policy: cdk.RemovalPolicy,
        domain: CustomDomain | None = None,
        legal_pages: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        destroy = removal_policy == cdk.RemovalPolicy.DESTROY
        self.bucket = s3.Bucket(
            self,
            "Bundles",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            encryption=s3.BucketEncryption.S3_MANAGED,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            # Only the manifest is ever overwritten; its old versions need not outlive a month.
            lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=cdk.Duration.days(30))],
            removal_policy=removal_policy,
            auto_delete_objects=destroy,
        )
        cdk.Validations.of(self.bucket).acknowledge(
            cdk.Acknowledgment(
                id="AwsSolutions-S1",
                reason="Public, immutable widget files read only through CloudFront; CloudFront metrics cover "
                "traffic, and a log bucket would bill storage while nobody plays.",
            )
        )
        self.distribution = self._distribution(domain)
        self.domain_name = domain.name if domain else self.distribution.distribution_domain_name
        self.base_url = f"https://{self.domain_name}/{BUNDLE_PREFIX}"
        # The manifest the function packages; None until the bundles are built.
        self.manifest = bundle_dir / MANIFEST if (bundle_dir / MANIFEST).is_file() else None
        self._deploy_bundles(bundle_dir)
        # The privacy, terms and support pages (publishing/legal.py), at /legal/<page>.html beside the bundles.
        self.legal_urls: dict[str, str] = {}
        if legal_pages:
            self.legal_urls = legal_urls(f"https://{self.domain_name}")
            self._deploy_legal(legal_pages)

    def _distribution(self, domain: CustomDomain | None) -> cloudfront.Distribution:
        # CloudFront names are unique per account, not per region: the region keeps a second copy of the stack in
        # another region from colliding (CDK does the same for cache policies).
        region = cdk.Stack.of(self).region
        headers = cloudfront.ResponseHeadersPolicy(
            self,
            "Headers",
            response_headers_policy_name=f"{cdk.Names.unique_resource_name(self, max_length=100)}-headers-{region}",
            comment="widget bundles: security headers and CORS for the hosts' widget sandboxes",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=cdk.Duration.days(730), include_subdomains=True, override=True
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override=True
                ),
            ),
            # Module scripts are fetched in CORS mode from sandboxed iframes whose origin is opaque ("null") or a
            # per-conversation host subdomain, which no fixed list can name; the files are public and credential-less.
            cors_behavior=cloudfront.ResponseHeadersCorsBehavior(
                access_control_allow_origins=["*"],
                access_control_allow_methods=["GET", "HEAD", "OPTIONS"],
                access_control_allow_headers=["*"],
                access_control_allow_credentials=False,
                access_control_max_age=cdk.Duration.days(1),
                origin_override=True,
            ),
        )
        immutable = cloudfront.CachePolicy(
            self,
            "HashedAssets",
            comment="hashed widget files: honour the objects' year-long Cache-Control",
            min_ttl=cdk.Duration.days(1),
            default_ttl=cdk.Duration.days(365),
            max_ttl=cdk.Duration.days(365),
            enable_accept_encoding_brotli=True,
            enable_accept_encoding_gzip=True,
        )
        short = cloudfront.CachePolicy(
            self,
            "Manifest",
            comment="bundle manifest: at most a minute old",
            min_ttl=cdk.Duration.seconds(0),
            default_ttl=cdk.Duration.seconds(60),
            max_ttl=cdk.Duration.seconds(60),
        )
        access = cloudfront.S3OriginAccessControl(
            self,
            "OriginAccess",
            # At most 64 characters: 40 + "-oac-" + the longest region name (15) fits.
            origin_access_control_name=f"{cdk.Names.unique_resource_name(self, max_length=40)}-oac-{region}",
            description="widget bundles: CloudFront signs its reads from the private bucket",
        )
        origin = origins.S3BucketOrigin.with_origin_access_control(self.bucket, origin_access_control=access)

        def behavior(cache_policy: cloudfront.ICachePolicy) -> cloudfront.BehaviorOptions:
            return cloudfront.BehaviorOptions(
                origin=origin,
                cache_policy=cache_policy,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
                cached_methods=cloudfront.CachedMethods.CACHE_GET_HEAD_OPTIONS,
                response_headers_policy=headers,
                compress=True,
            )

        distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="widget-mcp widget bundles",
            default_behavior=behavior(immutable),
            additional_behaviors={
                f"{BUNDLE_PREFIX}/{MANIFEST}": behavior(short),
                # The legal pages change with a deploy (a TTL, an app): as fresh as the manifest.
                f"{LEGAL_PREFIX}/*": behavior(short),
            },
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if domain else None,
            domain_names=[domain.name] if domain else None,
            certificate=acm.Certificate.from_certificate_arn(self, "Certificate", domain.certificate_arn)
            if domain
            else None,
        )
        ack = cdk.Validations.of(distribution).acknowledge
        ack(
            cdk.Acknowledgment(
                id="AwsSolutions-CFR1",
                reason="Widgets render wherever ChatGPT and MCP Apps hosts have users; no geography is excluded.",
            ),
            cdk.Acknowledgment(
                id="AwsSolutions-CFR2",
                reason="Only public, immutable static files are served (GET/HEAD/OPTIONS, no origin logic); a WAF "
                "web ACL would add a monthly fee at rest without protecting anything stateful.",
            ),
            cdk.Acknowledgment(
                id="AwsSolutions-CFR3",
                reason="Standard logs need a log bucket billed at rest; CloudFront's default metrics are enough for "
                "public static files.",
            ),
        )
        if domain is None:
            ack(
                cdk.Acknowledgment(
                    id="AwsSolutions-CFR4",
                    reason="With the default *.cloudfront.net certificate CloudFront fixes the viewer TLS policy; "
                    "set widgetDomainName + widgetCertificateArn to enforce TLSv1.2_2021.",
                )
            )
        return distribution

    def _deploy_bundles(self, bundle_dir: Path) -> None:
        manifest = bundle_dir / MANIFEST
        if not manifest.is_file():
            cdk.Annotations.of(self).add_warning_v2(
                "widget-mcp:bundles-missing",
                f"{bundle_dir} has no {MANIFEST}: the widget bundles are not built, so nothing is uploaded and "
                "widgets will not load. Build widget_bundles/ and synthesize again before deploying.",
            )
            return
        json.loads(manifest.read_text(encoding="utf-8"))  # fail synth early on a truncated manifest
        # prune=False on both: hosts cache templates (by URI) that still point at earlier hashed files.
        assets = s3deploy.BucketDeployment(
            self,
            "HashedFiles",
            sources=[s3deploy.Source.asset(str(bundle_dir), exclude=[MANIFEST])],
            destination_bucket=self.bucket,
            destination_key_prefix=BUNDLE_PREFIX,
            cache_control=[s3deploy.CacheControl.from_string(IMMUTABLE)],
            prune=False,
        )
        latest = s3deploy.BucketDeployment(
            self,
            "ManifestFile",
            sources=[s3deploy.Source.asset(str(bundle_dir), exclude=["*", f"!{MANIFEST}"])],
            destination_bucket=self.bucket,
            destination_key_prefix=BUNDLE_PREFIX,
            cache_control=[s3deploy.CacheControl.from_string(SHORT)],
            prune=False,  # no CloudFront invalidation needed: the manifest's cache policy caps it at 60 s
        )
        latest.node.add_dependency(assets)  # the manifest never names files that are not uploaded yet
        _acknowledge_deployment_provider(cdk.Stack.of(self), self.bucket)

    def _deploy_legal(self, pages: Mapping[str, str]) -> None:
        # prune=False: a page a later deploy no longer writes stays answerable rather than a broken link in a listing.
        s3deploy.BucketDeployment(
            self,
            "LegalPages",
            sources=[s3deploy.Source.data(name, text) for name, text in pages.items()],
            destination_bucket=self.bucket,
            destination_key_prefix=LEGAL_PREFIX,
            cache_control=[s3deploy.CacheControl.from_string(SHORT)],
            content_type="text/html; charset=utf-8",
            prune=False,
        )
        _acknowledge_deployment_provider(cdk.Stack.of(self), self.bucket)


def _asset_bucket(stack: cdk.Stack) -> str:
    """The bootstrap asset bucket's name as cdk-nag prints it (concrete when the CLI knows account/region)."""
    qualifier = stack.node.try_get_context("@aws-cdk/core:bootstrapQualifier") or "hnb659fds"

    def part(value: str, placeholder: str) -> str:
        return placeholder if cdk.Token.is_unresolved(value) else value

    return f"cdk-{qualifier}-assets-{part(stack.account, '<AWS::AccountId>')}-{part(stack.region, '<AWS::Region>')}"


def _acknowledge_deployment_provider(stack: cdk.Stack, bucket: s3.Bucket) -> None:
    """CDK's BucketDeployment runs one shared provider function per stack, created at the stack's root."""
    # The bucket's logical id as cdk-nag prints it: it depends on where the construct sits in the app.
    bucket_id = stack.get_logical_id(bucket.node.default_child)  # type: ignore[arg-type]
    provider = next(c for c in stack.node.children if c.node.id.startswith("Custom::CDKBucketDeployment"))
    why_s3 = (
        "CDK's BucketDeployment provider copies the staged bundle zip from the CDK asset bucket into the widget "
        "bucket; these are CDK's read/write grant sets, scoped to those two buckets, used only during deploys."
    )
    cdk.Validations.of(provider).acknowledge(
        cdk.Acknowledgment(
            id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
            reason="CDK's BucketDeployment provider (deploy-time only) logs through the AWS basic execution policy; "
            "CDK offers no hook to replace it.",
        ),
        *(
            cdk.Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=why_s3)
            for finding in (
                "Action::s3:GetObject*",
                "Action::s3:GetBucket*",
                "Action::s3:List*",
                "Action::s3:DeleteObject*",
                "Action::s3:Abort*",
                f"Resource::arn:<AWS::Partition>:s3:::{_asset_bucket(stack)}/*",
                f"Resource::<{bucket_id}.Arn>/*",
            )
        ),
        cdk.Acknowledgment(
            id="AwsSolutions-L1",
            reason="The BucketDeployment provider's runtime is chosen and updated by aws-cdk-lib, not by this app; "
            "it runs only during deploys.",
        ),
    )
