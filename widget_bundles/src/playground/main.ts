// The local playground: pick a tool (or open /playground?tool=&args=), call it through /mcp, render its
// template in a sandboxed frame and host the widget like ChatGPT or an MCP Apps host would.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "./playground.css";
import { asText, el, isRecord } from "../shared/dom";
import { failureOf } from "../shared/errors";
import { applyTheme, type Theme } from "../shared/theme";
import { describeViolation } from "./csp-watch";
import { ArgsPanel } from "./args-form";
import { exampleArgs, MAX_ID_CHAIN, type ToolSchemas } from "./args-schema";
import { activityPanel } from "./events";
import { KnownIds } from "./known-ids";
import { WidgetFrame, type BridgeMode, type FrameHost } from "./frame";
import { HOSTS, hostKind, hostSpec, SUBJECT, type HostKind } from "./hosts";
import { refusal } from "./host-rules";
import { callTool, findTemplate, listTools, readTemplate, useIdentity, type ToolInfo } from "./mcp";
import { currentUri, playgroundRebuilt, replacement, type Shown } from "./reload";
import { resultSummary } from "./results";
import { discoverSignIn, signIn, type SignInAvailability } from "./sign-in";

const params = new URLSearchParams(location.search);
// ChatGPT offers both bridges, or (bridge=openai) only window.openai, as ChatGPT did before MCP Apps. The other
// hosts have the MCP Apps bridge only.
const CHATGPT_BRIDGES: BridgeMode[] = ["both", "openai"];
const host: HostKind = hostKind(params.get("host"));
let theme: Theme = params.get("theme") === "dark" ? "dark" : "light";
let mode: BridgeMode = host === "chatgpt" ? (CHATGPT_BRIDGES.find((m) => m === params.get("bridge")) ?? "both") : "mcp-apps";
// bare=1: whichever host, one that drops what some hosts drop (frame.ts): the _meta of a widget's own calls, messages.
const bare = params.get("bare") === "1";
let frame: WidgetFrame | null = null;
let shown: Shown | null = null;
let tools: ToolInfo[] = [];

const toolSelect = el("select", { "data-testid": "tool-select", "aria-label": "tool" });
const argsPanel = new ArgsPanel();
// The strings earlier results carried at the top of their structuredContent (gameId, formId): ids a later call needs,
// from this page and earlier loads of it as the same host (known-ids.ts).
const known = new KnownIds();
const seen = known.seen;
const callButton = el("button", { type: "button", "data-testid": "call-tool" }, "Call tool");
const themeButton = el("button", { type: "button", "data-testid": "theme-toggle" }, "Dark");
const hostSelect = el("select", { "data-testid": "host-select", "aria-label": "host" }, ...HOSTS.map((h) => el("option", { value: h.kind }, h.label)));
const identity = el("span", { class: "wm-muted identity", "data-testid": "host-identity" }, hostSpec(host).summary);
const modeSelect = el("select", { "data-testid": "bridge-select", "aria-label": "bridge" }, ...CHATGPT_BRIDGES.map((m) => el("option", { value: m }, m)));
const chat = el("div", { class: "chat", "data-testid": "chat" });
const stage = el("div", { class: "stage", "data-testid": "stage" });
const violations = el("ul", { class: "csp-violations", "data-testid": "csp-violations", "aria-label": "CSP violations" });
const app = el(
  "div",
  { class: "playground", "data-state": "loading", "data-host": host, "data-bare": bare },
  el(
    "header",
    {},
    el("h1", {}, "widget-mcp playground"),
    el("label", {}, "host ", hostSelect),
    identity,
    host === "chatgpt" && el("label", {}, "bridge ", modeSelect),
    themeButton,
  ),
  el(
    "main",
    {},
    el("section", { class: "call" }, el("label", {}, "tool ", toolSelect), argsPanel.element, callButton, chat, stage, violations),
    activityPanel(() => void guarded(refresh)),
  ),
);

const widgetState = new Map<string, unknown>();

function say(kind: "user" | "tool" | "error" | "assistant" | "note", text: string): HTMLElement {
  const bubble = el("div", { class: `bubble ${kind}`, "data-testid": kind === "user" ? "chat-bubble" : `chat-${kind}` }, text);
  chat.appendChild(bubble);
  return bubble;
}

function narration(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
  return content.map((c) => asText(c.text)).join("\n");
}

