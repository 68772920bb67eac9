// The DGUI form widget (entry `form`): renders ask_question's `dgui_form` with RJSF and answers through
// submit_form. Hosts deliver the tool result through the shared bridge, like every other widget.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "./form.css";
import { createElement } from "react";
import { createRoot, type Root } from "react-dom/client";
import { startWidget, type Host, type ToolResult } from "../shared/bridge";
import { el, isRecord } from "../shared/dom";
import { FormApp, type Props, type Saved } from "./app";
import { answerKeyOf, drawingSteps, parseError, parseForm } from "./payload";

const container = document.getElementById("root");
let reactRoot: Root | null = null;
/** What the shown form was rendered with: a later delivery of the same form may bring the answer key it lacked. */
let shown: Props | null = null;

function savedState(host: Host, valueSteps: number): Saved | null {
  const state = host.widgetState();
  if (!isRecord(state) || typeof state.formId !== "string" || !Array.isArray(state.answered)) return null;
  // A step kept in widgetState is read like any payload: through the same checks as the tool result's.
  const kept = isRecord(state.form) ? state.form : null;
  const metadata = { step: kept?.step, steps: kept?.steps };
  const form = kept ? parseForm({ ...kept, type: "dgui_form", metadata }, valueSteps) : null;
  return { ...(state as unknown as Saved), form: form ?? undefined };
}

function show(root: HTMLElement, host: Host, result: ToolResult): void {
  const valueSteps = drawingSteps(result._meta);
  const form = parseForm(result.structuredContent, valueSteps);
  if (!form) {
    reactRoot?.unmount();
    reactRoot = null;
    shown = null;
    const problem = parseError(result, result.content?.find((c) => c.text)?.text ?? "This result has no form to show.");
    root.replaceChildren(el("p", { class: "wm-error", role: "alert", "data-testid": "form-message", "data-code": problem.code }, problem.message));
    return;
  }
  const answerKey = answerKeyOf(result._meta);
  if (reactRoot && shown?.initial.formId === form.formId) {
    // The same form delivered again (both bridges, globals updates): shown as it is, taking only a key the first
    // delivery lacked. The mcp-use inspector's window.openai delivers first, its toolResponseMetadata being the
    // whole result (the key one level down); its ui/notifications/tool-result then brings the result's own `_meta`.
    if (answerKey && !shown.answerKey) render(reactRoot, { ...shown, answerKey });
    return;
  }
  reactRoot?.unmount();
  root.replaceChildren();
  reactRoot = createRoot(root);
  render(reactRoot, { host, initial: form, saved: savedState(host, valueSteps), valueSteps, answerKey });
  requestAnimationFrame(() => performance.mark("wm:form-rendered"));
}

/** Keyed by the form: rendering it again with new props keeps what the user typed. */
function render(target: Root, props: Props): void {
  shown = props;
  target.render(createElement(FormApp, { key: props.initial.formId, ...props }));
}

if (container) {
  container.replaceChildren(el("p", { class: "wm-muted" }, "Waiting for the form…"));
  const host: Host = startWidget({
    name: "form",
    onResult: (result) => {
      try {
        show(container, host, result);
      } catch (error) {
        console.error("form widget:", error);
        container.replaceChildren(el("p", { class: "wm-error", role: "alert", "data-testid": "form-message", "data-code": "render" }, `The form could not be shown: ${String(error)}`));
      }
    },
  });
}
