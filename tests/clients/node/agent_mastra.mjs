// Mastra (`@mastra/mcp` on `@mastra/core`): a Mastra Agent holding the MCPClient's tools, run by `agent.generate`
// with the AI SDK's mock model (`ai/test`, the v3 model spec Mastra takes) playing a script (agent_loop.mjs). What the
// model sees is the tool-result part of the prompt of its second step, after Mastra's own conversion (a tool error
// result is thrown by the MCP tool and reaches the model as error text). Mastra names each tool `<server>_<tool>`;
// the model is offered those names. Usage: node agent_mastra.mjs <MCP URL>.
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";
import { MockLanguageModelV3 } from "ai/test";
import { installedVersion, protocolWatcher, scriptedMock, serveAgent } from "./agent_loop.mjs";

const [url] = process.argv.slice(2);
const SERVER = "widget";
const watcher = protocolWatcher();
let mcp = null;

await serveAgent({
  async connect() {
    const servers = { [SERVER]: { url: new URL(url), fetch: watcher.fetch } };
    mcp = new MCPClient({ id: "widget-mcp-matrix", servers });
    await mcp.listTools();
    return {
      library: "@mastra/mcp",
      version: installedVersion("@mastra/mcp"),
      protocolVersion: watcher.negotiated(),
      with: { "@mastra/core": installedVersion("@mastra/core") },
    };
  },
  async play(turn) {
    const tools = await mcp.listTools();
    const model = scriptedMock(MockLanguageModelV3, turn, `${SERVER}_`);
    const agent = new Agent({ id: "player", name: "player", instructions: "Play.", model, tools });
    await agent.generate("Play.", { maxSteps: 3 });
  },
  async close() {
    await mcp.disconnect();
    mcp = null;
  },
});
