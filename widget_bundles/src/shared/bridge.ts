// The one runtime every widget shares: MCP Apps (through @modelcontextprotocol/ext-apps) first, with
// ChatGPT's `window.openai` as the fallback and for what MCP Apps lacks (widgetState).

import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { DisplayModes, type DisplayMode } from "./display-mode";
import { isRecord } from "./dom";
import { sendModelContext, withModelContext, type ModelContext } from "./model-context";
import { openAi, SET_GLOBALS_EVENT, type OpenAiApi, type SetGlobalsDetail } from "./openai";
import { applyTheme } from "./theme";

export interface ToolResult {
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

export type BridgeKind = "mcp-apps" | "openai" | "none";

/** An optional call a widget shows a control for (display modes: DisplayModes.offers). An MCP Apps host lists
 *  what it takes in its hostCapabilities, ChatGPT's window.openai by having the function or not. */
export type HostFeature = "message";

export interface Host {
  /** Which bridge carries tool calls right now. */
  readonly kind: BridgeKind;
  /** Inline or fullscreen, where the host offers it (display-mode.ts). */
  readonly display: DisplayModes;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  offers(feature: HostFeature): boolean;
  /** A message in the conversation, as the user's; false (nothing sent) where the host takes none. */
  sendMessage(text: string): Promise<boolean>;
  widgetState(): Record<string, unknown> | null;
  setWidgetState(state: Record<string, unknown>): void;
  /** Tells the model what the user changed in the widget (ui/update-model-context, and ChatGPT's widget state). */
  updateModelContext(context: ModelContext): void;
}

export interface WidgetOptions {
  name: string;
  /** Called with every tool result the host delivers (the initial one and later ones). */
  onResult(result: ToolResult): void;
  /** How long to wait for an MCP Apps host when `window.openai` is there to fall back on. */
  handshakeMs?: number;
  /** The display modes the widget can lay itself out in, declared to an MCP Apps host at ui/initialize. */
  displayModes?: DisplayMode[];
}

export function toToolResult(value: unknown): ToolResult {
  if (!isRecord(value)) return {};
  const inner = isRecord(value.result) && !("structuredContent" in value) ? value.result : value;
  const result: ToolResult = {};
  if (isRecord(inner.structuredContent)) result.structuredContent = inner.structuredContent;
  if (isRecord(inner._meta)) result._meta = inner._meta;
  if (Array.isArray(inner.content)) result.content = inner.content as ToolResult["content"];
  if (inner.isError === true) result.isError = true;
  return result;
}

class WidgetHost implements Host {
  kind: BridgeKind = "none";
  readonly display = new DisplayModes();
  private app: App | null = null;
  private localState: Record<string, unknown> | null = null;
  private modelContext: ModelContext | null = null;

  constructor(private readonly openai: OpenAiApi | undefined) {
    if (openai) this.kind = "openai";
  }

  useApp(app: App): void {
    this.app = app;
    this.kind = "mcp-apps";
    this.display.useApp(app);
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (this.app) return toToolResult(await this.app.callServerTool({ name, arguments: args }));
    if (this.openai?.callTool) return toToolResult(await this.openai.callTool(name, args));
    throw new Error("no host bridge: this widget must run inside an MCP Apps or ChatGPT host");
  }

  offers(feature: HostFeature): boolean {
    // An MCP Apps host's hostCapabilities decide, even beside a window.openai: the mcp-use inspector puts a
    // window.openai in its MCP Apps frames whose sendFollowUpMessage is ui/message, which that host refuses.
    if (this.app) return Boolean(this.app.getHostCapabilities()?.[feature]);
    return typeof this.openai?.sendFollowUpMessage === "function";
  }

  async sendMessage(text: string): Promise<boolean> {
    // Never sent to a host that did not offer it: one that lacks the method answers "Method not found".
    if (!this.offers("message")) return false;
    if (this.app) await this.app.sendMessage({ role: "user", content: [{ type: "text", text }] });
    else await this.openai?.sendFollowUpMessage?.({ prompt: text });
    return true;
  }

  widgetState(): Record<string, unknown> | null {
    const state = this.openai ? this.openai.widgetState : this.localState;
    return isRecord(state) ? state : this.localState;
  }

  setWidgetState(state: Record<string, unknown>): void {
    // The model's facts stay in the widget state whatever the widget saves over it.
    const full = withModelContext(state, this.modelContext);
    this.localState = full;
    void this.openai?.setWidgetState?.(full);
  }

  updateModelContext(context: ModelContext): void {
    this.modelContext = context;
    // A host that refuses the update changes nothing for the user: the move or the answers are already saved.
    // Each bridge only where it takes it: sendModelContext reads hostCapabilities, setWidgetState may be absent.
    if (this.app) sendModelContext(this.app, context).catch(() => undefined);
    if (this.openai) this.setWidgetState(this.widgetState() ?? {});
  }
}

/** Start a widget: deliver tool results to `onResult`, follow the host theme, report the widget's size. */
export function startWidget(options: WidgetOptions): Host {
  const openai = openAi();
  const host = new WidgetHost(openai);
  if (openai) followOpenAi(openai, options.onResult);
  const capabilities = options.displayModes ? { availableDisplayModes: options.displayModes } : {};
  const app = new App({ name: options.name, version: "0.1.0" }, capabilities, { autoResize: true });
  app.ontoolresult = (params) => options.onResult(toToolResult(params));
  app.onhostcontextchanged = (context) => applyTheme(context.theme);
  const timeout = openai ? (options.handshakeMs ?? 1500) : 60_000;
  app
    .connect(new PostMessageTransport(window.parent, window.parent), { timeout })
    .then(() => {
      host.useApp(app);
      applyTheme(app.getHostContext()?.theme);
      document.documentElement.dataset.bridge = "mcp-apps";
    })
    .catch(() => {
      // No MCP Apps host answered: stay on window.openai if there is one.
      document.documentElement.dataset.bridge = openai ? "openai" : "none";
    });
  return host;
}

function followOpenAi(openai: OpenAiApi, onResult: (result: ToolResult) => void): void {
  applyTheme(openai.theme);
  const deliver = (): void => {
    const meta = isRecord(openai.toolResponseMetadata) ? openai.toolResponseMetadata : undefined;
    // An error result may have no structuredContent at all: its `_meta.error` says what went wrong.
    const failed = isRecord(meta?.error);
    if (!isRecord(openai.toolOutput) && !failed) return;
    const result: ToolResult = {};
    if (isRecord(openai.toolOutput)) result.structuredContent = openai.toolOutput;
    if (meta) result._meta = meta;
    if (failed) result.isError = true;
    onResult(result);
  };
  queueMicrotask(deliver); // after startWidget has returned the host to its caller
  window.addEventListener(SET_GLOBALS_EVENT, (event) => {
    const globals = (event as CustomEvent<SetGlobalsDetail>).detail?.globals ?? {};
    if ("theme" in globals) applyTheme(globals.theme);
    if ("toolOutput" in globals || "toolResponseMetadata" in globals) deliver();
  });
  if (openai.notifyIntrinsicHeight) {
    const notify = openai.notifyIntrinsicHeight.bind(openai);
    let last = -1;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        notify(height);
      }
    }).observe(document.documentElement);
  }
}
