// A tool result in the transcript, in a line: its narration, else its error (`_meta.error`), else its structuredContent.

import { asText, isRecord } from "../shared/dom";
import { failureOf } from "../shared/errors";

const MAX = 300;

export function resultSummary(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
  const narration = content.map((c) => asText(c.text)).join("\n").trim();
  if (narration) return narration;
  const failure = failureOf(result, "");
  if (failure) return failure.message || failure.code;
  const structured = isRecord(result.structuredContent) ? result.structuredContent : null;
  const text = structured ? JSON.stringify(structured) : "Done (no content).";
  return text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
}
