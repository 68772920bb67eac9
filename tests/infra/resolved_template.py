"""A synthesized template as CloudFormation would see it at deploy time: every intrinsic function and pseudo
parameter replaced by the realistic value it takes in one account and region.

Names built from `Fn::Join`/`Fn::Sub` are opaque to cfn-lint until they are resolved: a resource server whose
`Name` is `{Fn::Join: [ApiEndpoint, "/mcp"]}` passes, while the URL it becomes fails Cognito's name pattern.
Resolving first lets cfn-lint (and `NAME_RULES` below) see what AWS will see.

Every `Ref` and `Fn::GetAtt` resolves through an explicit table of what CloudFormation returns for that resource
type; one the table does not know raises `Unresolvable`, so a new kind of reference is a test failure that asks
for its realistic value, never a silent pass.
"""

from __future__ import annotations

import base64
import copy
import re
from dataclasses import dataclass
from typing import Any


class Unresolvable(KeyError):
    """The template references something this resolver has no realistic value for."""


@dataclass(frozen=True)
class Deployment:
    """Where the template is deployed: what the pseudo parameters and generated physical ids become."""

    region: str = "eu-west-1"
    account: str = "123456789012"
    stack_name: str = "WidgetMcp"
    partition: str = "aws"
    url_suffix: str = "amazonaws.com"
    api_id: str = "abc123defg"

    @property
    def api_endpoint(self) -> str:
        return f"https://{self.api_id}.execute-api.{self.region}.{self.url_suffix}"

    @property
    def mcp_url(self) -> str:
        return f"{self.api_endpoint}/mcp"


# What CloudFormation appends to names it generates (`<stack>-<logical id>-<suffix>`).
_SUFFIX = "1A2B3C4D5E6F"
_UUID = "658327ea-f89d-4fab-a63d-7e88639e58f6"


