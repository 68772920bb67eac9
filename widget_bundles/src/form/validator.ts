// RJSF's validator interface over @cfworker/json-schema, an interpreting JSON Schema validator.
// @rjsf/validator-ajv8 compiles every schema with `new Function`, which widget CSPs (no 'unsafe-eval', as in
// ChatGPT and MCP Apps hosts) refuse: every submit then fails with "Error compiling schema". This one runs
// under the CSP, speaks Draft-07 and 2020-12 like the server, and checks formats; the server stays the authority.

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

type Data = Record<string, unknown>;

// Keywords that only report "something inside failed": dropped when the inner error is reported too.
const WRAPPERS = new Set(["properties", "patternProperties", "items", "prefixItems", "allOf", "$ref", "$recursiveRef", "if", "then", "else", "dependentSchemas", "dependencies", "contains", "unevaluatedProperties", "unevaluatedItems", "additionalItems"]);
const REQUIRED = /required property "(.*)"\.$/;

function draftOf(schema: RJSFSchema): SchemaDraft {
  return /draft-0?7/.test(String(schema.$schema ?? "")) ? "7" : "2020-12";
}

const cache = new WeakMap<object, Validator>();

function validatorFor(schema: RJSFSchema): Validator {
  let validator = cache.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, draftOf(schema), false);
    cache.set(schema, validator);
  }
  return validator;
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

class CfValidator implements ValidatorType<Data, RJSFSchema> {
  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: Data): { errors?: Result[]; validationError?: Error } {
    try {
      const result = validatorFor(schema).validate(formData ?? {});
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

  isValid(schema: RJSFSchema, formData: Data | undefined, rootSchema: RJSFSchema): boolean {
    // Sub-schemas (anyOf/oneOf options) may $ref the root's definitions: validate them with those at hand.
    const withDefinitions = { ...schema, definitions: rootSchema.definitions, $defs: rootSchema.$defs } as RJSFSchema;
    try {
      return validatorFor(withDefinitions).validate(formData).valid;
    } catch {
      return false;
    }
  }
}

export const validator = new CfValidator();
