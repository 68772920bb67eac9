// The schema RJSF draws: the model's, without what the widget was not built to trust in it.
// - URL-bearing values. RJSF shows a `default` or `examples` as a field's value or its suggestions, and the user
//   sends them on unchanged with a click: a `data-url` field's value is a file the model chose for the user (it is
//   dropped: the user picks their own file), and a URL field's value is kept only when it is a web or mail address
//   (never `javascript:`, `data:`, `blob:`, `file:`…), in the field's own default or its object's or array's.
// - `patternProperties`: RJSF matches them against property names on the browser's regex engine, which has no
//   timeout. They go, with the `additionalProperties` whose scope they decide; the server checks those answers.

import { isRecord } from "../shared/dom";
import { mapSchema, type Json } from "./schema-walk";

const DATA_URL = "data-url";
const URL_FORMATS = new Set(["uri", "uri-reference", "iri", "iri-reference", "url", "uri-template"]);
const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** Whether `value` is an address a user may be handed: http(s) or mailto, as the browser's URL parser reads it
 *  (which ignores the tabs, newlines and leading spaces that hide a scheme from a naive test). */
export function isWebAddress(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return SAFE_SCHEMES.has(new URL(value, "https://relative.invalid/").protocol);
  } catch {
    return false;
  }
}

/** `value` as the default of `schema`, without what a URL-bearing field in it must not be handed (undefined: none). */
function trustedValue(schema: unknown, value: unknown): unknown {
  if (!isRecord(schema)) return value;
  const format = typeof schema.format === "string" ? schema.format : "";
  if (format === DATA_URL) return undefined;
  if (URL_FORMATS.has(format) && typeof value === "string") return isWebAddress(value) ? value : undefined;
  if (Array.isArray(value) && isRecord(schema.items)) {
    return value.map((item) => trustedValue(schema.items, item)).filter((item) => item !== undefined);
  }
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties;
    const kept = Object.entries(value).map(([name, item]) => [name, Object.hasOwn(properties, name) ? trustedValue(properties[name], item) : item]);
    return Object.fromEntries(kept.filter(([, item]) => item !== undefined));
  }
  return value;
}

function drawn(node: Json): Json {
  if ("patternProperties" in node) {
    delete node.patternProperties;
    delete node.additionalProperties;
  }
  if ("default" in node) {
    const value = trustedValue(node, node.default);
    if (value === undefined) delete node.default;
    else node.default = value;
  }
  if (Array.isArray(node.examples)) {
    node.examples = node.examples.map((item) => trustedValue(node, item)).filter((item) => item !== undefined);
  }
  return node;
}

/** A copy of the model's schema for RJSF to draw. */
export function drawnSchema(schema: Json): Json {
  return mapSchema(schema, drawn) as Json;
}
