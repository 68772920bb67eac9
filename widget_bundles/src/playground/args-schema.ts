// A tool's inputSchema as the playground's argument form: the schema RJSF renders, the example it starts from,
// and the two-way mapping between the form's data and the arguments sent (the raw JSON view).

import { isRecord } from "../shared/dom";

export type Args = Record<string, unknown>;
type Schema = Record<string, unknown>;

export interface ToolSchemas {
  name: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  visibility?: string;
  /** The arguments that are ids another tool's result makes, as the tool declares them (`ids=` on `book.tool`,
   * published in `_meta["widget-mcp/ids"]`): argument → "tool_name.outputField". */
  ids?: Readonly<Record<string, unknown>>;
}

/** How one argument is edited: as a form field of its own type, or as JSON text (objects, unions). */
interface Field {
  name: string;
  schema: Schema;
  json: boolean;
}

export interface ArgsForm {
  schema: Schema;
  uiSchema: Schema;
  fields: Field[];
}

const SCALARS = new Set(["string", "integer", "number", "boolean"]);

function resolve(schema: unknown, root: Schema): Schema {
  if (!isRecord(schema)) return {};
  const ref = typeof schema.$ref === "string" ? /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref) : null;
  const defs = ref ? root[ref[1]!] : undefined;
  const target = ref && isRecord(defs) ? defs[ref[2]!] : undefined;
  return isRecord(target) ? { ...target, ...schema, $ref: undefined } : schema;
}

/** `X | None` (pydantic's optional arguments) is edited as X: an empty field leaves the argument out. */
function unwrapOptional(schema: Schema, root: Schema): Schema {
  const options = Array.isArray(schema.anyOf) ? schema.anyOf.map((o) => resolve(o, root)) : null;
  if (!options) return schema;
  const real = options.filter((o) => o.type !== "null");
  if (real.length !== 1) return schema;
  const { anyOf: _anyOf, default: fallback, ...rest } = schema;
  return { ...real[0], ...rest, ...(fallback === null || fallback === undefined ? {} : { default: fallback }) };
}

function isSimple(schema: Schema): boolean {
  if (typeof schema.type === "string" && SCALARS.has(schema.type)) return true;
  if (schema.type === "array" && isRecord(schema.items)) {
    const items = schema.items;
    return typeof items.type === "string" && SCALARS.has(items.type);
  }
  return false;
}

function properties(input: unknown): { props: [string, Schema][]; required: Set<string>; root: Schema } {
  const root = isRecord(input) ? input : {};
  const props = isRecord(root.properties) ? root.properties : {};
  const required = new Set(Array.isArray(root.required) ? root.required.map(String) : []);
  return { props: Object.entries(props).map(([name, s]) => [name, unwrapOptional(resolve(s, root), root)]), required, root };
}

/** Each argument is labelled by its name, as it is spelled in the JSON. */
export function argsForm(inputSchema: unknown): ArgsForm {
  const { props, required } = properties(inputSchema);
  const fields: Field[] = props.map(([name, schema]) => ({ name, schema, json: !isSimple(schema) }));
  const formProps: Schema = {};
  const uiSchema: Schema = { "ui:submitButtonOptions": { norender: true } };
  for (const field of fields) {
    const { title: _title, examples: _examples, ...schema } = field.schema;
    if (field.json) {
      const { description } = field.schema;
      formProps[field.name] = { type: "string", title: field.name, ...(typeof description === "string" ? { description } : {}) };
      uiSchema[field.name] = { "ui:widget": "textarea", "ui:placeholder": "JSON", "ui:options": { rows: required.has(field.name) ? 6 : 3 } };
    } else {
      formProps[field.name] = { ...schema, title: field.name };
    }
  }
  return { schema: { type: "object", properties: formProps, required: [...required] }, uiSchema, fields };
}

