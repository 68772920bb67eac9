// mcp-remote (a stdio<->HTTP proxy for hosts that speak MCP only over stdio, such as older Claude Desktop setups):
// the TypeScript SDK v1's client starts it as its stdio server and speaks through it to the MCP URL. Its OAuth
// state goes to a directory of its own, removed on close. Usage: node mcp_remote.mjs <MCP URL>.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { capabilitiesFor, FormUser, serveCommands, sessionCommands } from "./driver_loop.mjs";

const [url] = process.argv.slice(2);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { version } = JSON.parse(readFileSync(here("./node_modules/mcp-remote/package.json"), "utf8"));
const PROXY = here("./node_modules/mcp-remote/dist/proxy.js");

const session = { client: null };
const user = new FormUser();
const commands = sessionCommands(session, user);
let configDir = null;

await serveCommands({
  // `declares`: what the stdio host says it can do (driver_loop.mjs, capabilitiesFor); the proxy passes it on, and
  // passes the server's input requests back to a host that elicits.
  async connect({ declares = [] }) {
    configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const client = new Client({ name: "widget-mcp client matrix", version: "1.0.0" }, { capabilities: capabilitiesFor(declares) });
    if (declares.includes("elicitation")) client.setRequestHandler(ElicitRequestSchema, (request) => user.elicit(request));
    let negotiated = null;
    const request = client.request.bind(client);
    client.request = async (req, schema, options) => {
      const result = await request(req, schema, options);
      if (req.method === "initialize") negotiated = result.protocolVersion;
      return result;
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, url, "--transport", "http-only", "--silent"],
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "inherit",
    });
    session.client = client;
    await client.connect(transport);
    return { library: "mcp-remote", version, protocolVersion: negotiated };
  },
  ...commands,
  async close() {
    await commands.close();
    rmSync(configDir, { recursive: true, force: true });
    return {};
  },
});