const frameHost: FrameHost = {
  widgetState,
  async callTool(name, args, meta) {
    say("tool", `widget → ${name} ${JSON.stringify(args)}`).dataset.origin = "widget";
    const refused = refusal(host, name, tools.find((t) => t.name === name));
    if (refused) {
      // Refused here, as the emulated host would: the call never reaches the server, and the widget gets an error.
      Object.assign(say("error", refused).dataset, { testid: "chat-refusal", origin: "widget", tool: name });
      throw new Error(refused);
    }
    let result: Record<string, unknown>;
    try {
      result = await callTool(name, args, meta);
    } catch (error) {
      widgetResult(name, "error", String(error));
      throw error;
    }
    known.learn(result);
    known.forgetGone(args, result);
    widgetResult(name, failureOf(result) ? "error" : "ok", resultSummary(result));
    return result;
  },
  message(text) {
    say("user", text);
  },
  cspViolation(violation) {
    violations.appendChild(el("li", { "data-testid": "csp-violation" }, `CSP violation: ${describeViolation(violation)}`));
  },
};

/** What a widget's own call answered, under its request, as a call made here shows its answer. */
function widgetResult(name: string, outcome: "ok" | "error", text: string): void {
  const bubble = say(outcome === "ok" ? "assistant" : "error", `${name}: ${text}`);
  Object.assign(bubble.dataset, { testid: "chat-widget-result", origin: "widget", tool: name, outcome });
}

async function render(next: Shown): Promise<void> {
  frame?.destroy();
  shown = next;
  const template = await readTemplate(next.uri);
  frame = new WidgetFrame(stage, frameHost);
  await frame.mount({ template, toolInput: next.toolInput, result: next.result, mode, theme, bare });
}

function showTools(list: ToolInfo[]): void {
  const selected = toolSelect.value;
  tools = list;
  toolSelect.replaceChildren(...tools.map((t) => el("option", { value: t.name }, t.title ? `${t.name} — ${t.title}` : t.name)));
  if (selected && tools.some((t) => t.name === selected)) toolSelect.value = selected;
}

/** The server is back after a restart (`make dev` reloads on changes): take its tools again, and render the shown
 * widget again from its new template if it has one. */
