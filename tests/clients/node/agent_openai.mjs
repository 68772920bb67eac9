// OpenAI Agents JS (`@openai/agents`): an Agent with the server as its MCPServerStreamableHttp, run by `run()` with a
// custom Model playing a script (agent_loop.mjs). What the model sees is the function_call_result item of its second
// request, as the SDK converts the MCP result (its defaults: content, not structuredContent). Usage: node
// agent_openai.mjs <MCP URL>.
import { Agent, MCPServerStreamableHttp, run, setTracingDisabled, Usage } from "@openai/agents";
import { wire } from "./driver_loop.mjs";
import { installedVersion, protocolWatcher, serveAgent } from "./agent_loop.mjs";

setTracingDisabled(true);
const [url] = process.argv.slice(2);

const watcher = protocolWatcher();
let server = null;

const reply = (text) => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});

function scripted(turn) {
  return {
    async getResponse(request) {
      turn.offered = request.tools.map((tool) => tool.name);
      const input = Array.isArray(request.input) ? request.input : [];
      const results = input.filter((item) => item.type === "function_call_result");
      if (results.length) {
        turn.seen = wire(results.map((item) => item.output));
        return { usage: new Usage(), output: [reply("done")] };
      }
      if (turn.name === null) return { usage: new Usage(), output: [reply("nothing to do")] };
      const call = {
        type: "function_call",
        callId: "call-1",
        name: turn.name,
        arguments: JSON.stringify(turn.args),
        status: "completed",
      };
      return { usage: new Usage(), output: [call] };
    },
    async *getStreamedResponse() {
      throw new Error("the scripted model does not stream");
    },
  };
}

await serveAgent({
  async connect() {
    server = new MCPServerStreamableHttp({ url, name: "widget", fetch: watcher.fetch });
    await server.connect();
    const version = installedVersion("@openai/agents");
    return { library: "@openai/agents", version, protocolVersion: watcher.negotiated() };
  },
  async play(turn) {
    const agent = new Agent({ name: "player", instructions: "Play.", model: scripted(turn), mcpServers: [server] });
    await run(agent, "Play.", { maxTurns: 3 });
  },
  async close() {
    await server.close();
    server = null;
  },
});
