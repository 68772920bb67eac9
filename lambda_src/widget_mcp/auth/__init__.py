"""OAuth 2.1 sign-in for the endpoint as a protected resource (RFC 9728): access tokens are verified here,
and the verified subject becomes the principal. Nothing in this package talks to a tool or stores state."""
