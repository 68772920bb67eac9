// The line protocol every client driver speaks (tests/clients/driver.py is the other end): one JSON command per
// line on stdin, one JSON answer per line on stdout, in order. An exception a client throws is an answer too
// ({ok: false, error}): the tests assert on it, the driver keeps running.
import { createInterface } from "node:readline";

function describe(error) {
  return {
    type: error?.constructor?.name ?? typeof error,
    message: error instanceof Error ? error.message : String(error),
    code: typeof error?.code === "number" || typeof error?.code === "string" ? error.code : null,
  };
}

/** Answers each command with `handlers[command.op](command)`, one at a time, until stdin closes. */
export async function serveCommands(handlers) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let answer;
    try {
      const command = JSON.parse(line);
      const handler = handlers[command.op];
      if (!handler) throw new Error(`unknown command ${JSON.stringify(command.op)}`);
      answer = { ok: true, ...(await handler(command)) };
    } catch (error) {
      answer = { ok: false, error: describe(error) };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}

/** A result as the wire has it (the clients hand back plain objects already; this drops undefined fields). */
/** The commands every TypeScript client driver answers alike once its own `connect` has set `session.client`;
 * `user` (FormUser) answers the questions the server asks during a call. */
export function sessionCommands(session, user) {
  return {
    // Hosts list the tools first; v1's callTool validates results against the outputSchemas this caches.
    async list_tools() {
      return { tools: wire((await session.client.listTools()).tools) };
    },
    async read_resource({ uri }) {
      return { contents: wire((await session.client.readResource({ uri })).contents) };
    },
    // `answer`: what the user answers if the server asks during the call; `asked`: what it asked, `resumed`: how
    // often the client resumed the call's stream (FormUser); `meta`: the request's `_meta` (a host's user hint).
    async call_tool({ name, arguments: args, answer, meta }) {
      user.expect(answer);
      try {
        const result = wire(await session.client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }));
        return { result, asked: user.asked, resumed: user.resumed };
      } finally {
        user.settle();
      }
    },
    // The statuses of the resumptions the client made after its last call settled (FormUser), once there is one or
    // `within_ms` has passed.
    async resumed_after_settling({ within_ms }) {
      return { statuses: await user.resumedAfterSettling(within_ms) };
    },
    async close() {
      await session.client.close();
      session.client = null;
      return {};
    },
  };
}

export function wire(value) {
  return JSON.parse(JSON.stringify(value ?? null));
}

// The MCP Apps extension a host declares when it shows widgets (SEP-1865).
const APPS_EXTENSION = "io.modelcontextprotocol/ui";
const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The client capabilities a host declares: `declares` names "elicitation" (it shows the server's forms as its own)
 * and "apps" (it shows widgets). */
export function capabilitiesFor(declares = []) {
  const capabilities = {};
  if (declares.includes("elicitation")) capabilities.elicitation = { form: {} };
  if (declares.includes("apps")) capabilities.extensions = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };
  return capabilities;
}

/** The user of a host that shows the server's forms: each call names the answer it gives (`expect`), and what the
 * server asked during the call is kept (`asked`), with how often the client resumed the call's stream (`resumed`:
 * GETs with Last-Event-ID the server answered, seen by `fetch`, the transport's). An answer with `afterResumptions: n` is given only
 * once the client has resumed n times: a person who takes longer than the server's first `retry`. An answer
 * `{error}` is the host failing to answer: the client sends the server that error. Asked without an answer, it
 * throws too. The statuses of resumptions the client makes once the call has settled are kept (`afterSettled`). */
export class FormUser {
  asked = [];
  answer = null;
  resumed = 0;
  settled = false;
  afterSettled = [];
  #waiting = [];

  expect(answer) {
    this.asked = [];
    this.answer = answer ?? null;
    this.resumed = 0;
    this.settled = false;
    this.afterSettled = [];
  }

  settle() {
    this.settled = true;
  }

  fetch = async (url, init) => {
    const resumes = (init?.method ?? "GET") === "GET" && new Headers(init?.headers).has("last-event-id");
    const settled = this.settled;
    const response = await fetch(url, init);
    // Counted once the server has answered: a late answer must not reach it before the resumption it follows.
    if (resumes) this.resumed += 1;
    if (resumes && settled) this.afterSettled.push(response.status);
    this.#wake();
    return response;
  };

  async elicit(request) {
    this.asked.push(wire(request.params));
    if (!this.answer) throw new Error(`the test gave no answer to ${request.method}`);
    const { afterResumptions = 0, error, ...answer } = this.answer;
    await this.#until(() => this.resumed >= afterResumptions);
    if (error) throw new Error(error);
    return answer;
  }

  /** The statuses of the resumptions made since the call settled, once there is one or `withinMs` has passed. */
  async resumedAfterSettling(withinMs) {
    await this.#until(() => this.afterSettled.length > 0, withinMs);
    return [...this.afterSettled];
  }

  #wake() {
    this.#waiting = this.#waiting.filter(({ done, resolve }) => (done() ? resolve() : true));
  }

  #until(done, withinMs = null) {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { done, resolve };
      this.#waiting.push(waiter);
      if (withinMs !== null) {
        setTimeout(() => {
          this.#waiting = this.#waiting.filter((w) => w !== waiter);
          resolve();
        }, withinMs);
      }
    });
  }
}
