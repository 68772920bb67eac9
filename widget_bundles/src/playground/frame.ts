// Renders a template in a sandboxed iframe with its CSP and hosts it through the bridges the emulated host has
// (hosts.ts): MCP Apps (AppBridge from @modelcontextprotocol/ext-apps) and, as ChatGPT, window.openai (emulated).
// The CSP is a <meta> first in the template's <head>: default-src 'none', scripts only from the template's
// resourceDomains plus, by their hashes, the playground's violation listener (csp-watch.ts) and, as ChatGPT, the
// window.openai script; never 'unsafe-eval' or 'unsafe-inline'.
// A bare host (`bare`) keeps from the widget what third-party hosts were seen to drop: the `_meta` of the results
// of its own tool calls (MCPJam's window.openai.callTool hands `_meta: null`) and any way to post a message in the
// conversation (the mcp-use inspector declares no `message`, and answers ui/message with "Method not found").

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { isRecord } from "../shared/dom";
import { sha256, widgetCsp } from "./csp";
import { CSP_WATCH_SCRIPT, watchCsp, type CspViolation } from "./csp-watch";
import { showModelContext } from "./model-context-view";
import type { Template } from "./mcp";
import { serveShim, shimScript } from "./openai-shim";

export type BridgeMode = "both" | "mcp-apps" | "openai";
export type Theme = "light" | "dark";

export interface FrameHost {
  callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Record<string, unknown>>;
  message(text: string): void;
  /** A Content-Security-Policy violation in the widget's frame. */
  cspViolation(violation: CspViolation): void;
  widgetState: Map<string, unknown>;
}

export interface FrameOptions {
  template: Template;
  toolInput: Record<string, unknown>;
  result: Record<string, unknown>;
  mode: BridgeMode;
  theme: Theme;
  bare?: boolean;
}

function sessionOf(result: Record<string, unknown>): string {
  const meta = isRecord(result._meta) ? result._meta : {};
  return typeof meta["openai/widgetSessionId"] === "string" ? meta["openai/widgetSessionId"] : "default";
}

function textOf(content: unknown): string {
  return Array.isArray(content)
    ? content
        .filter(isRecord)
        .map((c) => (typeof c.text === "string" ? c.text : ""))
        .join("\n")
    : "";
}

/** A result as a bare host hands it to the widget: `_meta` null for window.openai, absent for MCP Apps (whose
 *  result schema takes no null there). */
function withoutMeta(result: Record<string, unknown>, empty: null | undefined): Record<string, unknown> {
  const { _meta: _dropped, ...rest } = result;
  return empty === null ? { ...rest, _meta: null } : rest;
}

export class WidgetFrame {
  readonly iframe: HTMLIFrameElement;
  private bridge: AppBridge | null = null;
  private shim: ReturnType<typeof serveShim> | null = null;
  private stopCspWatch: (() => void) | null = null;
  private displayMode: "inline" | "fullscreen" = "inline";
  /** The height the widget last asked for, given back when it leaves fullscreen. */
  private inlineHeight = "160px";

  constructor(
    private readonly container: HTMLElement,
    private readonly host: FrameHost,
  ) {
    this.iframe = document.createElement("iframe");
    this.iframe.dataset.testid = "widget-frame";
    this.iframe.setAttribute("sandbox", "allow-scripts allow-forms");
    this.iframe.setAttribute("title", "widget");
    this.iframe.style.height = "160px";
  }

