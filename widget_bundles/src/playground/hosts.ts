// The hosts the playground emulates, chosen in its header and in the URL (`host=`). They differ in the bridges
// a widget finds and in the identity each call carries, which is what decides whose state a call reaches.

export type HostKind = "chatgpt" | "mcp-apps" | "signed-in";

export interface HostSpec {
  kind: HostKind;
  label: string;
  /** What the host sends, in one line (the header shows it beside the choice). */
  summary: string;
}

export const SUBJECT = "playground-user";

export const HOSTS: readonly HostSpec[] = [
  {
    kind: "mcp-apps",
    label: "MCP Apps host (Claude, VS Code)",
    summary: "MCP Apps bridge only, no identity in any call",
  },
  {
    kind: "chatgpt",
    label: "ChatGPT",
    summary: `window.openai and MCP Apps, openai/subject = ${SUBJECT}`,
  },
  {
    kind: "signed-in",
    label: "Signed in (OAuth)",
    summary: "MCP Apps bridge only, a bearer token from the local issuer",
  },
];

/** The strictest host is the default: it is what most hosts send (no user identity at all). */
export const DEFAULT_HOST: HostKind = "mcp-apps";

export function hostKind(value: string | null): HostKind {
  return HOSTS.find((h) => h.kind === value)?.kind ?? DEFAULT_HOST;
}

export function hostSpec(kind: HostKind): HostSpec {
  return HOSTS.find((h) => h.kind === kind) ?? HOSTS[0]!;
}
