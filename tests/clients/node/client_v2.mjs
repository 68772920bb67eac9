// The TypeScript client v2 (`@modelcontextprotocol/client`, what the widgets and the AppBridge test host use),
// driven over the line protocol (driver_loop.mjs). Usage: node client_v2.mjs <MCP URL>. The 2025-11-25 handshake
// is its default; the 2026-07-28 stateless era is opted into by pinning it.
import { readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { capabilitiesFor, FormUser, serveCommands, sessionCommands } from "./driver_loop.mjs";

const MODERN_ERA = "2026-07-28";
const [url] = process.argv.slice(2);
const { version } = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/client/package.json", import.meta.url), "utf8"),
);

const session = { client: null };
const user = new FormUser();

await serveCommands({
  // `declares`: what the host says it can do (driver_loop.mjs, capabilitiesFor); a host that elicits answers with
  // the answer each call names, in either era (2025-11-25: a request on the call's stream; 2026-07-28: the call's
  // input_required result, which the client answers by calling again).
  async connect({ era, declares = [] }) {
    const options = { capabilities: capabilitiesFor(declares) };
    if (era === MODERN_ERA) options.versionNegotiation = { mode: { pin: MODERN_ERA } };
    const client = new Client({ name: "widget-mcp client matrix", version: "1.0.0" }, options);
    session.client = client;
    if (declares.includes("elicitation")) {
      client.setRequestHandler("elicitation/create", (request) => user.elicit(request));
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: user.fetch }));
    return {
      library: "@modelcontextprotocol/client",
      version,
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
    };
  },
  ...sessionCommands(session, user),
});
