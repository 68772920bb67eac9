"""Optional sign-in (`-c signIn=true`): a Cognito user pool with a managed-login domain, a resource server
holding the tools' scopes, and one public app client (authorization code + PKCE) that ChatGPT links with.

Cognito has no dynamic client registration, so the function serves a small registration endpoint that
hands out this pre-created client (see `widget_mcp.auth.facade`); docs/oauth.md explains the choice.

The resource server's identifier is the MCP URL itself: MCP clients such as ChatGPT send it as the RFC 8707
`resource` parameter, and Cognito (managed login, Essentials) binds tokens to a resource only when the value
names one of its resource servers. Its name is fixed: CDK would default it to the identifier, and Cognito
refuses a URL as a name (the deploy would roll back).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_cognito as cognito
from constructs import Construct

# The scopes tools ask for, under the resource server: `<MCP URL>/chess`.
SCOPES = {"chess": "play and read your chess games", "forms": "ask you questions and keep your answers"}
# The resource server's display name: Cognito allows only `[\w\s+=,.@-]+` here, so never the URL identifier.
RESOURCE_SERVER_NAME = "widget-mcp tools"


def default_domain_prefix(stack_name: str, account: str) -> str:
    """`widget-mcp-<account>-<8 hex digits of the stack name>`: Cognito prefixes are unique per region across all
    accounts, and a stack name is unique per account and region, so no two stacks can ask for the same one.

    The digest keeps any stack name (up to 128 characters, any case) within the prefix rules: lower-case letters,
    digits and hyphens, at most 63 characters, none of the reserved words `aws`, `amazon` or `cognito`.
    """
    digest = hashlib.sha256(stack_name.encode()).hexdigest()[:8]
    return f"widget-mcp-{account}-{digest}"


class SignIn(Construct):
    """OAuth sign-in: a Cognito user pool, its hosted domain, an app client and the resource server whose scopes
    the function checks."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        domain_prefix: str,
        callback_urls: Sequence[str],
        removal_policy: cdk.RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self.pool = cognito.UserPool(
            self,
            "Users",
            self_sign_up_enabled=True,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            password_policy=cognito.PasswordPolicy(
                min_length=12, require_digits=True, require_lowercase=True, require_uppercase=True, require_symbols=True
            ),
            mfa=cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            feature_plan=cognito.FeaturePlan.ESSENTIALS,
            deletion_protection=removal_policy == cdk.RemovalPolicy.RETAIN,
            removal_policy=removal_policy,
        )
        cdk.Validations.of(self.pool).acknowledge(
            cdk.Acknowledgment(
                id="AwsSolutions-COG2",
                reason="MFA is optional (TOTP) so anyone can sign up from ChatGPT; a deployment holding sensitive "
                "data can make it required.",
            ),
            *(
                cdk.Acknowledgment(
                    id=rule,
                    reason="Threat protection needs the Plus feature plan (billed per active user); the app keeps "
                    "per-user games and form answers, and the API is throttled.",
                )
                for rule in ("AwsSolutions-COG3", "AwsSolutions-COG8")
            ),
        )
        self.domain = self.pool.add_domain(
            "Domain",
            cognito_domain=cognito.CognitoDomainOptions(domain_prefix=domain_prefix),
            # Resource indicators need managed login; the classic hosted UI predates them.
            managed_login_version=cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
        )
        self.callback_urls = list(callback_urls)
        # The `iss` of Cognito's tokens (CloudFormation's ProviderURL lacks the scheme).
        stack = cdk.Stack.of(self)
        self.issuer = f"https://cognito-idp.{stack.region}.{stack.url_suffix}/{self.pool.user_pool_id}"
        self.base_url = self.domain.base_url()

    def protect(self, resource: str) -> None:
        """Creates the resource server named `resource` (the MCP URL) and ChatGPT's client for its scopes."""
        server_scopes = [cognito.ResourceServerScope(scope_name=n, scope_description=d) for n, d in SCOPES.items()]
        server = self.pool.add_resource_server(
            "Tools", identifier=resource, user_pool_resource_server_name=RESOURCE_SERVER_NAME, scopes=server_scopes
        )
        self.resource = resource
        self.client = self.pool.add_client(
            "ChatGPT",
            generate_secret=False,  # a public client: ChatGPT proves possession with PKCE, not a secret
            auth_flows=cognito.AuthFlow(user_srp=False),
            o_auth=cognito.OAuthSettings(
                flows=cognito.OAuthFlows(authorization_code_grant=True),
                scopes=[cognito.OAuthScope.resource_server(server, s) for s in server_scopes],
                callback_urls=self.callback_urls,
            ),
            supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
            prevent_user_existence_errors=True,
            access_token_validity=cdk.Duration.hours(1),
            refresh_token_validity=cdk.Duration.days(30),
            enable_token_revocation=True,
        )
        # Managed login shows nothing for a client without a style; Cognito's own look is enough here.
        cognito.CfnManagedLoginBranding(
            self,
            "LoginStyle",
            user_pool_id=self.pool.user_pool_id,
            client_id=self.client.user_pool_client_id,
            use_cognito_provided_values=True,
        )
        self.scope_prefix = f"{resource}/"
