// How much work a model-written schema asks of the widget, counted before any of it is done, with the counting
// itself stopped at the bound. A `$defs` chain whose every level is `allOf` of two `$ref`s to the next is 1 KB of
// schema that RJSF (expanding it to draw the form) and the validator (evaluating it) would take 2^N steps over.
// Past the bounds the widget does not draw the form (`formFits`) or leaves the answers to the server, which
// checks them under its own budget (`checkFits`).

import { isRecord } from "../shared/dom";
import { deeperThan, refOf, resolver, subschemas, type Json } from "./schema-walk";

/** Nesting of the schema's JSON (the server allows 12). */
export const MAX_DEPTH = 32;
/** JSON values in the schema: fields, options, defaults (the server's 32 KB holds about 16,000 at most). */
export const MAX_VALUES = 20_000;
/** What RJSF may draw: subschemas expanded (each `$ref` followed where it points), options, array items. */
export const RENDER_LIMIT = 3_000;
/** An array item drawn (a field with its move and remove buttons) weighs as much as this many subschemas. */
export const ITEM_WEIGHT = 10;
/** Subschema evaluations (and `uniqueItems` comparisons) one check of the answers may cost. */
export const CHECK_LIMIT = 50_000;

class OverBudget extends Error {}

// How each kind of subschema reaches the values under the one it applies to.
const IN_PLACE = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"]);
const ON_ITEMS = new Set(["items", "prefixItems", "additionalItems", "unevaluatedItems", "contains"]);
const ON_VALUES = new Set(["patternProperties", "additionalProperties", "unevaluatedProperties"]);


function valuesAtMost(value: unknown, limit: number): boolean {
  let seen = 0;
  const visit = (node: unknown): void => {
    if (++seen > limit) throw new OverBudget();
    if (typeof node === "object" && node !== null) for (const child of Object.values(node)) visit(child);
  };
  try {
    visit(value);
    return true;
  } catch (error) {
    if (error instanceof OverBudget) return false;
    throw error;
  }
}

/** Runs `count` with a tally that throws past `limit`; whether it stayed within it. A stack overflow (a `$ref`
 *  loop that never reaches a value) is over budget too. */
function within(limit: number, count: (tick: (n?: number) => void) => void): boolean {
  let spent = 0;
  try {
    count((n = 1) => {
      spent += n;
      if (spent > limit) throw new OverBudget();
    });
    return true;
  } catch (error) {
    if (error instanceof OverBudget || error instanceof RangeError) return false;
    throw error;
  }
}

/** How many times RJSF draws the item schemas of array `node`: once per item of its default, or per item its
 *  `minItems` makes it add, each item weighing as much as ITEM_WEIGHT subschemas (a field with its buttons). */
function drawnItems(node: Json): number {
  const given = Array.isArray(node.default) ? node.default.length : 0;
  const least = typeof node.minItems === "number" ? node.minItems : 0;
  return ITEM_WEIGHT * Math.max(1, given, least);
}

/** How many times RJSF draws the value schemas of object `node`: once per property of its default (each with
 *  its name's input and remove button). */
function drawnValues(node: Json): number {
  return ITEM_WEIGHT * Math.max(1, isRecord(node.default) ? Object.keys(node.default).length : 0);
}

/** Whether RJSF can draw the form of `schema` within the bounds: its nesting, its size, and what it draws counted
 *  with every `$ref` expanded (a reference back into the schema being expanded counts once), each array's items
 *  and each object's extra properties as many times as it has, and each option of an `enum` or `examples` list. */
export function formFits(schema: unknown): boolean {
  if (deeperThan(schema, MAX_DEPTH) || !valuesAtMost(schema, MAX_VALUES)) return false;
  const resolve = resolver(schema);
  if (!resolve) return false;
  const expanding = new Set<unknown>();
  return within(RENDER_LIMIT, (tick) => {
    const visit = (node: unknown, weight: number): void => {
      tick(weight);
      if (!isRecord(node) || expanding.has(node)) return;
      expanding.add(node);
      for (const list of [node.enum, node.examples]) if (Array.isArray(list)) tick(weight * list.length);
      const ref = refOf(node);
      if (ref !== undefined) {
        const target = resolve(ref);
        if (target === undefined) throw new OverBudget(); // a reference the widget cannot follow
        visit(target, weight);
      }
      for (const sub of subschemas(node)) {
        const times = ON_ITEMS.has(sub.keyword) ? drawnItems(node) : ON_VALUES.has(sub.keyword) ? drawnValues(node) : 1;
        visit(sub.schema, weight * times);
      }
      expanding.delete(node);
    };
    visit(schema, 1);
  });
}

/** Whether checking `data` against `schema` stays within `limit` evaluations: every subschema applied to every
 *  value it can reach (both branches of each `if`, every option of `anyOf`/`oneOf`), and n²/2 comparisons for
 *  each array under `uniqueItems`. */
export function checkFits(schema: unknown, data: unknown, limit = CHECK_LIMIT): boolean {
  if (deeperThan(schema, MAX_DEPTH) || deeperThan(data, MAX_DEPTH)) return false;
  const resolve = resolver(schema);
  if (!resolve) return false;
  return within(limit, (tick) => {
    const visit = (node: unknown, value: unknown): void => {
      tick();
      if (!isRecord(node)) return;
      const ref = refOf(node);
      if (ref !== undefined) {
        const target = resolve(ref);
        if (target === undefined) throw new OverBudget();
        visit(target, value);
      }
      const items = Array.isArray(value) ? value : [];
      const fields = isRecord(value) ? value : {};
      for (const { schema: sub, keyword } of subschemas(node)) {
        if (IN_PLACE.has(keyword)) visit(sub, value);
        else if (ON_ITEMS.has(keyword)) for (const item of items) visit(sub, item);
        else if (ON_VALUES.has(keyword)) for (const item of Object.values(fields)) visit(sub, item);
        else if (keyword === "propertyNames") for (const name of Object.keys(fields)) visit(sub, name);
      }
      if (isRecord(node.properties)) {
        for (const [name, sub] of Object.entries(node.properties)) if (Object.hasOwn(fields, name)) visit(sub, fields[name]);
      }
      if (node.uniqueItems === true) tick((items.length * (items.length - 1)) / 2);
    };
    visit(schema, data);
  });
}
