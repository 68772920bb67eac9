// A tool result in the transcript, in a line: its narration, else its error, else its structuredContent.

import { asText, isRecord } from "../shared/dom";

const MAX = 300;

export function resultSummary(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
  const narration = content.map((c) => asText(c.text)).join("\n").trim();
  if (narration) return narration;
  const structured = isRecord(result.structuredContent) ? result.structuredContent : null;
  if (structured && isRecord(structured.error)) return asText(structured.error.message) || asText(structured.error.code);
  const text = structured ? JSON.stringify(structured) : result.isError ? "The call failed." : "Done (no content).";
  return text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
}
