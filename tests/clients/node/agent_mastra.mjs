// Mastra (`@mastra/mcp` on `@mastra/core`): a Mastra Agent holding the MCPClient's tools, run by `agent.generate`
// with the AI SDK's mock model (`ai/test`, the v3 model spec Mastra takes) playing a script (agent_loop.mjs). What the
// model sees is the tool-result part of the prompt of its second step, after Mastra's own conversion (a tool error
// result is thrown by the MCP tool and reaches the model as error text). Mastra names each tool `<server>_<tool>`;
// the model is offered those names. Usage: node agent_mastra.mjs <MCP URL>.
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";
import { MockLanguageModelV3 } from "ai/test";
import { wire } from "./driver_loop.mjs";
import { installedVersion, serveAgent } from "./agent_loop.mjs";

const [url] = process.argv.slice(2);
const SERVER = "widget";
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const step = (content, unified) => ({ content, finishReason: { unified, raw: unified }, usage: USAGE, warnings: [] });

let mcp = null;
let negotiated = null;

// The revision the client speaks: the MCP-Protocol-Version header of its requests after the first, as its
// transport's fetch sends them.
async function watching(input, init) {
  negotiated = new Headers(init?.headers).get("mcp-protocol-version") ?? negotiated;
  return await fetch(input, init);
}

function scripted(turn) {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      turn.offered = (options.tools ?? []).map((tool) => tool.name);
      const results = options.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
      if (results.length) {
        turn.seen = wire(results.map((part) => part.output));
        return step([{ type: "text", text: "done" }], "stop");
      }
      if (turn.name === null) return step([{ type: "text", text: "nothing to do" }], "stop");
      const input = JSON.stringify(turn.args);
      return step([{ type: "tool-call", toolCallId: "call-1", toolName: `${SERVER}_${turn.name}`, input }], "tool-calls");
    },
  });
}

await serveAgent({
  async connect() {
    mcp = new MCPClient({ id: "widget-mcp-matrix", servers: { [SERVER]: { url: new URL(url), fetch: watching } } });
    await mcp.listTools();
    return {
      library: "@mastra/mcp",
      version: installedVersion("@mastra/mcp"),
      protocolVersion: negotiated,
      with: { "@mastra/core": installedVersion("@mastra/core") },
    };
  },
  async play(turn) {
    const tools = await mcp.listTools();
    const agent = new Agent({ id: "player", name: "player", instructions: "Play.", model: scripted(turn), tools });
    await agent.generate("Play.", { maxSteps: 3 });
  },
  async close() {
    await mcp.disconnect();
    mcp = null;
  },
});
