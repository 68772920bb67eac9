// A minimal MCP client over the local server's POST /mcp (stateless JSON responses), acting as a host would:
// every tools/call carries a stable `openai/subject`, so the playground user owns its games.

import { isRecord } from "../shared/dom";

export const SUBJECT = "playground-user";

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

let nextId = 1;

export async function rpc(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const response = await fetch("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const body: unknown = await response.json();
  if (!isRecord(body)) throw new RpcError(`unexpected answer (HTTP ${response.status})`, -1);
  if (isRecord(body.error)) throw new RpcError(String(body.error.message), Number(body.error.code));
  return isRecord(body.result) ? body.result : {};
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  resourceUri?: string;
  visibility?: string;
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
      resourceUri: typeof uri === "string" ? uri : undefined,
      visibility: typeof meta["openai/visibility"] === "string" ? meta["openai/visibility"] : undefined,
    };
  });
}

export async function callTool(
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return rpc("tools/call", { name, arguments: args, _meta: { ...meta, "openai/subject": SUBJECT } });
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
