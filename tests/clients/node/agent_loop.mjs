// The line protocol of the agent framework drivers (tests/clients/agent_specs_ts.py names them): each connects to the
// server through the framework's own MCP layer and plays one turn of an agent whose model is scripted, not an LLM.
// The model asks for one tool call; the framework runs it through its own tool wrapper and hands the model the
// output, which the driver answers verbatim (`seen`), with the names of the tools the model was offered.
import { readFileSync } from "node:fs";
import { serveCommands, wire } from "./driver_loop.mjs";

/** The version of an installed package, read from its own package.json (what really loaded). */
export function installedVersion(pkg) {
  return JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version;
}

/** A scripted model's plan for one turn: call `name` with `args`, then read what comes back and stop. */
export class Turn {
  constructor(name, args) {
    this.name = name;
    this.args = args;
    this.seen = undefined;
    this.offered = null;
    this.called = false;
  }
}

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const step = (content, unified) => ({ content, finishReason: { unified, raw: unified }, usage: USAGE, warnings: [] });

/** The AI SDK's mock model (`ai/test`'s `MockModel`, the spec version the framework takes) playing `turn`: it records
 * the tools it is offered, calls `turn.name` (as `${prefix}${name}`, the framework's naming) once, and records the
 * tool-result parts of its next prompt as `turn.seen`. */
export function scriptedMock(MockModel, turn, prefix = "") {
  return new MockModel({
    doGenerate: async (options) => {
      turn.offered = (options.tools ?? []).map((tool) => tool.name);
      const results = options.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
      if (results.length) {
        turn.seen = wire(results.map((part) => part.output));
        return step([{ type: "text", text: "done" }], "stop");
      }
      if (turn.name === null) return step([{ type: "text", text: "nothing to do" }], "stop");
      const call = { type: "tool-call", toolCallId: "call-1", toolName: `${prefix}${turn.name}` };
      return step([{ ...call, input: JSON.stringify(turn.args) }], "tool-calls");
    },
  });
}

/** A `fetch` for the framework's transport that keeps the revision the client speaks: the MCP-Protocol-Version
 * header of its requests after the first. `negotiated()` reads it. */
export function protocolWatcher() {
  let negotiated = null;
  return {
    negotiated: () => negotiated,
    async fetch(input, init) {
      negotiated = new Headers(init?.headers).get("mcp-protocol-version") ?? negotiated;
      return await fetch(input, init);
    },
  };
}

/** Serves `connect`, `offered`, `run_tool` and `close` for a framework given as
 * `{connect(): {library, version, protocolVersion}, play(turn): Promise<void>, close()}`; `play` runs one agent turn
 * and fills in `turn.seen` and `turn.offered`. */
export async function serveAgent(framework) {
  await serveCommands({
    async connect() {
      return await framework.connect();
    },
    async offered() {
      const turn = new Turn(null, {});
      await framework.play(turn);
      return { tools: turn.offered };
    },
    async run_tool({ name, arguments: args }) {
      const turn = new Turn(name, args);
      await framework.play(turn);
      if (turn.seen === undefined) throw new Error(`the model was never handed ${name}'s output`);
      return { seen: turn.seen, tools: turn.offered };
    },
    async close() {
      await framework.close();
      return {};
    },
  });
}
