// The parts of ChatGPT's `window.openai` the widgets use (the Apps SDK bridge, the fallback to MCP Apps).

export interface OpenAiGlobals {
  theme?: "light" | "dark";
  toolInput?: Record<string, unknown> | null;
  toolOutput?: Record<string, unknown> | null;
  toolResponseMetadata?: Record<string, unknown> | null;
  widgetState?: unknown;
}

export interface OpenAiApi extends OpenAiGlobals {
  callTool?: (name: string, args: Record<string, unknown>) => Promise<unknown>;
  sendFollowUpMessage?: (args: { prompt: string }) => Promise<void>;
  setWidgetState?: (state: unknown) => Promise<void> | void;
  notifyIntrinsicHeight?: (height: number) => void;
}

export const SET_GLOBALS_EVENT = "openai:set_globals";

export interface SetGlobalsDetail {
  globals: Partial<OpenAiGlobals>;
}

export function openAi(): OpenAiApi | undefined {
  const api = (window as unknown as { openai?: OpenAiApi }).openai;
  return typeof api === "object" && api !== null ? api : undefined;
}
