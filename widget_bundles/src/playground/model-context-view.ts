// The activity panel's "model context": what the model would now see of the widget, in each dialect that carried
// it (MCP Apps' `ui/update-model-context` text, ChatGPT's widget state), each replaced on its next update.

import { el } from "../shared/dom";

export type ContextSource = "ui/update-model-context" | "widgetState";

const SOURCES: readonly ContextSource[] = ["ui/update-model-context", "widgetState"];
const hint = el("p", { class: "wm-muted" }, "Nothing yet: a widget tells the model here when the user changes something in it.");
const entries = new Map(SOURCES.map((source) => [source, el("pre", { class: "model-context-entry", "data-source": source, title: source, hidden: true })]));
const current = el("div", { "data-testid": "model-context" }, ...entries.values());

export function modelContextView(): HTMLElement {
  return el("section", { class: "model-context" }, el("h3", {}, "Model context"), hint, current);
}

/** Shows `text` as what the model sees through `source`; `data-updates` counts that source's updates. */
export function showModelContext(source: ContextSource, text: string): void {
  const entry = entries.get(source);
  if (!entry) return;
  hint.remove();
  entry.hidden = false;
  entry.textContent = text;
  entry.dataset.updates = String(Number(entry.dataset.updates ?? 0) + 1);
}
