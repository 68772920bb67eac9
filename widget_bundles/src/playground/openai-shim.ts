// ChatGPT's `window.openai` for a sandboxed frame: a small script the playground puts first in the template's
// <head> (allowed by its CSP hash). Calls travel to the playground as {"__openai": ...} postMessages; this is
// the one bridge @modelcontextprotocol/ext-apps does not implement, so it is emulated here.

import { isRecord } from "../shared/dom";

const SHIM = `(() => {
  const globals = __GLOBALS__;
  const pending = new Map();
  let next = 1;
  const call = (method, params) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    window.parent.postMessage({ __openai: "call", id, method, params }, "*");
  });
  const api = Object.assign(globals, {
    callTool: (name, args) => call("callTool", { name, args }),
    __MESSAGE__
    setWidgetState: (state) => { api.widgetState = state; return call("setWidgetState", { state }); },
    notifyIntrinsicHeight: (height) => { call("notifyIntrinsicHeight", { height }); },
    requestDisplayMode: (args) => call("requestDisplayMode", args),
    openExternal: (args) => call("openExternal", args),
  });
  window.openai = api;
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !event.data || typeof event.data !== "object") return;
    const data = event.data;
    if (data.__openai === "reply" && pending.has(data.id)) {
      const { resolve, reject } = pending.get(data.id);
      pending.delete(data.id);
      if (data.error) reject(new Error(data.error)); else resolve(data.result);
    } else if (data.__openai === "globals" && data.globals && typeof data.globals === "object") {
      Object.assign(api, data.globals);
      window.dispatchEvent(new CustomEvent("openai:set_globals", { detail: { globals: data.globals } }));
    }
  });
})();`;

export interface ShimGlobals {
  theme: "light" | "dark";
  displayMode: string;
  maxHeight: number;
  locale: string;
  toolInput: Record<string, unknown>;
  toolOutput: Record<string, unknown> | null;
  toolResponseMetadata: Record<string, unknown> | null;
  widgetState: unknown;
}

/** `message`: whether window.openai has sendFollowUpMessage (a bare host has none). */
export function shimScript(globals: ShimGlobals, message = true): string {
  // JSON inside a <script>: escape "<" so no data can close the element.
  return SHIM.replace("__GLOBALS__", JSON.stringify(globals).replace(/</g, "\\u003c")).replace(
    "__MESSAGE__",
    message ? 'sendFollowUpMessage: (args) => call("sendFollowUpMessage", args),' : "",
  );
}

export interface ShimHandlers {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  sendFollowUpMessage(prompt: string): void;
  setWidgetState(state: unknown): void;
  notifyIntrinsicHeight(height: number): void;
  /** Answers the mode the frame is shown in now. */
  requestDisplayMode(mode: string): { mode: string };
}

/** The playground's side: answers the frame's calls. Only messages from `frame` are read. */
export function serveShim(frame: Window, handlers: ShimHandlers): { push(globals: Record<string, unknown>): void; stop(): void } {
  const listener = (event: MessageEvent): void => {
    if (event.source !== frame || !isRecord(event.data) || event.data.__openai !== "call") return;
    const { id, method } = event.data;
    const params = isRecord(event.data.params) ? event.data.params : {};
    const reply = (result: unknown, error?: string): void => frame.postMessage({ __openai: "reply", id, result, error }, "*");
    const run = async (): Promise<unknown> => {
      switch (method) {
        case "callTool":
          return handlers.callTool(String(params.name), isRecord(params.args) ? params.args : {});
        case "sendFollowUpMessage":
          handlers.sendFollowUpMessage(String(params.prompt ?? ""));
          return null;
        case "setWidgetState":
          handlers.setWidgetState(params.state);
          return null;
        case "notifyIntrinsicHeight":
          handlers.notifyIntrinsicHeight(Number(params.height));
          return null;
        case "requestDisplayMode":
          return handlers.requestDisplayMode(String(params.mode));
        default:
          return null;
      }
    };
    run().then(
      (result) => reply(result),
      (error: unknown) => reply(null, String(error)),
    );
  };
  window.addEventListener("message", listener);
  return {
    push: (globals) => frame.postMessage({ __openai: "globals", globals }, "*"),
    stop: () => window.removeEventListener("message", listener),
  };
}
