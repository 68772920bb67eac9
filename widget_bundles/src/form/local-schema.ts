// The schema the widget checks answers against itself: the model's, without what the browser cannot run in
// bounded time. The server stays the authority and reports what is left out here under its field.
// - `pattern`: the model's regular expressions would run on the browser's engine, which has no timeout
//   (`^(a|a)*$` freezes the widget); the server runs them under one.
// - `format`s other than the standard ones: @cfworker/json-schema's `url` expression backtracks exponentially
//   (30 characters take seconds); the server does not check `url` at all.
// Leaving a keyword out only loosens a check where every applicator above it is monotone. Under `not`, `if`, `oneOf`
// or `contains` it could tighten it (a looser `not` fails more), and `patternProperties` also decides which properties
// `additionalProperties` sees: a schema with either is not checked here at all (null).

import { isRecord } from "../shared/dom";
import { mapSchema, refOf, resolver, subschemas, type Json } from "./schema-walk";

const FORMATS = new Set([
  "date", "time", "date-time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri",
  "uri-reference", "iri", "iri-reference", "uri-template", "uuid", "regex", "json-pointer", "relative-json-pointer",
]);

function unchecked(node: Json): boolean {
  return "pattern" in node || ("format" in node && !FORMATS.has(String(node.format)));
}

function withoutUnchecked(node: Json): Json {
  if ("pattern" in node) delete node.pattern;
  if ("format" in node && !FORMATS.has(String(node.format))) delete node.format;
  return node;
}

/** Whether a keyword left out would sit under `not`, `if` or `oneOf` (through `$ref`s too), or the schema has
 *  `patternProperties`. Each schema is visited at most once per polarity. */
function mustCheckWhole(schema: unknown): boolean {
  const resolve = resolver(schema);
  if (!resolve) return true;
  const seen = [new Set<unknown>(), new Set<unknown>()];
  const visit = (node: unknown, flipped: boolean): boolean => {
    if (!isRecord(node) || seen[Number(flipped)].has(node)) return false;
    seen[Number(flipped)].add(node);
    if ("patternProperties" in node || (flipped && unchecked(node))) return true;
    const ref = refOf(node);
    if (ref !== undefined && visit(resolve(ref), flipped)) return true;
    for (const sub of subschemas(node)) if (visit(sub.schema, flipped || sub.flips)) return true;
    return false;
  };
  try {
    return visit(schema, false);
  } catch (error) {
    if (error instanceof RangeError) return true; // references nested past the stack
    throw error;
  }
}

/** The schema to check answers against in the browser, or null when only the server can check them. */
export function localSchema(schema: Json): Json | null {
  return mustCheckWhole(schema) ? null : (mapSchema(schema, withoutUnchecked) as Json);
}
