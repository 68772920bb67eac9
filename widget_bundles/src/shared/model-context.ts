// What a widget tells the model after a change the user made in it (a move, a submitted form), in both dialects:
// MCP Apps' `ui/update-model-context` carries a compact text (plus the same facts as structuredContent where the
// host takes it); ChatGPT's model reads the widget state instead, so the facts go there too, under one key.

import type { App } from "@modelcontextprotocol/ext-apps";

export interface ModelContext {
  /** A short paragraph the model reads: what is on the widget now. */
  text: string;
  /** The same facts as fields. */
  fields: Record<string, unknown>;
}

/** The widget-state key the facts live under, beside (never over) what the widget saves for itself. */
export const MODEL_CONTEXT_KEY = "modelContext";

/** Sends the context to an MCP Apps host, if it says it takes context updates (hostCapabilities.updateModelContext). */
export async function sendModelContext(app: App, context: ModelContext): Promise<void> {
  const accepts = app.getHostCapabilities()?.updateModelContext;
  if (!accepts) return;
  await app.updateModelContext({
    content: [{ type: "text", text: context.text }],
    ...(accepts.structuredContent ? { structuredContent: context.fields } : {}),
  });
}

/** A widget state with the latest facts for the model in it (ChatGPT shows the widget state to the model). */
export function withModelContext(state: Record<string, unknown>, context: ModelContext | null): Record<string, unknown> {
  return context ? { ...state, [MODEL_CONTEXT_KEY]: context.fields } : state;
}
