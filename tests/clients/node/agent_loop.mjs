// The line protocol of the agent framework drivers (tests/clients/agent_specs_ts.py names them): each connects to the
// server through the framework's own MCP layer and plays one turn of an agent whose model is scripted, not an LLM.
// The model asks for one tool call; the framework runs it through its own tool wrapper and hands the model the
// output, which the driver answers verbatim (`seen`), with the names of the tools the model was offered.
import { readFileSync } from "node:fs";
import { serveCommands } from "./driver_loop.mjs";

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
