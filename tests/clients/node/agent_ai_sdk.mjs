// The Vercel AI SDK (`ai` with `@ai-sdk/mcp`): the MCP client's `tools()` handed to `generateText`, whose model is
// the SDK's own mock (`ai/test`) playing a script (agent_loop.mjs). What the model sees is the tool-result part of
// the prompt of its second step, after the MCP tool's `toModelOutput`. Usage: node agent_ai_sdk.mjs <MCP URL>.
import { createMCPClient } from "@ai-sdk/mcp";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { installedVersion, scriptedMock, serveAgent } from "./agent_loop.mjs";

const [url] = process.argv.slice(2);
let client = null;

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
    const model = scriptedMock(MockLanguageModelV4, turn);
    await generateText({ model, tools, prompt: "Play.", stopWhen: stepCountIs(3) });
  },
  async close() {
    await client.close();
    client = null;
  },
});