async function refresh(): Promise<void> {
  showTools(await listTools());
  const manifest: unknown = await fetch("/widgets/manifest.json", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  const script = document.querySelector<HTMLScriptElement>('script[type="module"][src]')?.src;
  if (playgroundRebuilt(manifest, script) && !app.querySelector('[data-testid="chat-note"][data-playground]')) {
    say("note", "The playground itself was rebuilt: reload this page to use it.").dataset.playground = "";
  }
  if (!shown || app.dataset.state === "calling") return;
  const uri = replacement(shown, await currentUri(shown, tools, findTemplate));
  if (!uri) return;
  say("note", `New template ${uri}: the widget is shown again, with the same result.`);
  await render({ ...shown, uri });
}

async function run(name: string, given: Record<string, unknown>): Promise<void> {
  app.dataset.state = "calling";
  const args = await withIds(name, given);
  say("tool", `→ ${name} ${JSON.stringify(args)}`);
  const result = await callTool(name, args);
  known.learn(result);
  forgetGone(name, args, result);
  const failed = failureOf(result) !== null;
  const answer = say(failed ? "error" : "assistant", narration(result));
  Object.assign(answer.dataset, { tool: name, outcome: failed ? "error" : "ok" });
  const uri = tools.find((t) => t.name === name)?.resourceUri;
  if (uri) await render({ tool: name, uri, toolInput: args, result });
  app.dataset.state = "rendered";
}

/** A not-found answer to ids a result carried: they are forgotten and left out of the form, so the next "Call tool"
 * makes new ones first (make dev starts with empty state, and a page may hold ids from before). */
function forgetGone(name: string, args: Record<string, unknown>, result: Record<string, unknown>): void {
  const gone = known.forgetGone(args, result);
  if (!gone.length) return;
  argsPanel.setArgs(Object.fromEntries(Object.entries(args).filter(([field]) => !gone.includes(field))));
  const text = `The server knows no ${gone.map((f) => `${f} ${String(args[f])}`).join(", ")}: forgotten, so the next call makes a new one first.`;
  Object.assign(say("note", text).dataset, { testid: "chat-forgot-id", tool: name });
}

/** `args`, with each id it lacks that no earlier result carried made first by the tool that returns one (a new
 * game for chess_move, a form for get_form_response), and the ids that maker needs made before it (a poll's space,
 * then the poll in it); the chat says so, and the form shows the id. Only a press of "Call tool" gets here: picking a
 * tool never calls anything. */
async function withIds(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return args;
  const filled = { ...args };
  for (const { field, producer, source } of exampleArgs(tool, tools, seen).missing) {
    if (field in filled) continue;
    if (await makeId(producer, source, field, 1)) filled[field] = seen.get(source);
  }
  if (Object.keys(filled).length !== Object.keys(args).length) argsPanel.show(name, tool.inputSchema, filled);
  return filled;
}

/** Whether an id `source` of `producer`'s result is known now: made by calling `producer` with its example, after
 * making the ids it needs itself (at most MAX_ID_CHAIN makers deep, as the server allows), each once: a later field
 * takes what an earlier maker made (the same space for the poll and the vote). */
async function makeId(producer: ToolSchemas, source: string, field: string, depth: number): Promise<boolean> {
  if (seen.has(source)) return true;
  if (depth > MAX_ID_CHAIN) return false;
  const made = exampleArgs(producer, tools, seen);
  for (const need of made.missing) {
    if (!(await makeId(need.producer, need.source, need.field, depth + 1))) return false;
    made.args[need.field] = seen.get(need.source);
  }
  const result = await callTool(producer.name, made.args);
  known.learn(result);
  const text = seen.has(source)
    ? `No ${field} known yet: called ${producer.name} first to make one: ${String(seen.get(source))}.`
    : `${producer.name} gave no ${source}: ${resultSummary(result)}`;
  Object.assign(say("note", text).dataset, { testid: "chat-made-id", tool: producer.name });
  return seen.has(source);
}

/** Fills the argument form with a working example for the chosen tool, with the newest id known for an argument
 * that needs one (none known: left out, and made when the tool is called). */
async function prefill(): Promise<void> {
  const tool = tools.find((t) => t.name === toolSelect.value);
  if (!tool) return;
  argsPanel.show(tool.name, tool.inputSchema, exampleArgs(tool, tools, seen).args);
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

/** The signed-in choice says when sign-in is not there, and why. */
function offerSignIn(availability: SignInAvailability): void {
  const option = hostSelect.querySelector<HTMLOptionElement>('option[value="signed-in"]');
  if (!option || availability.available) return;
  option.disabled = true;
  option.textContent = `${hostSpec("signed-in").label} (off)`;
  option.title = availability.reason;
}

/** Sets up the identity the chosen host sends. */
async function useHost(availability: SignInAvailability): Promise<void> {
  identity.textContent = hostSpec(host).summary + (bare ? "; bare: widget calls answered without _meta, no messages" : "");
  if (host === "chatgpt") {
    useIdentity({ meta: { "openai/subject": SUBJECT } });
  } else if (host === "mcp-apps") {
    useIdentity({ meta: {} });
  } else {
    if (!availability.available) {
      identity.textContent = availability.reason;
      throw new Error(availability.reason);
    }
    const server = availability.server;
    identity.textContent = "signing in…";
    const first = await signIn(server);
    useIdentity({ meta: {}, token: first.token, renew: async () => (await signIn(server)).token });
    identity.textContent = `signed in as ${first.subject} (bearer token from ${server.issuer})`;
    identity.dataset.subject = first.subject;
  }
}

/** Another host is another conversation: the page starts again as that host (same tool and arguments). */
function switchHost(next: string): void {
  const query = new URLSearchParams(location.search);
  query.set("host", next);
  if (next !== "chatgpt") query.delete("bridge");
  location.search = query.toString();
}

function setTheme(next: Theme): void {
  theme = next;
  applyTheme(theme);
  themeButton.textContent = theme === "dark" ? "Light" : "Dark";
  frame?.setTheme(theme);
}

async function start(): Promise<void> {
  document.body.appendChild(app);
  if (params.get("host") !== host) {
    params.set("host", host); // the URL always names the host, so a copied link opens the same one
    history.replaceState(null, "", `${location.pathname}?${params}`);
  }
  setTheme(theme);
  hostSelect.value = host;
  hostSelect.addEventListener("change", () => switchHost(hostSelect.value));
  modeSelect.value = mode;
  modeSelect.addEventListener("change", () => (mode = (modeSelect.value as BridgeMode) ?? "both"));
  themeButton.addEventListener("click", () => setTheme(theme === "dark" ? "light" : "dark"));
  const availability = await discoverSignIn().catch(
    (error: unknown): SignInAvailability => ({ available: false, reason: `Sign-in could not be checked: ${String(error)}` }),
  );
  offerSignIn(availability);
  await useHost(availability);
  known.useScope(host, identity.dataset.subject);
  showTools(await listTools());
  callButton.addEventListener("click", () => void guarded(() => run(toolSelect.value, argsPanel.value())));
  toolSelect.addEventListener("change", () => void guarded(prefill));
  app.dataset.state = "ready";
  const tool = params.get("tool");
  const template = params.get("template");
  if (tool) {
    toolSelect.value = tool;
    const given = params.get("args");
    if (given === null) await prefill();
    else argsPanel.showText(tool, tools.find((t) => t.name === tool)?.inputSchema, given);
    await run(tool, argsPanel.value());
  } else if (template) {
    // Preview a template with a given result, without calling a tool: ?template=display&result=<JSON>.
    const uri = await findTemplate(template);
    if (!uri) throw new Error(`no template named ${template}`);
    const result = parseArgs(params.get("result") ?? "{}");
    await render({ template, uri, toolInput: {}, result });
    app.dataset.state = "rendered";
  } else {
    await prefill();
  }
}

void guarded(start);
