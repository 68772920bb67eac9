// `make dev` reloads: when the server comes back after a restart (its /events stream reconnects), the widget on
// show may have a new template (a rebuilt bundle is a new content-hashed ui:// URI). The frame is then rendered
// again from the new template, with the same tool input and the same result.

import { isRecord } from "../shared/dom";
import type { ToolInfo } from "./mcp";

/** What the stage shows: a tool call's widget, or a template previewed by name (`?template=`). */
export interface Shown {
  tool?: string;
  template?: string;
  uri: string;
  toolInput: Record<string, unknown>;
  result: Record<string, unknown>;
}

/** The URI the shown widget's template has now, looked up the way it was first found. */
export async function currentUri(
  shown: Shown,
  tools: ToolInfo[],
  findTemplate: (name: string) => Promise<string | undefined>,
): Promise<string | undefined> {
  if (shown.tool !== undefined) return tools.find((t) => t.name === shown.tool)?.resourceUri;
  if (shown.template !== undefined) return findTemplate(shown.template);
  return undefined;
}

/** The template to render instead of the shown one, or null when it is still current (or no longer there). */
export function replacement(shown: Shown, current: string | undefined): string | null {
  return current && current !== shown.uri ? current : null;
}

/** Whether the playground's own bundle was rebuilt: `manifest` is /widgets/manifest.json, `script` this page's
 * module script URL. */
export function playgroundRebuilt(manifest: unknown, script: string | undefined, widgetsPath = "/widgets"): boolean {
  if (!script || !isRecord(manifest) || !isRecord(manifest.entries)) return false;
  const entry = manifest.entries.playground;
  if (!isRecord(entry) || typeof entry.js !== "string") return false;
  return new URL(script, location.href).pathname !== `${widgetsPath}/${entry.js}`;
}
