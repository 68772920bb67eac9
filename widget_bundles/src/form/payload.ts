// The DGUI payloads the form widget reads (seed 001) and the helpers that turn them into RJSF inputs.
// Everything here comes from the model or the server: it is parsed defensively and never treated as markup.

import { isRecord } from "../shared/dom";
import { failureOf, type ToolFailure } from "../shared/errors";
import { formFits, levelSteps, SERVER_LEVEL_STEPS } from "./complexity";
import { safeUiSchema } from "./ui-schema";
import { drawnSchema } from "./drawn-schema";
import { localSchema } from "./local-schema";

export type Json = Record<string, unknown>;

// A step the user has sent: its title and a short summary of the answers, shown above the next step.
export interface Answered {
  title: string;
  summary: string;
}

export interface FormPayload {
  formId: string;
  title: string;
  description: string;
  schema: Json;
  uiSchema: Json;
  step: number;
  steps: number;
  /** The schema is past what the widget draws in bounded time (complexity.ts): no form is drawn. */
  tooComplex: boolean;
  /** The answers may be checked in the browser before they are sent (local-schema.ts); else the server alone. */
  checkedHere: boolean;
}

/** What the form shows when the server refused: the code and sentence, and a message per field where it gave some. */
export type DguiError = ToolFailure;

/** The `_meta` key of the form's answer key: submit_form takes the answers only with it. Hosts hand `_meta` to the
 * widget and not to the model; the widget keeps it in memory only (never in widgetState, which the model reads).
 * Every host seen hands it over (mcp-use's window.openai one level down, its tool-result at the top: main.ts takes
 * either delivery's). One that dropped it would leave the form unanswerable from the widget: the server refuses the
 * answers `answer_key_invalid`, shown under the form in the server's words, and nothing is stored. */
export const ANSWER_KEY = "dgui_answer_key";

export function answerKeyOf(meta: unknown): string | undefined {
  const key = isRecord(meta) ? meta[ANSWER_KEY] : undefined;
  return typeof key === "string" && key.length <= 64 ? key : undefined;
}

/** The `_meta` key under which the server says which bounds a form was accepted under. */
export const LIMITS_KEY = "dgui_limits";

/** The bound on one level's check the server accepted a result's form under (its FORMS_MAX_VALUE_STEPS), clamped to
 *  the widget's ceiling (complexity.ts); `fallback` when the result does not say. */
export function drawingSteps(meta: unknown, fallback = SERVER_LEVEL_STEPS): number {
  const limits = isRecord(meta) ? meta[LIMITS_KEY] : undefined;
  const given = isRecord(limits) ? limits.valueSteps : undefined;
  return levelSteps(given === undefined ? fallback : given);
}

/** The form in `value` (a `dgui_form`), drawn only when it fits the server's bound of `valueSteps` per level. */
export function parseForm(value: unknown, valueSteps = SERVER_LEVEL_STEPS): FormPayload | null {
  if (!isRecord(value) || value.type !== "dgui_form" || typeof value.formId !== "string" || !isRecord(value.schema)) {
    return null;
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const step = Number.isInteger(metadata.step) ? Number(metadata.step) : 0;
  const steps = Number.isInteger(metadata.steps) ? Number(metadata.steps) : 1;
  const fits = formFits(value.schema, valueSteps);
  return {
    formId: value.formId,
    title: typeof value.title === "string" ? value.title : "",
    description: typeof value.description === "string" ? value.description : "",
    schema: fits ? drawnSchema(value.schema) : {},
    uiSchema: fits ? safeUiSchema(value.uiSchema) : {},
    step,
    steps: Math.max(steps, step + 1),
    tooComplex: !fits,
    // A step read back from widgetState was drawn already (drawnSchema): it keeps the verdict on its original.
    checkedHere: fits && value.checkedHere !== false && localSchema(value.schema) !== null,
  };
}

/** The refusal an error result carries in `_meta.error` (its structuredContent, a `dgui_error`, says the same
 * sentence), or `fallback` for a result that is not an error but holds no form either. */
export function parseError(result: { isError?: unknown; _meta?: unknown; content?: unknown }, fallback: string): DguiError {
  return failureOf(result, fallback) ?? { code: "error", message: fallback, fields: {} };
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
