// The model's uiSchema, reduced to what this widget was built to render: a whitelist of RJSF options, each with
// the kind of value it may take. Everything else is dropped, whatever it is. RJSF reads uiSchema options as
// component props, and several reach the DOM unfiltered: `ui:filePreview` turns a model-written `default` into
// an `<a href>`/`<img src>`, `submitButtonOptions.props` lands on the submit button (`formAction`), a
// `ui:field: "LayoutGridField"` layout spreads its entries onto a `<div>` (`dangerouslySetInnerHTML`, `srcdoc`,
// `style`), `ui:*Template`, `ui:field` and `ui:widget` pick components by name, `ui:classNames`/`ui:style` restyle
// the host's page furniture, and `enableMarkdownIn*` parses text as markup.

import { isRecord } from "../shared/dom";
import type { Json } from "./schema-walk";

type Check = (value: unknown) => unknown;

const MAX_DEPTH = 32;

const text: Check = (v) => (typeof v === "string" ? v : undefined);
const flag: Check = (v) => (typeof v === "boolean" ? v : undefined);
const oneOf =
  (...allowed: string[]): Check =>
  (v) =>
    typeof v === "string" && allowed.includes(v) ? v : undefined;
const matching =
  (shape: RegExp): Check =>
  (v) =>
    typeof v === "string" && shape.test(v) ? v : undefined;
const listOf =
  (item: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every((x) => item(x) !== undefined) ? v : undefined;
const primitive: Check = (v) => (v === null || ["string", "number", "boolean"].includes(typeof v) ? v : undefined);
const count: Check = (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100 ? v : undefined);

// RJSF's own widget names for the schema types (utils' widgetMap); never a registry key or a component.
const WIDGETS = oneOf(
  "text", "textarea", "password", "email", "uri", "radio", "select", "checkbox", "checkboxes", "hidden", "date",
  "datetime", "date-time", "alt-date", "alt-datetime", "time", "color", "updown", "range", "file", "files",
);

/** Option name (as in `ui:<name>` or inside `ui:options`) → what its value may be. */
const OPTIONS: Record<string, Check> = {
  widget: WIDGETS,
  title: text,
  description: text,
  help: text,
  placeholder: text,
  order: listOf(text),
  enumNames: listOf(text),
  enumDisabled: listOf(primitive),
  emptyValue: primitive,
  autofocus: flag,
  disabled: flag,
  readonly: flag,
  label: flag,
  inline: flag,
  hideError: flag,
  orderable: flag,
  addable: flag,
  removable: flag,
  copyable: flag,
  hideNowButton: flag,
  hideClearButton: flag,
  rows: count,
  yearsRange: listOf((v) => (Number.isInteger(v) ? v : undefined)),
  format: oneOf("YMD", "MDY", "DMY"),
  inputType: oneOf("text", "email", "tel", "number", "search", "url", "password", "date", "time", "datetime-local", "month", "week", "color"),
  autocomplete: matching(/^[a-z0-9 -]{1,64}$/i),
  accept: matching(/^[\w.+/*, -]{1,200}$/),
};

function options(value: unknown): Json {
  const out: Json = {};
  if (!isRecord(value)) return out;
  for (const [name, option] of Object.entries(value)) {
    const kept = Object.hasOwn(OPTIONS, name) ? OPTIONS[name](option) : undefined;
    if (kept !== undefined) out[name] = kept;
  }
  return out;
}

function node(value: unknown, depth: number): Json {
  const out: Json = {};
  if (!isRecord(value) || depth > MAX_DEPTH) return out;
  for (const [key, child] of Object.entries(value)) {
    if (key === "ui:options" || key === "ui:globalOptions") {
      const kept = options(child);
      if (Object.keys(kept).length) out[key] = kept;
    } else if (key.startsWith("ui:")) {
      const name = key.slice(3);
      const kept = Object.hasOwn(OPTIONS, name) ? OPTIONS[name](child) : undefined;
      if (kept !== undefined) out[key] = kept;
    } else if (key === "__proto__") {
      continue;
    } else if (isRecord(child)) {
      out[key] = node(child, depth + 1); // a field's (or `items`', `additionalProperties`') own uiSchema
    } else if (Array.isArray(child)) {
      out[key] = child.map((c) => node(c, depth + 1)); // tuple `items`, `anyOf`/`oneOf` options
    }
  }
  return out;
}

/** A copy of the model's uiSchema holding only whitelisted options with values of the expected kind. */
export function safeUiSchema(value: unknown): Json {
  return node(value, 0);
}
