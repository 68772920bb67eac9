// A minimal MCP client over the local server's POST /mcp (stateless JSON responses), acting as a host would.
// What identity it sends is the emulated host's (hosts.ts): `_meta` keys added to every tools/call (ChatGPT's
// `openai/subject`), an `Authorization: Bearer` token (signed in), or nothing at all (an MCP Apps host).
// It speaks MCP 2026-07-28, whose every request carries the client's capabilities: it declares the MCP Apps
// extension, since it shows widgets as every host it emulates does, so forms come as widgets (never the text
// fallback of a client that cannot show them) and app-only tools stay listed.

import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
import { isRecord } from "../shared/dom";

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly status = 200,
  ) {
    super(message);
  }
}

export interface Identity {
  /** Added to every tools/call's `_meta` (over what the widget sent). */
  meta: Record<string, unknown>;
  /** Sent as `Authorization: Bearer …` on every request. */
  token?: string;
  /** Gets a fresh token once the server refuses this one (401); undefined: cannot. */
  renew?: () => Promise<string>;
}

let identity: Identity = { meta: {} };

export function useIdentity(next: Identity): void {
  identity = next;
}

let nextId = 1;

const PROTOCOL_VERSION = "2026-07-28";
const APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** What the playground says it is and can do, in every request's `_meta` (the 2026-07-28 envelope). */
const ENVELOPE: Record<string, unknown> = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "widget-mcp-playground", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { [APPS_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
  },
};

/** The routing header naming what a request acts on: a tool's or a prompt's name, a resource's URI. */
function routedName(params: Record<string, unknown>): string | undefined {
  const named = params.name ?? params.uri;
  return typeof named === "string" ? named : undefined;
}

async function post(method: string, params: Record<string, unknown>): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
    "mcp-method": method,
  };
  const name = routedName(params);
  if (name !== undefined) headers["mcp-name"] = name;
  if (identity.token) headers.authorization = `Bearer ${identity.token}`;
  const meta = isRecord(params._meta) ? params._meta : {};
  const sent = { ...params, _meta: { ...meta, ...ENVELOPE } };
  return fetch("/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: sent }) });
}

export async function rpc(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  let response = await post(method, params);
  if (response.status === 401 && identity.token && identity.renew) {
    identity.token = await identity.renew();
    response = await post(method, params);
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: reported below with the status
  }
  if (isRecord(body) && isRecord(body.error)) {
    const status = response.ok ? "" : ` (HTTP ${response.status})`;
    throw new RpcError(`${String(body.error.message)}${status}`, Number(body.error.code), response.status);
  }
  if (!isRecord(body)) throw new RpcError(`unexpected answer (HTTP ${response.status})`, -1, response.status);
  return isRecord(body.result) ? body.result : {};
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  resourceUri?: string;
  visibility?: string;
  ids?: Record<string, unknown>;
  /** `openai/widgetAccessible`: ChatGPT lets the widget call it. */
  widgetAccessible: boolean;
  /** `ui.visibility` absent or naming "app": MCP Apps hosts let the widget call it. */
  appVisible: boolean;
}

export async function listTools(): Promise<ToolInfo[]> {
  const result = await rpc("tools/list");
  const tools = Array.isArray(result.tools) ? result.tools.filter(isRecord) : [];
  return tools.map((tool) => {
    const meta = isRecord(tool._meta) ? tool._meta : {};
    const ui = isRecord(meta.ui) ? meta.ui : {};
    const uri = typeof ui.resourceUri === "string" ? ui.resourceUri : meta["openai/outputTemplate"];
    return {
      name: String(tool.name),
      title: typeof tool.title === "string" ? tool.title : undefined,
      description: typeof tool.description === "string" ? tool.description : undefined,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      resourceUri: typeof uri === "string" ? uri : undefined,
      visibility: typeof meta["openai/visibility"] === "string" ? meta["openai/visibility"] : undefined,
      ids: isRecord(meta["widget-mcp/ids"]) ? meta["widget-mcp/ids"] : undefined,
      widgetAccessible: meta["openai/widgetAccessible"] === true,
      appVisible: !Array.isArray(ui.visibility) || ui.visibility.includes("app"),
    };
  });
}

export async function callTool(
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const merged = { ...meta, ...identity.meta };
  return rpc("tools/call", Object.keys(merged).length ? { name, arguments: args, _meta: merged } : { name, arguments: args });
}

export interface Template {
  uri: string;
  html: string;
  meta: Record<string, unknown>;
}

export async function readTemplate(uri: string): Promise<Template> {
  const result = await rpc("resources/read", { uri });
  const content = Array.isArray(result.contents) ? result.contents.find(isRecord) : undefined;
  if (!content || typeof content.text !== "string") throw new RpcError(`template ${uri} has no HTML`, -1);
  return { uri, html: content.text, meta: isRecord(content._meta) ? content._meta : {} };
}

export async function findTemplate(name: string): Promise<string | undefined> {
  const result = await rpc("resources/list");
  const resources = Array.isArray(result.resources) ? result.resources.filter(isRecord) : [];
  const found = resources.find((r) => r.name === name || String(r.uri).startsWith(`ui://widget/${name}-`));
  return found ? String(found.uri) : undefined;
}