  async mount(options: FrameOptions): Promise<void> {
    const { template, mode, result, bare = false } = options;
    const session = sessionOf(result);
    const structured = isRecord(result.structuredContent) ? result.structuredContent : null;
    const meta = isRecord(result._meta) ? result._meta : null;
    const hashes: string[] = [await sha256(CSP_WATCH_SCRIPT)];
    let head = `<script>${CSP_WATCH_SCRIPT}</script>`;
    if (mode !== "mcp-apps") {
      const script = shimScript({
        theme: options.theme,
        displayMode: "inline",
        maxHeight: 2000,
        locale: navigator.language,
        toolInput: options.toolInput,
        toolOutput: structured,
        toolResponseMetadata: meta,
        widgetState: this.host.widgetState.get(session) ?? null,
      }, !bare);
      hashes.push(await sha256(script));
      head += `<script>${script}</script>`;
    }
    const csp = widgetCsp(template.meta, hashes);
    this.iframe.dataset.csp = csp;
    this.iframe.dataset.templateUri = template.uri;
    const cspMeta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, "&quot;")}">`;
    const html = template.html.replace(/<head>/i, `<head>${cspMeta}${head}`);
    this.container.replaceChildren(this.iframe);
    const frame = this.iframe.contentWindow;
    if (!frame) throw new Error("the widget frame has no window");
    this.stopCspWatch = watchCsp(frame, (violation) => this.host.cspViolation(violation));

    const resize = (height: number): void => {
      if (!Number.isFinite(height) || height <= 0) return;
      this.inlineHeight = `${Math.min(Math.ceil(height), 4000)}px`;
      if (this.displayMode === "inline") this.iframe.style.height = this.inlineHeight;
    };
    if (mode !== "mcp-apps") {
      this.shim = serveShim(frame, {
        callTool: async (name, args) => {
          const answer = await this.host.callTool(name, args);
          return bare ? withoutMeta(answer, null) : answer;
        },
        sendFollowUpMessage: (prompt) => this.host.message(prompt),
        setWidgetState: (state) => {
          this.host.widgetState.set(session, state);
          showModelContext("widgetState", JSON.stringify(state)); // ChatGPT shows the model the widget state
        },
        notifyIntrinsicHeight: resize,
        requestDisplayMode: (mode) => ({ mode: this.setDisplayMode(mode) }),
      });
    }
    if (mode !== "openai") {
      const bridge = new AppBridge(
        null,
        { name: "widget-mcp playground", version: "0.1.0" },
        { serverTools: {}, ...(bare ? {} : { message: { text: {} } }), openLinks: {}, updateModelContext: { text: {}, structuredContent: {} } },
        {
          hostContext: {
            theme: options.theme,
            displayMode: "inline",
            availableDisplayModes: ["inline", "fullscreen"],
            platform: "web",
            locale: navigator.language,
          },
        },
      );
      bridge.oncalltool = async (params) => {
        const answer = await this.host.callTool(params.name, params.arguments ?? {}, params._meta ?? {});
        return (bare ? withoutMeta(answer, undefined) : answer) as CallToolResult;
      };
      // A bare host has no handler: AppBridge answers ui/message with "Method not found", as such hosts do.
      if (!bare) {
        bridge.onmessage = async (params) => {
          this.host.message(textOf(params.content));
          return {};
        };
      }
      bridge.onupdatemodelcontext = async ({ content, structuredContent }) => {
        showModelContext("ui/update-model-context", textOf(content) || JSON.stringify(structuredContent ?? {}));
        return {};
      };
      bridge.onsizechange = (params) => resize(params.height ?? 0);
      bridge.onrequestdisplaymode = async ({ mode }) => ({ mode: this.setDisplayMode(mode) });
      bridge.onopenlink = async () => ({});
      bridge.oninitialized = () => {
        void bridge.sendToolInput({ arguments: options.toolInput });
        void bridge.sendToolResult(result as CallToolResult);
      };
      await bridge.connect(new PostMessageTransport(frame, frame));
      this.bridge = bridge;
    }
    this.iframe.srcdoc = html;
  }

  /** Fullscreen covers the playground's window with the frame; both bridges hear the new mode. */
  private setDisplayMode(requested: string): "inline" | "fullscreen" {
    const mode = requested === "fullscreen" ? "fullscreen" : "inline";
    this.displayMode = mode;
    this.iframe.dataset.displayMode = mode;
    const full = mode === "fullscreen";
    Object.assign(this.iframe.style, {
      position: full ? "fixed" : "",
      inset: full ? "0" : "",
      zIndex: full ? "100" : "",
      width: full ? "100%" : "",
      height: full ? "100%" : this.inlineHeight,
      borderRadius: full ? "0" : "",
      border: full ? "none" : "",
    });
    if (this.bridge) void this.bridge.sendHostContextChange({ displayMode: mode });
    this.shim?.push({ displayMode: mode });
    return mode;
  }

  setTheme(theme: Theme): void {
    if (this.bridge) void this.bridge.sendHostContextChange({ theme });
    this.shim?.push({ theme });
  }

  destroy(): void {
    this.stopCspWatch?.();
    this.shim?.stop();
    void this.bridge?.close();
    this.iframe.remove();
  }
}
