// The display host: renders a result's `_meta.widgets` in order, by type, with fallbacks.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "../chess/chess.css";
import "./display.css";
import { startWidget, type ToolResult } from "../shared/bridge";
import { el, isRecord } from "../shared/dom";
import { parseWidgets, renderWidget } from "./registry";

function render(root: HTMLElement, result: ToolResult): void {
  const widgets = parseWidgets(result._meta);
  const box = el("div", { class: "wm-display", "data-count": widgets.length });
  if (result.isError) {
    const error = isRecord(result.structuredContent?.error) ? result.structuredContent.error : {};
    const message = typeof error.message === "string" ? error.message : (result.content?.[0]?.text ?? "The tool failed.");
    box.appendChild(el("p", { class: "wm-error", role: "alert" }, message));
  }
  for (const widget of widgets) box.appendChild(renderWidget(widget));
  if (!widgets.length && !result.isError) {
    const narration = result.content?.find((c) => c.type === "text" && c.text)?.text;
    box.appendChild(el("p", { class: "wm-muted" }, narration ?? "Nothing to show."));
  }
  root.replaceChildren(box);
  performance.mark("wm:display-rendered");
}

const root = document.getElementById("root");
if (root) {
  root.replaceChildren(el("p", { class: "wm-muted" }, "Waiting for the tool result…"));
  startWidget({ name: "display", onResult: (result) => render(root, result) });
}
