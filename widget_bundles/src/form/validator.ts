// RJSF's validator interface over @cfworker/json-schema, an interpreting JSON Schema validator.
// @rjsf/validator-ajv8 compiles every schema with `new Function`, which widget CSPs (no 'unsafe-eval', as in
// ChatGPT and MCP Apps hosts) refuse: every submit then fails with "Error compiling schema". This one runs
// under the CSP, speaks Draft-07 and 2020-12 like the server, and checks formats; the server stays the authority.
// Its work is bounded: it checks against the schema without what has no time bound in a browser (local-schema.ts),
// and only when the count of evaluations stays within a budget (complexity.ts); otherwise the answers go to the
// server unchecked, which says what is wrong under each field.

import { Validator, type OutputUnit, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";
import { checkFits } from "./complexity";
import { localSchema } from "./local-schema";

type Data = Record<string, unknown>;

// Keywords that only report "something inside failed": dropped when the inner error is reported too.
const WRAPPERS = new Set(["properties", "patternProperties", "items", "prefixItems", "allOf", "$ref", "$recursiveRef", "if", "then", "else", "dependentSchemas", "dependencies", "contains", "unevaluatedProperties", "unevaluatedItems", "additionalItems"]);
const REQUIRED = /required property "(.*)"\.$/;

function draftOf(schema: RJSFSchema): SchemaDraft {
  return /draft-0?7/.test(String(schema.$schema ?? "")) ? "7" : "2020-12";
}

const validators = new WeakMap<object, Validator>();

function validatorFor(schema: RJSFSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, draftOf(schema), false);
    validators.set(schema, validator);
  }
  return validator;
}

const locals = new WeakMap<object, RJSFSchema | null>();

/** The schema checked in the browser for the model's `schema` (null: none, the server checks). */
function localFor(schema: RJSFSchema): RJSFSchema | null {
  if (!locals.has(schema)) locals.set(schema, localSchema(schema) as RJSFSchema | null);
  return locals.get(schema) ?? null;
}

const options = new WeakMap<object, { root: object; schema: RJSFSchema | null }>();

/** The local schema of `schema` (an option or branch of `rootSchema`) with the root's definitions at hand, which
 *  its `$ref`s may name. */
function optionFor(schema: RJSFSchema, rootSchema: RJSFSchema): RJSFSchema | null {
  const known = options.get(schema);
  if (known?.root === rootSchema) return known.schema;
  const root = localFor(rootSchema);
  const own = root && localSchema({ ...schema, definitions: undefined, $defs: undefined });
  const option = own ? ({ ...own, definitions: root.definitions, $defs: root.$defs } as RJSFSchema) : null;
  options.set(schema, { root: rootSchema, schema: option });
  return option;
}

function segments(location: string): string[] {
  return location
    .replace(/^#\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURI(part).replace(/%23/g, "#").replace(/~1/g, "/").replace(/~0/g, "~");
      } catch {
        return part;
      }
    });
}

function toRjsfError(unit: OutputUnit): RJSFValidationError {
  const path = segments(unit.instanceLocation);
  const missing = unit.keyword === "required" ? REQUIRED.exec(unit.error)?.[1] : undefined;
  if (missing !== undefined) path.push(missing);
  const property = path.length ? `.${path.join(".")}` : "";
  const message = unit.error.replace(/^Instance /, "Value ").replace(/\s+$/, "");
  return {
    name: unit.keyword,
    property,
    message,
    params: missing !== undefined ? { missingProperty: missing } : {},
    schemaPath: unit.keywordLocation,
    stack: `${property || "."} ${message}`.trim(),
  };
}

function leafErrors(units: readonly OutputUnit[]): OutputUnit[] {
  const leaves = units.filter((u) => !WRAPPERS.has(u.keyword));
  const seen = new Set<string>();
  return (leaves.length ? leaves : units).filter((u) => {
    const key = `${u.instanceLocation}|${u.keyword}|${u.error}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export class CfValidator implements ValidatorType<Data, RJSFSchema> {
  /** Whether the last check of the answers was left to the server (too costly, or not bounded, in a browser). */
  leftToServer = false;

  /** `checkedHere` false: the form's answers are the server's alone to check (payload.ts says when). */
  constructor(private readonly checkedHere = true) {}

  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: Data): { errors?: Result[]; validationError?: Error } {
    const local = this.checkedHere ? localFor(schema) : null;
    const data = formData ?? {};
    this.leftToServer = !local || !checkFits(local, data);
    if (!local || this.leftToServer) return { errors: [] };
    try {
      const result = validatorFor(local).validate(data);
      return { errors: (result.valid ? [] : leafErrors(result.errors)) as Result[] };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  validateFormData(
    formData: Data | undefined,
    schema: RJSFSchema,
    customValidate?: CustomValidator<Data, RJSFSchema>,
    transformErrors?: ErrorTransformer<Data, RJSFSchema>,
    uiSchema?: UiSchema<Data, RJSFSchema>,
  ): ValidationData<Data> {
    const raw = this.rawValidation<OutputUnit>(schema, formData);
    let errors = (raw.errors ?? []).map(toRjsfError);
    if (raw.validationError) errors.push({ stack: raw.validationError.message, message: raw.validationError.message });
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<Data>(errors);
    if (!customValidate) return { errors, errorSchema };
    const data = (getDefaultFormState<Data, RJSFSchema>(this, schema, formData, schema, true) ?? {}) as Data;
    const userErrors = unwrapErrorHandler<Data>(customValidate(data, createErrorHandler<Data>(data), uiSchema));
    return validationDataMerge<Data>({ errors, errorSchema }, userErrors);
  }

  /** RJSF asks this to pick among `anyOf`/`oneOf` options and `if` branches as it draws the form. A question the
   *  budget does not allow is answered "no": RJSF then picks by its own closeness score. */
  isValid(schema: RJSFSchema, formData: Data | undefined, rootSchema: RJSFSchema): boolean {
    const withDefinitions = this.checkedHere ? optionFor(schema, rootSchema) : null;
    if (!withDefinitions || !checkFits(withDefinitions, formData)) return false;
    try {
      return validatorFor(withDefinitions).validate(formData).valid;
    } catch {
      return false;
    }
  }
}

/** The playground's argument form's checker (each form widget makes its own, to know what it left to the server). */
export const validator = new CfValidator();
