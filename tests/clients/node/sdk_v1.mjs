// The TypeScript SDK v1 (`@modelcontextprotocol/sdk`, the client Claude Desktop, VS Code, Cursor and LibreChat run),
// driven over the line protocol (driver_loop.mjs). Usage: node sdk_v1.mjs <package> <MCP URL>; <package> is the
// SDK's name or one of its older versions' aliases in package.json. v1 speaks only its own handshake revision.
import { readFileSync } from "node:fs";
import { capabilitiesFor, FormUser, serveCommands, sessionCommands } from "./driver_loop.mjs";

const [pkg, url] = process.argv.slice(2);
const { Client } = await import(`${pkg}/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${pkg}/client/streamableHttp.js`);
const { version } = JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8"));

const session = { client: null };
const user = new FormUser();

await serveCommands({
  // `declares`: what the host says it can do (driver_loop.mjs, capabilitiesFor); a host that elicits answers with
  // the answer each call names.
  async connect({ declares = [] }) {
    const capabilities = capabilitiesFor(declares);
    const client = new Client({ name: "widget-mcp client matrix", version: "1.0.0" }, { capabilities });
    session.client = client;
    if (declares.includes("elicitation")) {
      const { ElicitRequestSchema } = await import(`${pkg}/types.js`);
      client.setRequestHandler(ElicitRequestSchema, (request) => user.elicit(request));
    }
    // The negotiated revision, read from the initialize result (older v1 versions keep it nowhere public).
    let negotiated = null;
    const request = client.request.bind(client);
    client.request = async (req, schema, options) => {
      const result = await request(req, schema, options);
      if (req.method === "initialize") negotiated = result.protocolVersion;
      return result;
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: user.fetch }));
    return { library: "@modelcontextprotocol/sdk", version, protocolVersion: negotiated };
  },
  ...sessionCommands(session, user),
});
