// The Vercel AI SDK (`ai` with `@ai-sdk/mcp`): the MCP client's `tools()` handed to `generateText`, whose model is
// the SDK's own mock (`ai/test`) playing a script (agent_loop.mjs). What the model sees is the tool-result part of
// the prompt of its second step, after the MCP tool's `toModelOutput`. Usage: node agent_ai_sdk.mjs <MCP URL>.
import { createMCPClient } from "@ai-sdk/mcp";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { wire } from "./driver_loop.mjs";
import { installedVersion, serveAgent } from "./agent_loop.mjs";

const [url] = process.argv.slice(2);
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const step = (content, unified) => ({ content, finishReason: { unified, raw: unified }, usage: USAGE, warnings: [] });

let client = null;

function scripted(turn) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      turn.offered = (options.tools ?? []).map((tool) => tool.name);
      const results = options.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
      if (results.length) {
        turn.seen = wire(results.map((part) => part.output));
        return step([{ type: "text", text: "done" }], "stop");
      }
      if (turn.name === null) return step([{ type: "text", text: "nothing to do" }], "stop");
      const call = { type: "tool-call", toolCallId: "call-1", toolName: turn.name, input: JSON.stringify(turn.args) };
      return step([call], "tool-calls");
    },
  });
}

await serveAgent({
  async connect() {
    client = await createMCPClient({ transport: { type: "http", url } });
    return {
      library: "@ai-sdk/mcp",
      version: installedVersion("@ai-sdk/mcp"),
      protocolVersion: client.initializeResult?.protocolVersion ?? null,
      with: { ai: installedVersion("ai") },
    };
  },
  async play(turn) {
    const tools = await client.tools();
    await generateText({ model: scripted(turn), tools, prompt: "Play.", stopWhen: stepCountIs(3) });
  },
  async close() {
    await client.close();
    client = null;
  },
});
