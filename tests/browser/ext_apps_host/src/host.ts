// A minimal MCP Apps host built only on the official host side of @modelcontextprotocol/ext-apps (`AppBridge`)
// and the official TypeScript MCP client, shaped like the ext-apps repository's examples/basic-host: it calls a
// tool over Streamable HTTP, reads the tool's `_meta.ui.resourceUri` template, and renders it through a sandbox
// proxy on a second origin, which applies the CSP built from the resource's `_meta.ui.csp` as an HTTP header.
// Like Claude, VS Code and basic-host, it adds no user identity to anything: the view's requests reach the
// server exactly as AppBridge forwards them.
//
// URL: index.html?server=<MCP URL>&sandbox=<sandbox proxy URL>&tool=<name>&args=<JSON>&era=legacy|2026-07-28
//      &displayModes=inline,fullscreen (what the host offers; fullscreen covers the page with the view)
//      &result=<JSON> (optional: delivered to the view as the tool's result instead of calling the tool, as a
//      host relaying another server's, or a tampered, result would)
// What happened is kept on `window.extAppsHost` (and `document.body.dataset.state`) for tests to read.

import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
  type McpUiResourceCsp,
  type McpUiResourcePermissions,
  type McpUiSandboxProxyReadyNotification,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from "@modelcontextprotocol/client";

const IMPLEMENTATION = { name: "widget-mcp ext-apps reference host (tests)", version: "1.0.0" };
const MODERN_ERA = "2026-07-28";

type State = "starting" | "connected" | "rendering" | "ready" | "failed";

interface HostRecord {
  state: State;
  error: string | null;
  /** The client's protocol era ("legacy" or "modern") and the negotiated version. */
  era: string | null;
  protocolVersion: string | null;
  /** The host's own tool call's result, as sent to the view. */
  toolResult: CallToolResult | null;
  /** `ui/message` requests from the view (their params). */
  messages: unknown[];
  /** `ui/update-model-context` requests from the view (their params). */
  modelContext: unknown[];
  logs: unknown[];
  sizes: Array<{ width?: number; height?: number }>;
  links: string[];
  /** `ui/request-display-mode` requests from the view (the modes asked for), and the mode shown now. */
  displayModeRequests: string[];
  displayMode: string;
  /** What the view declared at ui/initialize (its appCapabilities). */
  appCapabilities: unknown;
  /** Uncaught errors and unhandled rejections in the host page. */
  errors: string[];
}

declare global {
  interface Window {
    extAppsHost: HostRecord;
  }
}

interface UiResource {
  html: string;
  csp?: McpUiResourceCsp;
  permissions?: McpUiResourcePermissions;
}

const record: HostRecord = {
  state: "starting",
  error: null,
  era: null,
  protocolVersion: null,
  toolResult: null,
  messages: [],
  modelContext: [],
  logs: [],
  sizes: [],
  links: [],
  displayModeRequests: [],
  displayMode: "inline",
  appCapabilities: null,
  errors: [],
};
window.extAppsHost = record;
window.addEventListener("error", (event) => record.errors.push(String(event.error ?? event.message)));
window.addEventListener("unhandledrejection", (event) => record.errors.push(String(event.reason)));

const statusText = document.querySelector<HTMLElement>('[data-testid="host-status"]');

function setState(state: State, detail = ""): void {
  record.state = state;
  document.body.dataset.state = state;
  if (statusText) statusText.textContent = detail ? `${state}: ${detail}` : state;
}

function required(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (!value) throw new Error(`the host page needs ?${name}=`);
  return value;
}

async function connectToServer(serverUrl: URL, era: string): Promise<{ client: Client; tools: Map<string, Tool> }> {
  // The TypeScript SDK speaks the 2025 handshake by default; the 2026-07-28 era is opted into by pinning it.
  // It declares the MCP Apps extension, as the extension's hosts do (SEP-1865): the server then knows it shows
  // widgets, so a form comes as its widget and the widget's app-only calls (submit_form) are served.
  const capabilities = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } };
  const client = new Client(
    IMPLEMENTATION,
    era === MODERN_ERA ? { capabilities, versionNegotiation: { mode: { pin: MODERN_ERA } } } : { capabilities },
  );
  await client.connect(new StreamableHTTPClientTransport(serverUrl));
  record.era = client.getProtocolEra() ?? null;
  record.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
  const { tools } = await client.listTools();
  return { client, tools: new Map(tools.map((tool) => [tool.name, tool])) };
}

async function readUiResource(client: Client, uri: string): Promise<UiResource> {
  const resource = await client.readResource({ uri });
  if (resource.contents.length !== 1) throw new Error(`unexpected contents count: ${resource.contents.length}`);
  const content = resource.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`unsupported MIME type: ${content.mimeType}`);
  const html = "blob" in content ? atob(content.blob) : content.text;
  const ui = (content._meta as { ui?: { csp?: McpUiResourceCsp; permissions?: McpUiResourcePermissions } } | undefined)
    ?.ui;
  return { html, csp: ui?.csp, permissions: ui?.permissions };
}

