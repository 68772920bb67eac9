// The local playground: pick a tool (or open /playground?tool=&args=), call it through /mcp, render its
// template in a sandboxed frame and host the widget like ChatGPT or an MCP Apps host would.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "./playground.css";
import { asText, el, isRecord } from "../shared/dom";
import { applyTheme, type Theme } from "../shared/theme";
import { activityPanel } from "./events";
import { WidgetFrame, type BridgeMode, type FrameHost } from "./frame";
import { callTool, findTemplate, listTools, readTemplate, SUBJECT, type ToolInfo } from "./mcp";

const params = new URLSearchParams(location.search);
const MODES: BridgeMode[] = ["both", "mcp-apps", "openai"];
let theme: Theme = params.get("theme") === "dark" ? "dark" : "light";
let mode: BridgeMode = MODES.find((m) => m === params.get("bridge")) ?? "both";
let frame: WidgetFrame | null = null;
let tools: ToolInfo[] = [];

const toolSelect = el("select", { "data-testid": "tool-select", "aria-label": "tool" });
const argsInput = el("textarea", { "data-testid": "tool-args", rows: 4, spellcheck: "false", "aria-label": "arguments (JSON)" });
const callButton = el("button", { type: "button", "data-testid": "call-tool" }, "Call tool");
const themeButton = el("button", { type: "button", "data-testid": "theme-toggle" }, "Dark");
const modeSelect = el("select", { "data-testid": "bridge-select", "aria-label": "bridge" }, ...MODES.map((m) => el("option", { value: m }, m)));
const chat = el("div", { class: "chat", "data-testid": "chat" });
const stage = el("div", { class: "stage", "data-testid": "stage" });
const app = el(
  "div",
  { class: "playground", "data-state": "loading" },
  el(
    "header",
    {},
    el("h1", {}, "widget-mcp playground"),
    el("span", { class: "wm-muted" }, `as ${SUBJECT}`),
    el("label", {}, "bridge ", modeSelect),
    themeButton,
  ),
  el(
    "main",
    {},
    el("section", { class: "call" }, el("label", {}, "tool ", toolSelect), argsInput, callButton, chat, stage),
    activityPanel(),
  ),
);

const widgetState = new Map<string, unknown>();

function say(kind: "user" | "tool" | "error" | "assistant", text: string): void {
  chat.appendChild(el("div", { class: `bubble ${kind}`, "data-testid": kind === "user" ? "chat-bubble" : `chat-${kind}` }, text));
}

function narration(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
  return content.map((c) => asText(c.text)).join("\n");
}

const host: FrameHost = {
  widgetState,
  async callTool(name, args, meta) {
    say("tool", `widget → ${name} ${JSON.stringify(args)}`);
    return callTool(name, args, meta);
  },
  message(text) {
    say("user", text);
  },
};

async function render(templateUri: string, toolInput: Record<string, unknown>, result: Record<string, unknown>): Promise<void> {
  frame?.destroy();
  const template = await readTemplate(templateUri);
  frame = new WidgetFrame(stage, host);
  await frame.mount({ template, toolInput, result, mode, theme });
}

async function run(name: string, args: Record<string, unknown>): Promise<void> {
  app.dataset.state = "calling";
  say("tool", `→ ${name} ${JSON.stringify(args)}`);
  const result = await callTool(name, args);
  say(result.isError ? "error" : "assistant", narration(result));
  const uri = tools.find((t) => t.name === name)?.resourceUri;
  if (uri) await render(uri, args, result);
  app.dataset.state = "rendered";
}

function parseArgs(text: string): Record<string, unknown> {
  const value: unknown = text.trim() ? JSON.parse(text) : {};
  if (!isRecord(value)) throw new Error("arguments must be a JSON object");
  return value;
}

async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    app.dataset.state = "error";
    say("error", String(error));
  }
}

function setTheme(next: Theme): void {
  theme = next;
  applyTheme(theme);
  themeButton.textContent = theme === "dark" ? "Light" : "Dark";
  frame?.setTheme(theme);
}

async function start(): Promise<void> {
  document.body.appendChild(app);
  setTheme(theme);
  modeSelect.value = mode;
  modeSelect.addEventListener("change", () => (mode = (modeSelect.value as BridgeMode) ?? "both"));
  themeButton.addEventListener("click", () => setTheme(theme === "dark" ? "light" : "dark"));
  tools = await listTools();
  toolSelect.replaceChildren(...tools.map((t) => el("option", { value: t.name }, t.title ? `${t.name} — ${t.title}` : t.name)));
  callButton.addEventListener("click", () => void guarded(() => run(toolSelect.value, parseArgs(argsInput.value))));
  app.dataset.state = "ready";
  const tool = params.get("tool");
  const template = params.get("template");
  if (tool) {
    toolSelect.value = tool;
    argsInput.value = params.get("args") ?? "{}";
    await run(tool, parseArgs(argsInput.value));
  } else if (template) {
    // Preview a template with a given result, without calling a tool: ?template=display&result=<JSON>.
    const uri = await findTemplate(template);
    if (!uri) throw new Error(`no template named ${template}`);
    const result = parseArgs(params.get("result") ?? "{}");
    await render(uri, {}, result);
    app.dataset.state = "rendered";
  }
}

void guarded(start);
