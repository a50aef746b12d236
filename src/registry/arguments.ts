import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Logger } from "pino";
import { FunctionCallError, texts, type JsonSchema } from "../protocol/index.js";

/** Each dialect has its own class over ajv's core. */
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv's dialects and ajv-formats are CommonJS, required on first use: about 20-30 ms of
// start-up each that a process validating nothing (or one dialect, no formats) never pays.
// The CLI bundle (scripts/bundle-cli.mjs) bundles these requires, still lazily.
const require = createRequire(import.meta.url);
type AjvClass = new (options: object) => AnyAjv;
const addFormats = (ajv: AnyAjv): void => {
  (require("ajv-formats") as { default: (ajv: AnyAjv) => AnyAjv }).default(ajv);
};

export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

/**
 * Validates parsed arguments; returns the model-facing problems, empty when valid. `schema`:
 * what it checks, for repair (DESIGN section 18) to read which types the tool wants.
 */
export interface ArgumentValidator {
  (args: unknown): readonly string[];
  readonly schema?: JsonSchema;
}

function makeAjv(dialect: SchemaDialect): AnyAjv {
  const options = {
    strict: false, // real-world schemas carry unknown keywords and formats
    allErrors: true,
    validateSchema: false,
    logger: false as const,
  };
  const Class =
    dialect === "2020-12"
      ? (require("ajv/dist/2020.js") as { Ajv2020: AjvClass }).Ajv2020
      : dialect === "2019-09"
        ? (require("ajv/dist/2019.js") as { Ajv2019: AjvClass }).Ajv2019
        : (require("ajv") as { Ajv: AjvClass }).Ajv;
  return new Class(options);
}

/** Whether `value` uses the `format` keyword anywhere (ajv-formats is loaded only then). */
function usesFormat(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(usesFormat);
  if (typeof value !== "object" || value === null) return false;
  for (const [key, inner] of Object.entries(value)) {
    if ((key === "format" && typeof inner === "string") || usesFormat(inner)) return true;
  }
  return false;
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
function describeSchemaError(err: ErrorObject): string {
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

/** Valid arguments' problems: one array for every valid call, not a new one per call. */
const NO_PROBLEMS: readonly string[] = Object.freeze([]);

/**
 * Compiles each schema once, on the first call it validates (ajv per dialect, lazily created):
 * a router offers many tools and a turn calls few of them. A schema that cannot compile is
 * logged once and validation is skipped for it: the handler (or server) judges the arguments.
 */
export class SchemaValidatorCache {
  private readonly ajvs = new Map<SchemaDialect, { ajv: AnyAjv; formats: boolean }>();
  private readonly validators = new WeakMap<JsonSchema, ArgumentValidator>();

  constructor(private readonly logger?: Logger) {}

  validatorFor(schema: JsonSchema, toolName: string, fallback: SchemaDialect = "draft-07"): ArgumentValidator {
    const cached = this.validators.get(schema);
    if (cached !== undefined) return cached;
    // undefined: not compiled yet; null: does not compile, arguments pass unchecked.
    let validate: ValidateFunction | null | undefined;
    const check = (args: unknown): readonly string[] => {
      validate ??= this.compile(schema, toolName, fallback);
      return validate === null || validate(args) ? NO_PROBLEMS : (validate.errors ?? []).map(describeSchemaError);
    };
    const validator: ArgumentValidator = Object.assign(check, { schema });
    this.validators.set(schema, validator);
    return validator;
  }

  private compile(schema: JsonSchema, toolName: string, fallback: SchemaDialect): ValidateFunction | null {
    try {
      const dialect = dialectOf(schema, fallback);
      let entry = this.ajvs.get(dialect);
      if (!entry) {
        entry = { ajv: makeAjv(dialect), formats: false };
        this.ajvs.set(dialect, entry);
      }
      if (!entry.formats && usesFormat(schema)) {
        addFormats(entry.ajv);
        entry.formats = true;
      }
      // Drop `$id` so two tools sharing an id cannot collide in ajv's registry.
      const { $id: _id, ...rest } = schema;
      return entry.ajv.compile(rest);
    } catch (err) {
      this.logger?.warn({ err, toolName }, "tool schema does not compile; arguments are not validated");
      return null;
    }
  }
}

export function validateArguments(toolName: string, args: unknown, validator: ArgumentValidator | null): void {
  if (!validator) return;
  const problems = validator(args);
  if (problems.length > 0) {
    throw FunctionCallError.respondToModel(texts.invalidArguments(toolName, problems));
  }
}