/** Loads the sandbox proxy (second origin) with the CSP it must serve itself under, and waits for it. */
function loadSandboxProxy(iframe: HTMLIFrameElement, sandboxUrl: URL, csp: McpUiResourceCsp | undefined): Promise<void> {
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const ready: McpUiSandboxProxyReadyNotification["method"] = "ui/notifications/sandbox-proxy-ready";
  const loaded = new Promise<void>((resolve) => {
    const listener = ({ source, data }: MessageEvent): void => {
      if (source === iframe.contentWindow && data?.method === ready) {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
  const url = new URL(sandboxUrl);
  if (csp) url.searchParams.set("csp", JSON.stringify(csp));
  iframe.src = url.href;
  return loaded;
}

type DisplayMode = "inline" | "fullscreen" | "pip";

function newAppBridge(client: Client, iframe: HTMLIFrameElement, tool: Tool, displayModes: DisplayMode[]): AppBridge {
  const server = client.getServerCapabilities();
  let inlineHeight = "";
  const bridge = new AppBridge(
    client,
    IMPLEMENTATION,
    {
      openLinks: {},
      serverTools: server?.tools,
      serverResources: server?.resources,
      logging: {},
      message: { text: {} },
      updateModelContext: { text: {}, structuredContent: {} },
    },
    {
      hostContext: {
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: displayModes,
        platform: "web",
        locale: navigator.language,
        toolInfo: { tool },
      },
    },
  );
  // Handlers first: the view may send requests as soon as the handshake is done. tools/call, resources/* and
  // prompts/list are forwarded to the server by AppBridge itself (connect() installs them from the client).
  bridge.onmessage = async (params) => {
    record.messages.push(params);
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    record.modelContext.push(params);
    return {};
  };
  bridge.onopenlink = async (params) => {
    record.links.push(params.url); // recorded, never opened
    return {};
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    record.displayModeRequests.push(mode);
    if (displayModes.includes(mode) && mode !== record.displayMode) {
      record.displayMode = mode;
      Object.assign(
        iframe.style,
        mode === "fullscreen"
          ? { position: "fixed", inset: "0", width: "100%", maxWidth: "none", height: "100%", border: "0" }
          : { position: "", inset: "", width: "", maxWidth: "", height: inlineHeight, border: "" },
      );
      void bridge.sendHostContextChange({ displayMode: mode });
    }
    return { mode: record.displayMode as DisplayMode };
  };
  bridge.onloggingmessage = (params) => {
    record.logs.push(params);
  };
  bridge.onsizechange = ({ width, height }) => {
    record.sizes.push({ width, height });
    if (width !== undefined) iframe.style.minWidth = `min(${width}px, 100%)`;
    if (height !== undefined) inlineHeight = `${height}px`;
    if (record.displayMode === "inline") iframe.style.height = inlineHeight;
  };
  return bridge;
}

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const serverUrl = new URL(required(params, "server"));
  const sandboxUrl = new URL(required(params, "sandbox"));
  const toolName = required(params, "tool");
  const args = JSON.parse(params.get("args") ?? "{}") as Record<string, unknown>;
  const era = params.get("era") ?? "legacy";

  const { client, tools } = await connectToServer(serverUrl, era);
  setState("connected", `${record.era} ${record.protocolVersion}`);

  const tool = tools.get(toolName);
  if (!tool) throw new Error(`unknown tool: ${toolName}`);
  const given = params.get("result");
  const resultPromise =
    given === null
      ? (client.callTool({ name: toolName, arguments: args }) as Promise<CallToolResult>)
      : Promise.resolve(JSON.parse(given) as CallToolResult);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${toolName} has no UI resource`);
  const resource = await readUiResource(client, uri);

  setState("rendering", uri);
  const iframe = document.querySelector<HTMLIFrameElement>("#view");
  if (!iframe) throw new Error("the host page has no #view frame");
  await loadSandboxProxy(iframe, sandboxUrl, resource.csp);

  const displayModes = (params.get("displayModes") ?? "inline,fullscreen").split(",") as DisplayMode[];
  const bridge = newAppBridge(client, iframe, tool, displayModes);
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => {
      record.appCapabilities = bridge.getAppCapabilities() ?? null;
      resolve();
    };
  });
  const view = iframe.contentWindow;
  if (!view) throw new Error("the sandbox frame has no window");
  await bridge.connect(new PostMessageTransport(view, view));
  await bridge.sendSandboxResourceReady({ html: resource.html, csp: resource.csp, permissions: resource.permissions });
  await initialized;

  await bridge.sendToolInput({ arguments: args });
  try {
    const result = await resultPromise;
    record.toolResult = result;
    await bridge.sendToolResult(result);
  } catch (error) {
    await bridge.sendToolCancelled({ reason: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  setState("ready", uri);
}

main().catch((error: unknown) => {
  record.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  setState("failed", record.error);
});
