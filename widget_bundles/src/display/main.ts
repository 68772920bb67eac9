// The display host: renders a result's `_meta.widgets` in order, by type, with fallbacks.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "../chess/chess.css";
import "./display.css";
import { startWidget, type ToolResult } from "../shared/bridge";
import { el } from "../shared/dom";
import { failureOf } from "../shared/errors";
import { parseWidgets, renderWidget } from "./registry";

function render(root: HTMLElement, result: ToolResult): void {
  const widgets = parseWidgets(result._meta);
  const box = el("div", { class: "wm-display", "data-count": widgets.length });
  const failure = failureOf(result);
  if (failure) box.appendChild(el("p", { class: "wm-error", role: "alert", "data-code": failure.code }, failure.message));
  for (const widget of widgets) box.appendChild(renderWidget(widget));
  if (!widgets.length && !failure) {
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
