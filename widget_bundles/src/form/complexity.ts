// How much work a model-written schema asks of the widget, counted before any of it is done, with the counting
// itself stopped at the bound. A `$defs` chain whose every level is `allOf` of two `$ref`s to the next is 1 KB of
// schema that RJSF (expanding it to draw the form) and the validator (evaluating it) would take 2^N steps over.
// Past the bounds the widget does not draw the form (`formFits`) or leaves the answers to the server, which
// checks them under its own budget (`checkFits`).
//
// The drawing bound is the server's, in the server's unit. The server refuses, when the form is asked, a schema
// whose check of the values at any one level of an answer (the top, the fields, their fields, …) could take more
// than FORMS_MAX_VALUE_STEPS (10,000 by default) evaluation steps, each subschema applied to each value costing at
// least one, and says in the result which bound it ran (`_meta.dgui_limits.valueSteps`). Here each subschema drawn
// counts one, so a form the server accepts costs at most that bound per level: renderLimit, two levels' worth (the
// top and the fields'), draws every accepted form whose fields are not objects or lists. The widget takes the
// server's word only up to MAX_LEVEL_STEPS, its own ceiling, so no value in a payload makes it draw unbounded work.
// Deeper forms, or lists drawn with many items, may go past it: the widget then says so, and the questions are
// asked in the conversation (app.ts).

import { isRecord } from "../shared/dom";
import { deeperThan, refOf, resolver, subschemas, type Json } from "./schema-walk";

/** Nesting of the schema's JSON (the server allows 12). */
export const MAX_DEPTH = 32;
/** JSON values in the schema: fields, options, defaults (the server's 32 KB holds about 16,000 at most). */
export const MAX_VALUES = 20_000;
/** The server's default bound on checking the values at one level of an answer (FORMS_MAX_VALUE_STEPS): the bound
 *  drawn to when a result does not say its own. */
export const SERVER_LEVEL_STEPS = 10_000;
/** The most the widget takes from a result's bound, whatever it says: about ten times the default's drawing. */
export const MAX_LEVEL_STEPS = 100_000;

/** The bound to draw to for `value` (a result's `valueSteps`): the server's default unless it is a whole number,
 *  and never below the default nor above MAX_LEVEL_STEPS. */
export function levelSteps(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) return SERVER_LEVEL_STEPS;
  return Math.min(MAX_LEVEL_STEPS, Math.max(SERVER_LEVEL_STEPS, value));
}

/** What RJSF may draw under a server bound of `steps` per level: subschemas expanded (each `$ref` followed where it
 *  points), array items, and option lists. Two levels of the server's bound, and room for what the server counts
 *  lighter: option lists (one per 16 options here) and true/false fields, at most about 1,100 in the server's 32 KB. */
export function renderLimit(steps: number): number {
  return 2 * steps + 1_500;
}

/** An array item or extra property drawn (a field with its move and remove buttons) weighs as much as this many
 *  subschemas, beside its own. */
export const ITEM_WEIGHT = 10;
/** Options of an `enum` or `examples` list counted as one (each list once per drawing of its field). */
export const OPTIONS_PER_STEP = 16;
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

/** How many items RJSF draws at first for array `node`: those of its default, or as many as its `minItems`. */
function drawnItems(node: Json): number {
  const given = Array.isArray(node.default) ? node.default.length : 0;
  const least = typeof node.minItems === "number" ? node.minItems : 0;
  return Math.max(given, least);
}

/** How many extra properties RJSF draws at first for object `node`: those of its default (each with its name's
 *  input and remove button). */
function drawnValues(node: Json): number {
  return isRecord(node.default) ? Object.keys(node.default).length : 0;
}

/** Whether RJSF can draw the form of `schema` within the bounds, for a server that accepts `valueSteps` per level
 *  (clamped: levelSteps): its nesting, its size, and what it draws counted with every `$ref` expanded (a reference
 *  back into the schema being expanded counts once), each array's items and each object's extra properties as many
 *  times as it draws at first (at least once, as the server counts them), each with its buttons, and the options of
 *  `enum` and `examples` lists. */
export function formFits(schema: unknown, valueSteps = SERVER_LEVEL_STEPS): boolean {
  if (deeperThan(schema, MAX_DEPTH) || !valuesAtMost(schema, MAX_VALUES)) return false;
  const resolve = resolver(schema);
  if (!resolve) return false;
  const expanding = new Set<unknown>();
  const listed = new Set<unknown>();
  return within(renderLimit(levelSteps(valueSteps)), (tick) => {
    const visit = (node: unknown, weight: number): void => {
      tick(weight);
      if (!isRecord(node) || expanding.has(node)) return;
      expanding.add(node);
      for (const list of [node.enum, node.examples]) {
        if (!Array.isArray(list) || listed.has(list)) continue;
        listed.add(list); // drawn once where its field is drawn, however many subschemas merge into that field
        tick(weight * Math.ceil(list.length / OPTIONS_PER_STEP));
      }
      const ref = refOf(node);
      if (ref !== undefined) {
        const target = resolve(ref);
        if (target === undefined) throw new OverBudget(); // a reference the widget cannot follow
        if (typeof target !== "boolean") visit(target, weight); // true/false: nothing more drawn (nor checked)
      }
      for (const sub of subschemas(node)) {
        const onItems = ON_ITEMS.has(sub.keyword);
        if (!onItems && !ON_VALUES.has(sub.keyword)) {
          visit(sub.schema, weight);
          continue;
        }
        const drawn = onItems ? drawnItems(node) : drawnValues(node);
        tick(weight * drawn * ITEM_WEIGHT); // each drawn item's own field and buttons
        visit(sub.schema, weight * Math.max(1, drawn));
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
