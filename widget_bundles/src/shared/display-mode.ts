// Inline or fullscreen, in both dialects: MCP Apps `ui/request-display-mode` (the host lists what it offers in its
// context's `availableDisplayModes`), else ChatGPT's `window.openai.requestDisplayMode` (which lists nothing: a
// host that has the function offers fullscreen).

import type { App } from "@modelcontextprotocol/ext-apps";
import { openAi, SET_GLOBALS_EVENT, type OpenAiApi, type SetGlobalsDetail } from "./openai";

export type DisplayMode = "inline" | "fullscreen" | "pip";

type OpenAiDisplay = OpenAiApi & {
  displayMode?: unknown;
  requestDisplayMode?: (args: { mode: DisplayMode }) => Promise<unknown>;
};

const asMode = (value: unknown): DisplayMode => (value === "fullscreen" || value === "pip" ? value : "inline");

export class DisplayModes {
  private app: App | null = null;
  private readonly openai = openAi() as OpenAiDisplay | undefined;
  /** What the host answered to the last request, until its context or globals say otherwise. */
  private granted: DisplayMode | null = null;
  /** Called when the mode, or what the host offers, may have changed. */
  onchange = (): void => undefined;

  constructor() {
    window.addEventListener(SET_GLOBALS_EVENT, (event) => {
      if ("displayMode" in ((event as CustomEvent<SetGlobalsDetail>).detail?.globals ?? {})) this.changed(null);
    });
  }

  /** MCP Apps answered: its host context decides from now on. */
  useApp(app: App): void {
    this.app = app;
    app.addEventListener("hostcontextchanged", () => this.changed(null));
    this.changed(null);
  }

  /** The mode the host shows the widget in now. */
  get mode(): DisplayMode {
    return this.granted ?? asMode(this.app ? this.app.getHostContext()?.displayMode : this.openai?.displayMode);
  }

  offers(mode: DisplayMode): boolean {
    if (this.app) return this.app.getHostContext()?.availableDisplayModes?.includes(mode) ?? false;
    return typeof this.openai?.requestDisplayMode === "function";
  }

  /** Asks the host for `mode`; `onchange` hears what the host granted (its answer, or a change of its context). */
  async request(mode: DisplayMode): Promise<void> {
    if (mode !== "inline" && !this.offers(mode)) return; // never asked of a host that does not list it
    const answer = this.app ? await this.app.requestDisplayMode({ mode }) : await this.openai?.requestDisplayMode?.({ mode });
    const granted = asMode((answer as { mode?: unknown } | undefined)?.mode ?? this.mode);
    if (granted !== this.mode) this.changed(granted);
  }

  private changed(granted: DisplayMode | null): void {
    this.granted = granted;
    this.onchange();
  }
}
