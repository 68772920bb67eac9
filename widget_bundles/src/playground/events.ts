// The activity panel: seed-003 typed events (status, tool_start, tool_end, done) from GET /events (SSE).

import { asText, el, isRecord } from "../shared/dom";
import { modelContextView } from "./model-context-view";

const MAX_ROWS = 200;
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 4_000;
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };

/** Previews arrive HTML-escaped (for hosts that insert HTML); this panel shows them as text. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

function describe(type: string, data: Record<string, unknown>): string {
  switch (type) {
    case "status":
      return asText(data.description);
    case "tool_start":
      return `${asText(data.name)} started`;
    case "tool_end": {
      const outcome = data.error_code ? `failed (${asText(data.error_code)})` : "finished";
      const millis = typeof data.duration_ms === "number" ? ` in ${data.duration_ms} ms` : "";
      return `${asText(data.name)} ${outcome}${millis}`;
    }
    case "done":
      return "done";
    default:
      return type;
  }
}

/** `reconnected` runs each time the stream opens again after it was lost: under `make dev` the server was
 * restarted (a reload), so what it serves may have changed. */
export function activityPanel(reconnected: () => void = () => undefined): HTMLElement {
  const list = el("ol", { class: "events", "data-testid": "activity-events" });
  const panel = el("section", { class: "activity", "data-testid": "activity" }, el("h2", {}, "Activity"), modelContextView(), list);
  let opened = false;
  let retryMs = FIRST_RETRY_MS;
  const connect = (): void => {
    const source = new EventSource("/events");
    source.onopen = () => {
      panel.setAttribute("data-connected", "true");
      retryMs = FIRST_RETRY_MS;
      if (opened) reconnected();
      opened = true;
    };
    source.onerror = () => {
      panel.removeAttribute("data-connected");
      // The browser retries a dropped stream itself, but gives up on an HTTP error answer: `make dev` answers 503
      // while the app fails to load, and the playground must notice when it loads again.
      if (source.readyState !== EventSource.CLOSED) return;
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    };
    source.onmessage = (message) => appendEvent(list, message);
  };
  connect();
  return panel;
}

function appendEvent(list: HTMLElement, message: MessageEvent<string>): void {
  let event: unknown;
  try {
    event = JSON.parse(message.data);
  } catch {
    return;
  }
  if (!isRecord(event) || typeof event.type !== "string") return;
  const data = isRecord(event.data) ? event.data : {};
  const row = el(
    "li",
    { "data-event-type": event.type, "data-tool": typeof data.name === "string" ? data.name : undefined },
    el("span", { class: `badge ${event.type}` }, event.type),
    " ",
    el("span", { class: "what" }, describe(event.type, data)),
  );
  if (typeof data.result === "string" && data.result) {
    row.appendChild(el("div", { class: "preview", "data-testid": "event-preview" }, unescapeHtml(data.result)));
  }
  list.appendChild(row);
  while (list.children.length > MAX_ROWS) list.firstElementChild?.remove();
  list.scrollTop = list.scrollHeight;
}
