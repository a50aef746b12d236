import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Logger } from "pino";
import { FunctionCallError, texts, type JsonSchema } from "../protocol/index.js";
import { errorMessage } from "../util/index.js";

// ajv-formats ships CJS with a default export object.
/** Each dialect has its own class over ajv's core. */
type AnyAjv = Ajv | Ajv2019 | Ajv2020;
const addFormats = addFormatsModule as unknown as <A extends AnyAjv>(ajv: A) => A;

export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

/** Validates parsed arguments; returns the model-facing problems, empty when valid. */
export type ArgumentValidator = (args: unknown) => string[];

function makeAjv(dialect: SchemaDialect): AnyAjv {
  const options = {
    strict: false, // real-world schemas carry unknown keywords and formats
    allErrors: true,
    validateSchema: false,
    logger: false as const,
  };
  const ajv =
    dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
  return addFormats(ajv);
}

function dialectOf(schema: JsonSchema, fallback: SchemaDialect): SchemaDialect {
  const declared = schema["$schema"];
  if (typeof declared !== "string") return fallback;
  if (declared.includes("2020-12")) return "2020-12";
  if (declared.includes("2019-09")) return "2019-09";
  if (/draft-0[4-7]/.test(declared)) return "draft-07";
  return fallback;
}

/** Ajv error -> `{path} {message}`; names the rule and path, never the argument value. */
export function describeSchemaError(err: ErrorObject): string {
  const base = err.instancePath === "" ? "/" : err.instancePath;
  if (err.keyword === "additionalProperties" || err.keyword === "unevaluatedProperties") {
    const key = String(
      (err.params as { additionalProperty?: string; unevaluatedProperty?: string }).additionalProperty ??
        (err.params as { unevaluatedProperty?: string }).unevaluatedProperty,
    );
    const path = err.instancePath === "" ? `/${key}` : `${err.instancePath}/${key}`;
    return `${path} is not an allowed property`;
  }
  return `${base} ${err.message ?? `fails ${err.keyword}`}`;
}

/**
 * Compiles each schema once (ajv per dialect, lazily created). A schema that cannot compile is
 * logged once and validation is skipped for it: the handler (or server) judges the arguments.
 */
export class SchemaValidatorCache {
  private readonly ajvs = new Map<SchemaDialect, AnyAjv>();
  private readonly compiled = new WeakMap<JsonSchema, ArgumentValidator | null>();

  constructor(private readonly logger?: Logger) {}

  validatorFor(schema: JsonSchema, toolName: string, fallback: SchemaDialect = "draft-07"): ArgumentValidator | null {
    const cached = this.compiled.get(schema);
    if (cached !== undefined) return cached;
    let validator: ArgumentValidator | null = null;
    try {
      const dialect = dialectOf(schema, fallback);
      let ajv = this.ajvs.get(dialect);
      if (!ajv) {
        ajv = makeAjv(dialect);
        this.ajvs.set(dialect, ajv);
      }
      // Drop `$id` so two tools sharing an id cannot collide in ajv's registry.
      const { $id: _id, ...rest } = schema;
      const validate: ValidateFunction = ajv.compile(rest);
      validator = (args) => (validate(args) ? [] : (validate.errors ?? []).map(describeSchemaError));
    } catch (err) {
      this.logger?.warn({ err, toolName }, "tool schema does not compile; arguments are not validated");
    }
    this.compiled.set(schema, validator);
    return validator;
  }
}

/** Parses a function's argument string; the empty string means `{}`. */
export function parseArguments(raw: unknown): unknown {
  if (typeof raw !== "string") {
    throw FunctionCallError.respondToModel(texts.argumentsNotString);
  }
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    throw FunctionCallError.respondToModel(texts.argumentsNotJson(errorMessage(err)));
  }
}

export function validateArguments(toolName: string, args: unknown, validator: ArgumentValidator | null): void {
  if (!validator) return;
  const problems = validator(args);
  if (problems.length > 0) {
    throw FunctionCallError.respondToModel(texts.invalidArguments(toolName, problems));
  }
}
