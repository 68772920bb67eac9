// The DGUI payloads the form widget reads (seed 001) and the helpers that turn them into RJSF inputs.
// Everything here comes from the model or the server: it is parsed defensively and never treated as markup.

import { isRecord } from "../shared/dom";
import { failureOf, type ToolFailure } from "../shared/errors";

export type Json = Record<string, unknown>;

export interface FormPayload {
  formId: string;
  title: string;
  description: string;
  schema: Json;
  uiSchema: Json;
  step: number;
  steps: number;
}

/** What the form shows when the server refused: the code and sentence, and a message per field where it gave some. */
export type DguiError = ToolFailure;

export function parseForm(value: unknown): FormPayload | null {
  if (!isRecord(value) || value.type !== "dgui_form" || typeof value.formId !== "string" || !isRecord(value.schema)) {
    return null;
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const step = Number.isInteger(metadata.step) ? Number(metadata.step) : 0;
  const steps = Number.isInteger(metadata.steps) ? Number(metadata.steps) : 1;
  return {
    formId: value.formId,
    title: typeof value.title === "string" ? value.title : "",
    description: typeof value.description === "string" ? value.description : "",
    schema: value.schema,
    uiSchema: safeUiSchema(isRecord(value.uiSchema) ? value.uiSchema : {}),
    step,
    steps: Math.max(steps, step + 1),
  };
}

/** The refusal an error result carries in `_meta.error` (its structuredContent, a `dgui_error`, says the same
 * sentence), or `fallback` for a result that is not an error but holds no form either. */
export function parseError(result: { isError?: unknown; _meta?: unknown; content?: unknown }, fallback: string): DguiError {
  return failureOf(result, fallback) ?? { code: "error", message: fallback, fields: {} };
}

// uiSchema options that would let model text be parsed as markdown/markup, or move the `root_<field>` ids.
const UNSAFE_KEYS = new Set(["ui:enableMarkdownInDescription", "ui:enableMarkdownInHelp", "enableMarkdownInDescription", "enableMarkdownInHelp", "ui:rootFieldId"]);

/** A copy of the model's uiSchema without the options that would render its text as markdown. */
export function safeUiSchema(value: unknown): Json {
  const clean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(clean);
    if (!isRecord(node)) return node;
    const out: Json = {};
    for (const [key, child] of Object.entries(node)) if (!UNSAFE_KEYS.has(key)) out[key] = clean(child);
    return out;
  };
  return clean(value) as Json;
}

export interface ErrorNode {
  __errors?: string[];
  [key: string]: ErrorNode | string[] | undefined;
}

/** The server's `fields` ({"a.b": "msg"}) as an RJSF ErrorSchema ({a: {b: {__errors: ["msg"]}}}). */
export function toErrorSchema(fields: Record<string, string>): ErrorNode {
  const root: ErrorNode = {};
  for (const [path, message] of Object.entries(fields)) {
    let node = root;
    if (path !== "(form)" && path !== "") {
      for (const part of path.split(".")) {
        const child = node[part];
        node = (isRecord(child) ? child : (node[part] = {})) as ErrorNode;
      }
    }
    (node.__errors ??= []).push(message);
  }
  return root;
}

/** "Destination City: Tokyo; Departure Date: 2025-12-25" — field titles from the schema, values as text. */
export function summarise(schema: Json, data: Json, limit = 600): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const parts: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null || value === "") continue;
    const prop = isRecord(properties[key]) ? properties[key] : {};
    const label = typeof prop.title === "string" && prop.title ? prop.title : key;
    const text = Array.isArray(value) ? value.map(show).join(", ") : show(value);
    parts.push(`${label}: ${text}`);
  }
  const text = parts.join("; ") || "(no answers)";
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