class Resolver:
    def __init__(self, template: dict[str, Any], deployment: Deployment) -> None:
        self.template = template
        self.resources: dict[str, Any] = template.get("Resources", {})
        self.d = deployment

    # --- physical ids ---

    def _generated(self, logical_id: str, max_length: int = 64, *, lower: bool = False) -> str:
        """A name CloudFormation generates: stack name and logical id, shortened to fit, plus a random suffix."""
        head = f"{self.d.stack_name}-{logical_id}"[: max_length - len(_SUFFIX) - 1]
        name = f"{head}-{_SUFFIX}"
        return name.lower() if lower else name

    def _type(self, logical_id: str) -> str:
        if logical_id not in self.resources:
            raise Unresolvable(f"{logical_id} is neither a resource nor a pseudo parameter this resolver knows")
        kind: str = self.resources[logical_id]["Type"]
        return kind

    def _properties(self, logical_id: str) -> dict[str, Any]:
        props: dict[str, Any] = self.resources[logical_id].get("Properties", {})
        return props

    def ref(self, name: str) -> Any:
        d = self.d
        pseudo = {
            "AWS::Region": d.region,
            "AWS::AccountId": d.account,
            "AWS::StackName": d.stack_name,
            "AWS::Partition": d.partition,
            "AWS::URLSuffix": d.url_suffix,
            "AWS::StackId": f"arn:{d.partition}:cloudformation:{d.region}:{d.account}:stack/{d.stack_name}/{_UUID}",
        }
        if name in pseudo:
            return pseudo[name]
        kind = self._type(name)
        arn = f"arn:{d.partition}"
        refs: dict[str, Any] = {
            "AWS::ApiGatewayV2::Api": lambda: d.api_id,
            "AWS::ApiGatewayV2::Integration": lambda: "a1b2c3d",
            "AWS::ApiGatewayV2::Route": lambda: "r4s5t6u",
            "AWS::ApiGatewayV2::Stage": lambda: "$default",
            "AWS::ApiGatewayV2::DomainName": lambda: self.resolve(self._properties(name)["DomainName"]),
            "AWS::CloudFront::CachePolicy": lambda: _UUID,
            "AWS::CloudFront::ResponseHeadersPolicy": lambda: _UUID,
            "AWS::CloudFront::Distribution": lambda: "E2QWRUHAPOMQZL",
            "AWS::CloudFront::OriginAccessControl": lambda: "E1ABCDEFGHIJKL",
            "AWS::Cognito::UserPool": lambda: f"{d.region}_AbCdEf123",
            "AWS::Cognito::UserPoolClient": lambda: "4example5client6id7abcdefg",
            # Ref of a domain is the domain (prefix); of a resource server, its identifier.
            "AWS::Cognito::UserPoolDomain": lambda: self.resolve(self._properties(name)["Domain"]),
            "AWS::Cognito::UserPoolResourceServer": lambda: self.resolve(self._properties(name)["Identifier"]),
            "AWS::DynamoDB::Table": lambda: self._generated(name, 255),
            "AWS::IAM::Role": lambda: self._generated(name, 64),
            "AWS::KMS::Key": lambda: _UUID,
            "AWS::SNS::Topic": lambda: f"{arn}:sns:{d.region}:{d.account}:{self._generated(name, 256)}",
            "AWS::IAM::Policy": lambda: self._generated(name, 128),
            "AWS::Lambda::Function": lambda: self._generated(name, 64),
            "AWS::Lambda::Alias": lambda: f"{self._function_arn(name)}:{self._properties(name)['Name']}",
            "AWS::Lambda::Version": lambda: f"{self._function_arn(name)}:1",
            "AWS::Lambda::LayerVersion": lambda: f"{arn}:lambda:{d.region}:{d.account}:layer:{name[:40]}:1",
            "AWS::Logs::LogGroup": lambda: self._generated(name, 512),
            "AWS::S3::Bucket": lambda: self._generated(name, 63, lower=True),
            "AWS::SecretsManager::Secret": lambda: (
                f"{arn}:secretsmanager:{d.region}:{d.account}:secret:{self._generated(name, 256)}-AbCdEf"
            ),
        }
        if kind not in refs:
            raise Unresolvable(f"Ref of a {kind} ({name}): add what CloudFormation returns for it")
        return refs[kind]()

    def _function_arn(self, logical_id: str) -> str:
        """The function ARN an alias or version names, through its FunctionName reference."""
        function = self.resolve(self._properties(logical_id)["FunctionName"])
        return f"arn:{self.d.partition}:lambda:{self.d.region}:{self.d.account}:function:{function}"

    def get_att(self, logical_id: str, attribute: str) -> Any:
        d = self.d
        kind = self._type(logical_id)
        arn = f"arn:{d.partition}"

        def name() -> Any:
            return self.ref(logical_id)

        attributes: dict[tuple[str, str], Any] = {
            ("AWS::ApiGatewayV2::Api", "ApiEndpoint"): lambda: d.api_endpoint,
            ("AWS::ApiGatewayV2::Api", "ApiId"): lambda: d.api_id,
            ("AWS::ApiGatewayV2::DomainName", "RegionalDomainName"): lambda: (
                f"d-abcdef1234.execute-api.{d.region}.{d.url_suffix}"
            ),
            ("AWS::ApiGatewayV2::DomainName", "RegionalHostedZoneId"): lambda: "ZLY8HYME6SFDD",
            ("AWS::CloudFront::Distribution", "DomainName"): lambda: "d111111abcdef8.cloudfront.net",
            ("AWS::CloudFront::Distribution", "Id"): lambda: self.ref(logical_id),
            ("AWS::CloudFront::OriginAccessControl", "Id"): lambda: self.ref(logical_id),
            ("AWS::Cognito::UserPool", "Arn"): lambda: f"{arn}:cognito-idp:{d.region}:{d.account}:userpool/{name()}",
            ("AWS::Cognito::UserPool", "ProviderName"): lambda: f"cognito-idp.{d.region}.{d.url_suffix}/{name()}",
            ("AWS::Cognito::UserPool", "ProviderURL"): lambda: f"cognito-idp.{d.region}.{d.url_suffix}/{name()}",
            ("AWS::DynamoDB::Table", "Arn"): lambda: f"{arn}:dynamodb:{d.region}:{d.account}:table/{name()}",
            ("AWS::IAM::Role", "Arn"): lambda: f"{arn}:iam::{d.account}:role/{name()}",
            ("AWS::Lambda::Function", "Arn"): lambda: f"{arn}:lambda:{d.region}:{d.account}:function:{name()}",
            ("AWS::CloudWatch::Alarm", "Arn"): lambda: (
                f"{arn}:cloudwatch:{d.region}:{d.account}:alarm:{self.resolve(self._properties(logical_id)['AlarmName'])}"
            ),
            ("AWS::KMS::Key", "Arn"): lambda: f"{arn}:kms:{d.region}:{d.account}:key/{name()}",
            ("AWS::Lambda::Version", "Version"): lambda: "1",
            ("AWS::Logs::LogGroup", "Arn"): lambda: f"{arn}:logs:{d.region}:{d.account}:log-group:{name()}:*",
            ("AWS::S3::Bucket", "Arn"): lambda: f"{arn}:s3:::{name()}",
            ("AWS::S3::Bucket", "RegionalDomainName"): lambda: f"{name()}.s3.{d.region}.{d.url_suffix}",
            ("AWS::S3::Bucket", "DomainName"): lambda: f"{name()}.s3.{d.url_suffix}",
        }
        if (kind, attribute) not in attributes:
            raise Unresolvable(f"Fn::GetAtt {kind}.{attribute} ({logical_id}): add its realistic value")
        return attributes[(kind, attribute)]()

    # --- intrinsic functions ---

    def _sub(self, text: str, variables: dict[str, Any]) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"  # ${!Literal} is written as ${Literal}
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name and not name.startswith("AWS::"):
                logical_id, attribute = name.split(".", 1)
                return str(self.get_att(logical_id, attribute))
            return str(self.ref(name))

        return re.sub(r"\$\{([^}]+)\}", one, text)

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) != 1 or not (next(iter(value)) == "Ref" or next(iter(value)).startswith("Fn::")):
            return {k: self.resolve(v) for k, v in value.items()}
        ((function, argument),) = value.items()
        if function == "Ref":
            return self.ref(argument)
        if function == "Fn::GetAtt":
            logical_id, attribute = argument if isinstance(argument, list) else argument.split(".", 1)
            return self.get_att(logical_id, attribute)
        if function == "Fn::Join":
            separator, parts = argument
            return separator.join(str(p) for p in self.resolve(parts))
        if function == "Fn::Sub":
            if isinstance(argument, str):
                return self._sub(argument, {})
            text, variables = argument
            return self._sub(text, variables)
        if function == "Fn::Select":
            index, items = self.resolve(argument)
            return items[int(index)]
        if function == "Fn::Split":
            separator, text = argument
            return str(self.resolve(text)).split(separator)
        if function == "Fn::GetAZs":
            return [f"{self.d.region}{zone}" for zone in "abc"]
        if function == "Fn::Base64":
            return base64.b64encode(str(self.resolve(argument)).encode()).decode()
        # Fn::ImportValue, Fn::If, Fn::FindInMap...: none appear in this app's templates today.
        raise Unresolvable(f"{function}: add a realistic resolution before using it in the stack")


