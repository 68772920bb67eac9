// What a real host refuses of a widget's own tools/call, checked before the call leaves the playground, so a widget
// that works here works there: ChatGPT runs only tools declared `openai/widgetAccessible: true`; an MCP Apps host
// only those whose `ui.visibility` names "app" (the toolkit publishes both from widget_accessible=True), and neither
// runs a tool the server does not list.

import type { HostKind } from "./hosts";
import type { ToolInfo } from "./mcp";

const DECLARE = "declare it with widget_accessible=True";

export function refusal(host: HostKind, name: string, tool: ToolInfo | undefined): string | null {
  if (!tool) return `The host refused the widget's call to ${name}: this server lists no such tool.`;
  if (host === "chatgpt" && !tool.widgetAccessible) {
    return `ChatGPT refused the widget's call to ${name}: the tool is not widget-accessible (${DECLARE}).`;
  }
  if (!tool.appVisible) {
    return `The host refused the widget's call to ${name}: its ui.visibility leaves out "app", so widgets may not call it (${DECLARE}).`;
  }
  return null;
}
