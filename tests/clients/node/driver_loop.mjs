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
export function wire(value) {
  return JSON.parse(JSON.stringify(value ?? null));
}