/** The arguments as the form holds them: JSON-edited ones as text. */
export function toFormData(form: ArgsForm, args: Args): Args {
  const data: Args = {};
  for (const field of form.fields) {
    const value = args[field.name];
    if (value === undefined) continue;
    data[field.name] = field.json && typeof value !== "string" ? JSON.stringify(value, null, 2) : value;
  }
  return data;
}

/** The form's data back as arguments. Keys the schema does not know stay as the raw JSON had them (the server
 * will say what is wrong with them). JSON-edited text that parses is sent parsed, otherwise as the text. */
export function fromFormData(form: ArgsForm, data: Args, previous: Args): Args {
  const args: Args = { ...previous };
  for (const field of form.fields) {
    const value = data[field.name];
    if (value === undefined || value === "") {
      delete args[field.name];
    } else if (field.json && typeof value === "string") {
      try {
        const parsed: unknown = JSON.parse(value);
        args[field.name] = typeof parsed === "object" && parsed !== null ? parsed : value;
      } catch {
        args[field.name] = value;
      }
    } else {
      args[field.name] = value;
    }
  }
  return args;
}

function placeholder(schema: Schema): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ("const" in schema) return schema.const;
  switch (schema.type) {
    case "boolean":
      return false;
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "example".slice(0, typeof schema.maxLength === "number" ? schema.maxLength : undefined);
  }
}

/** How many makers deep the playground follows declared ids (the server refuses longer chains and cycles). */
export const MAX_ID_CHAIN = 4;

/** The tool that makes `argument` of `tool` and the field of its structuredContent that holds it, as `tool`
 * declares it (chess_move's gameId: chess_new_game.gameId). Nothing is guessed from field names: an output that
 * echoes an input (a poll's question) would make that input look like an id. */
export function producerOf(argument: string, tool: ToolSchemas, tools: readonly ToolSchemas[]): { producer: ToolSchemas; source: string } | undefined {
  const declared = tool.ids?.[argument];
  const dot = typeof declared === "string" ? declared.indexOf(".") : -1;
  if (typeof declared !== "string" || dot < 1) return undefined;
  const producer = tools.find((t) => t.name === declared.slice(0, dot) && t.name !== tool.name);
  return producer ? { producer, source: declared.slice(dot + 1) } : undefined;
}

export interface Example {
  args: Args;
  /** Required ids no earlier result carried: which tool makes one, and the field of its result that holds it. */
  missing: { field: string; producer: ToolSchemas; source: string }[];
}

/** A working starting point for `tool`: the tool's own `examples` (of the whole input, then of each argument),
 * for an argument it declares an id the latest value a result of its maker carried, then defaults, then the first
 * enum value or a placeholder of its type. */
export function exampleArgs(tool: ToolSchemas, tools: readonly ToolSchemas[], seen: ReadonlyMap<string, unknown>): Example {
  const { props, required, root } = properties(tool.inputSchema);
  const whole = Array.isArray(root.examples) && isRecord(root.examples[0]) ? root.examples[0] : {};
  const args: Args = {};
  const missing: Example["missing"] = [];
  for (const [name, schema] of props) {
    if (name in whole) {
      args[name] = whole[name];
      continue;
    }
    const made = producerOf(name, tool, tools);
    if (made) {
      if (seen.has(made.source)) args[name] = seen.get(made.source);
      else if (required.has(name)) missing.push({ field: name, ...made });
    } else if (Array.isArray(schema.examples) && schema.examples.length) {
      args[name] = schema.examples[0];
    } else if (schema.default !== undefined && schema.default !== null) {
      args[name] = schema.default;
    } else if (required.has(name)) {
      args[name] = placeholder(schema);
    }
  }
  return { args, missing };
}

/** Values a result makes available to later calls: the strings at the top of its structuredContent. */
export function remember(seen: Map<string, unknown>, result: Record<string, unknown>): void {
  if (result.isError || !isRecord(result.structuredContent)) return;
  for (const [key, value] of Object.entries(result.structuredContent)) {
    if (typeof value === "string" && value) seen.set(key, value);
  }
}
