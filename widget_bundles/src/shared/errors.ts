// What an error result says, for widgets and the playground. The server puts the code in `_meta.error`
// ({code, message, ...details}): structuredContent belongs to the tool's outputSchema (clients validate it even on
// errors), so an error's code is never there. The sentence in `content` is the fallback.

import { isRecord } from "./dom";

export interface ToolFailure {
  code: string;
  message: string;
  /** Field path ("departureDate", "address.city", "(form)") → the server's message, where it gave some. */
  fields: Record<string, string>;
}

/** The failure an error result reports, or null for a success. A result whose `_meta` carries `error` is an error
 * even without `isError` (ChatGPT hands a widget its first result as toolOutput + toolResponseMetadata only). */
export function failureOf(result: { isError?: unknown; _meta?: unknown; content?: unknown }, fallback = "The tool failed."): ToolFailure | null {
  const meta = isRecord(result._meta) ? result._meta : {};
  const error = isRecord(meta.error) ? meta.error : null;
  if (!error && result.isError !== true) return null;
  const fields: Record<string, string> = {};
  if (isRecord(error?.fields)) for (const [path, message] of Object.entries(error.fields)) fields[path] = String(message);
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content.map((c: unknown) => (isRecord(c) && typeof c.text === "string" ? c.text : "")).find((t) => t);
  return {
    code: typeof error?.code === "string" ? error.code : "error",
    message: typeof error?.message === "string" ? error.message : (text ?? fallback),
    fields,
  };
}
