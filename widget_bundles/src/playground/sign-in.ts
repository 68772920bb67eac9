// The signed-in host: an OAuth client in the browser, as an MCP host with sign-in is. It reads the server's
// protected-resource metadata (RFC 9728), registers itself with the authorization server (RFC 7591) and runs
// the authorization-code flow with PKCE (S256) against it. Only `make dev`'s local issuer is used (served by
// this same server, under /issuer, and signing its fixed local user in without a password): its /authorize
// answers with a redirect to our redirect URI at once, so one fetch follows it and reads the code from the
// final URL, with no page navigation. Another authorization server (Cognito) would need a real login page.

import { isRecord } from "../shared/dom";

export interface SignInServer {
  /** The MCP URL the token is for (the metadata's `resource`, sent as the RFC 8707 resource). */
  resource: string;
  scopes: string[];
  issuer: string;
  authorize: string;
  token: string;
  register: string;
}

export type SignInAvailability = { available: true; server: SignInServer } | { available: false; reason: string };

export interface SignedIn {
  token: string;
  subject: string;
}

const REDIRECT_PATH = "/playground";

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // reported below
  }
  if (!response.ok || !isRecord(body)) {
    const detail = isRecord(body) ? String(body.error_description ?? body.error ?? "") : "";
    throw new Error(`${what} failed (HTTP ${response.status})${detail ? `: ${detail}` : ""}`);
  }
  return body;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** Whether this server has sign-in on, with an authorization server the playground can use. */
export async function discoverSignIn(): Promise<SignInAvailability> {
  const off = { available: false, reason: "Sign-in is off on this server: start it with AUTH_MODE=oauth (make dev)." } as const;
  // The page says whether sign-in is on: asking for the metadata when it is off would log a 404 on every load.
  if (document.querySelector('meta[name="widget-mcp-sign-in"]')?.getAttribute("content") === "off") return off;
  const response = await fetch("/.well-known/oauth-protected-resource/mcp", { cache: "no-store" });
  if (response.status === 404) return off;
  const resource = await json(response, "reading the protected-resource metadata");
  const servers = Array.isArray(resource.authorization_servers) ? resource.authorization_servers : [];
  const issuer = text(servers[0]);
  if (!issuer) return { available: false, reason: "The server's metadata names no authorization server." };
  const url = new URL(issuer);
  if (url.origin !== location.origin) {
    return {
      available: false,
      reason: `Sign-in uses ${url.origin}: the playground signs in only with make dev's local issuer (leave OAUTH_ISSUER unset).`,
    };
  }
  const path = url.pathname.replace(/\/$/, "");
  const metadata = await json(await fetch(`/.well-known/oauth-authorization-server${path}`), "reading the issuer's metadata");
  const authorize = text(metadata.authorization_endpoint);
  const token = text(metadata.token_endpoint);
  const register = text(metadata.registration_endpoint);
  if (!authorize || !token || !register) {
    return { available: false, reason: "The local issuer's metadata lacks its authorize, token or registration endpoint." };
  }
  const scopes = Array.isArray(resource.scopes_supported) ? resource.scopes_supported.filter((s): s is string => typeof s === "string") : [];
  return {
    available: true,
    server: { resource: text(resource.resource) ?? `${location.origin}/mcp`, scopes, issuer: text(metadata.issuer) ?? issuer, authorize, token, register },
  };
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function randomText(size: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

function subjectOf(token: string): string {
  try {
    const payload: unknown = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
    return isRecord(payload) && typeof payload.sub === "string" ? payload.sub : "?";
  } catch {
    return "?";
  }
}

/** Registers a public client and runs the authorization-code flow with PKCE: a fresh access token. */
export async function signIn(server: SignInServer): Promise<SignedIn> {
  const redirect = `${location.origin}${REDIRECT_PATH}`;
  const client = await json(
    await fetch(server.register, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [redirect], client_name: "widget-mcp playground", token_endpoint_auth_method: "none" }),
    }),
    "registering the playground with the issuer",
  );
  const clientId = text(client.client_id);
  if (!clientId) throw new Error("the issuer registered no client_id");
  const verifier = randomText(32);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const state = randomText(16);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
    state,
    resource: server.resource,
  });
  if (server.scopes.length) query.set("scope", server.scopes.join(" "));
  const authorized = await fetch(`${server.authorize}?${query}`, { cache: "no-store" });
  const back = new URL(authorized.url);
  if (`${back.origin}${back.pathname}` !== redirect) await json(authorized, "authorizing"); // throws the issuer's error
  const code = back.searchParams.get("code");
  if (!code || back.searchParams.get("state") !== state) throw new Error("the issuer answered without a code for this sign-in");
  const iss = back.searchParams.get("iss");
  if (iss !== null && iss !== server.issuer) throw new Error(`the code came from ${iss}, not ${server.issuer}`);
  const tokens = await json(
    await fetch(server.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: clientId, code_verifier: verifier }),
    }),
    "exchanging the code for a token",
  );
  const token = text(tokens.access_token);
  if (!token) throw new Error("the issuer returned no access token");
  return { token, subject: subjectOf(token) };
}