def resolved(template: dict[str, Any], deployment: Deployment | None = None) -> dict[str, Any]:
    """The template with every intrinsic in resource properties and outputs replaced by its deploy-time value.

    Parameters and Rules (CDK's bootstrap-version check) stay as they are: they hold no names.
    """
    result = copy.deepcopy(template)
    resolver = Resolver(template, deployment or Deployment())
    for resource in result.get("Resources", {}).values():
        if "Properties" in resource:
            resource["Properties"] = resolver.resolve(resource["Properties"])
    for output in result.get("Outputs", {}).values():
        output["Value"] = resolver.resolve(output["Value"])
    return result


def intrinsics_left(value: Any) -> list[str]:
    """Every intrinsic function or Ref still in `value` (empty once resolved)."""
    if isinstance(value, list):
        return [found for v in value for found in intrinsics_left(v)]
    if isinstance(value, dict):
        here = [k for k in value if k == "Ref" or k.startswith("Fn::")]
        return here + [found for v in value.values() for found in intrinsics_left(v)]
    return []


@dataclass(frozen=True)
class NameRule:
    """AWS's documented constraint on one name-like property (`path` is dotted, inside Properties)."""

    resource_type: str
    path: str
    pattern: str
    min_length: int
    max_length: int
    source: str
    forbidden: tuple[str, ...] = ()

    def problems(self, value: Any) -> list[str]:
        if not isinstance(value, str):
            return [f"is not a string: {value!r}"]
        found = []
        if not re.fullmatch(self.pattern, value):
            found.append(f"{value!r} does not match {self.pattern} ({self.source})")
        if not self.min_length <= len(value) <= self.max_length:
            found.append(f"{value!r} is {len(value)} characters, not {self.min_length}–{self.max_length}")
        found += [
            f"{value!r} contains {word!r}, which {self.source} reserves" for word in self.forbidden if word in value
        ]
        return found


