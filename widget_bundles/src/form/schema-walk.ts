// Where a JSON Schema holds other schemas (its applicators), so that the form widget's checks and rewrites go
// through schema positions only: a field named "pattern" or "default" under `properties` is a field, not a keyword.

import { isRecord } from "../shared/dom";

export type Json = Record<string, unknown>;

/** Keywords whose value is one schema. */
const ONE = ["additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else"];
/** Keywords whose value is a list of schemas (`items` too, as Draft-07 tuples). */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords whose value maps names to schemas (`dependencies` also maps names to lists of names). */
const MAP = ["properties", "patternProperties", "dependentSchemas", "dependencies"];
/** Where definitions live: reached through `$ref`, never evaluated in place. */
const DEFINITIONS = ["$defs", "definitions"];
/** Applicators whose result does not grow with their subschema's (a looser subschema can fail the whole: one
 *  more `oneOf` option passing, one more item counted against `maxContains`). */
const NOT_MONOTONE = new Set(["not", "if", "oneOf", "contains"]);

export interface Sub {
  schema: unknown;
  keyword: string;
  /** Loosening this subschema may tighten its parent. */
  flips: boolean;
}

/** The schemas `schema` applies in place (not its definitions). */
export function* subschemas(schema: Json): Generator<Sub> {
  for (const keyword of ONE) {
    const value = schema[keyword];
    if (isRecord(value) || typeof value === "boolean") yield { schema: value, keyword, flips: NOT_MONOTONE.has(keyword) };
  }
  for (const keyword of LIST) {
    const value = schema[keyword];
    if (Array.isArray(value)) for (const item of value) yield { schema: item, keyword, flips: NOT_MONOTONE.has(keyword) };
  }
  for (const keyword of MAP) {
    const value = schema[keyword];
    if (isRecord(value)) for (const item of Object.values(value)) if (isRecord(item) || typeof item === "boolean") yield { schema: item, keyword, flips: false };
  }
}

/** A copy of `schema` with `edit` applied to every schema object in it, definitions included. `edit` gets a
 *  shallow copy it may change; subschemas are rewritten after it. */
export function mapSchema(schema: unknown, edit: (node: Json) => Json): unknown {
  if (!isRecord(schema)) return schema;
  const out = edit({ ...schema });
  for (const keyword of ONE) if (isRecord(out[keyword])) out[keyword] = mapSchema(out[keyword], edit);
  for (const keyword of LIST) {
    const value = out[keyword];
    if (Array.isArray(value)) out[keyword] = value.map((item) => mapSchema(item, edit));
  }
  for (const keyword of [...MAP, ...DEFINITIONS]) {
    const value = out[keyword];
    if (isRecord(value)) out[keyword] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, mapSchema(item, edit)]));
  }
  return out;
}

/** The reference a schema follows: its `$ref`, or the root for a recursive or dynamic one. */
export function refOf(schema: Json): string | undefined {
  if (typeof schema.$ref === "string") return schema.$ref;
  if (schema.$recursiveRef !== undefined || schema.$dynamicRef !== undefined) return "#";
  return undefined;
}

/** Whether `value` nests deeper than `limit` objects and arrays (counting stops there). */
export function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit <= 0) return true;
  for (const child of Object.values(value)) if (deeperThan(child, limit - 1)) return true;
  return false;
}

/** Resolves the local `$ref`s of `root` (`#`, `#/json/pointer`, `#anchor` or an exact `$id`) to the schema they
 *  name, or undefined. Null when a subschema has an `$id` of its own: references under it are relative to that
 *  base, which this resolver does not follow (so it cannot vouch for what they name). */
export function resolver(root: unknown): ((ref: string) => unknown) | null {
  const named = new Map<string, unknown>();
  let rebased = false;
  const index = (node: unknown): void => {
    if (!isRecord(node)) return;
    if (typeof node.$id === "string") {
      if (node !== root) rebased = true;
      named.set(node.$id, node);
    }
    if (typeof node.$anchor === "string") named.set(`#${node.$anchor}`, node);
    for (const sub of subschemas(node)) index(sub.schema);
    for (const keyword of DEFINITIONS) {
      const value = node[keyword];
      if (isRecord(value)) for (const item of Object.values(value)) index(item);
    }
  };
  index(root);
  if (rebased) return null;
  return (ref) => {
    if (ref === "#") return root;
    if (named.has(ref)) return named.get(ref);
    if (!ref.startsWith("#/")) return undefined;
    let node: unknown = root;
    for (const raw of ref.slice(2).split("/")) {
      let part: string;
      try {
        part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      } catch {
        return undefined;
      }
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
      node = (node as Json)[part];
    }
    return node;
  };
}
