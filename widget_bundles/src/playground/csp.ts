// The Content-Security-Policy a host builds from a template's `_meta.ui.csp` (MCP Apps) or `openai/widgetCSP`.

import { isRecord } from "../shared/dom";

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && /^[a-z]+:\/\/[^\s;,'"]+$/i.test(v)) : [];
}

export function widgetCsp(meta: Record<string, unknown>, scriptHashes: readonly string[] = []): string {
  const ui = isRecord(meta.ui) && isRecord(meta.ui.csp) ? meta.ui.csp : null;
  const legacy = isRecord(meta["openai/widgetCSP"]) ? meta["openai/widgetCSP"] : {};
  const connect = list(ui ? ui.connectDomains : legacy.connect_domains);
  const resources = list(ui ? ui.resourceDomains : legacy.resource_domains);
  const frames = list(ui ? ui.frameDomains : legacy.frame_domains);
  const bases = list(ui ? ui.baseUriDomains : []);
  const or = (values: string[]): string => (values.length ? values.join(" ") : "'none'");
  const hashes = scriptHashes.map((h) => `'${h}'`);
  return [
    "default-src 'none'",
    `script-src ${or([...resources, ...hashes])}`,
    `style-src ${or(resources)}`,
    `img-src ${[...resources, "data:", "blob:"].join(" ")}`,
    `font-src ${[...resources, "data:"].join(" ")}`,
    `media-src ${or(resources)}`,
    `connect-src ${or(connect)}`,
    `frame-src ${or(frames)}`,
    `base-uri ${or(bases)}`,
    "form-action 'none'",
  ].join("; ");
}

export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}