# The name-like properties this app sets (or might), with the rule AWS documents for each. cfn-lint knows some of
# them (the resource server's Name, policy names) but not all: the Cognito domain's pattern and reserved words and
# CloudFront's policy and OAC names are checked only here.
NAME_RULES = (
    NameRule(
        "AWS::Cognito::UserPoolResourceServer",
        "Name",
        r"[\w\s+=,.@-]+",
        1,
        256,
        "Cognito CreateResourceServer: Name",
    ),
    NameRule(
        "AWS::Cognito::UserPoolResourceServer",
        "Identifier",
        r"[\x21\x23-\x5B\x5D-\x7E]+",
        1,
        256,
        "Cognito CreateResourceServer: Identifier",
    ),
    NameRule(
        "AWS::Cognito::UserPoolDomain",
        "Domain",
        r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?",
        1,
        63,
        "Cognito CreateUserPoolDomain: a prefix domain",
        forbidden=("aws", "amazon", "cognito"),
    ),
    NameRule("AWS::Cognito::UserPoolClient", "ClientName", r"[\w\s+=,.@-]+", 1, 128, "Cognito CreateUserPoolClient"),
    # CloudFront documents no character set for these; CDK refuses anything but [\w-] for cache policy names,
    # and the same rule keeps the other two safe. OAC names are documented as at most 64 characters.
    NameRule(
        "AWS::CloudFront::ResponseHeadersPolicy",
        "ResponseHeadersPolicyConfig.Name",
        r"[\w-]+",
        1,
        128,
        "CloudFront response headers policy name",
    ),
    NameRule(
        "AWS::CloudFront::CachePolicy", "CachePolicyConfig.Name", r"[\w-]+", 1, 128, "CloudFront cache policy name"
    ),
    NameRule(
        "AWS::CloudFront::OriginAccessControl",
        "OriginAccessControlConfig.Name",
        r"[\w-]+",
        1,
        64,
        "CloudFront CreateOriginAccessControl: Name",
    ),
    NameRule("AWS::IAM::Policy", "PolicyName", r"[\w+=,.@-]+", 1, 128, "IAM PutRolePolicy: PolicyName"),
    NameRule("AWS::IAM::Role", "RoleName", r"[\w+=,.@-]+", 1, 64, "IAM CreateRole: RoleName"),
    NameRule("AWS::Lambda::Function", "FunctionName", r"[a-zA-Z0-9_-]+", 1, 64, "Lambda CreateFunction"),
    NameRule("AWS::Lambda::Alias", "Name", r"(?!^[0-9]+$)[a-zA-Z0-9_-]+", 1, 128, "Lambda CreateAlias: Name"),
    NameRule("AWS::Logs::LogGroup", "LogGroupName", r"[.\-_/#A-Za-z0-9]+", 1, 512, "CloudWatch Logs CreateLogGroup"),
    NameRule("AWS::DynamoDB::Table", "TableName", r"[a-zA-Z0-9_.-]+", 3, 255, "DynamoDB CreateTable: TableName"),
    NameRule("AWS::S3::Bucket", "BucketName", r"[a-z0-9][a-z0-9.-]*[a-z0-9]", 3, 63, "S3 bucket naming rules"),
    NameRule("AWS::ApiGatewayV2::Api", "Name", r".+", 1, 128, "API Gateway CreateApi: Name"),
    NameRule("AWS::CloudWatch::Alarm", "AlarmName", r"[^\x00-\x1f]+", 1, 255, "CloudWatch PutMetricAlarm"),
    NameRule("AWS::CloudWatch::Dashboard", "DashboardName", r"[A-Za-z0-9_-]+", 1, 255, "CloudWatch PutDashboard"),
    NameRule(
        "AWS::Logs::QueryDefinition", "Name", r"([^:*/]+/?)*[^:*/]+", 1, 255, "CloudWatch Logs PutQueryDefinition"
    ),
)

# Names that must be unique per account (CloudFront is global): the same stack deployed to a second region of
# the account needs different ones.
ACCOUNT_SCOPED = {
    "AWS::CloudFront::ResponseHeadersPolicy": "ResponseHeadersPolicyConfig.Name",
    "AWS::CloudFront::CachePolicy": "CachePolicyConfig.Name",
    "AWS::CloudFront::OriginAccessControl": "OriginAccessControlConfig.Name",
}


def at_path(properties: dict[str, Any], path: str) -> Any:
    """The value at a dotted path, or None when a step is missing."""
    value: Any = properties
    for step in path.split("."):
        if not isinstance(value, dict) or step not in value:
            return None
        value = value[step]
    return value


def names(template: dict[str, Any]) -> list[tuple[str, NameRule, Any]]:
    """(logical id, rule, value) for every name-like property present in a resolved template."""
    found = []
    for logical_id, resource in template.get("Resources", {}).items():
        for rule in NAME_RULES:
            if resource["Type"] == rule.resource_type:
                value = at_path(resource.get("Properties", {}), rule.path)
                if value is not None:
                    found.append((logical_id, rule, value))
    return found


def name_problems(template: dict[str, Any]) -> list[str]:
    """Every name-like property in a resolved template that breaks its documented rule."""
    return [
        f"{logical_id} {rule.path}: {problem}"
        for logical_id, rule, value in names(template)
        for problem in rule.problems(value)
    ]
