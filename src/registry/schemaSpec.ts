import { createRequire } from "node:module";
import type { toJsonSchemaCompat as ToJsonSchemaCompatFn } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
  FunctionCallError,
  texts,
  type FunctionToolSpec,
  type JsonSchema,
  type ToolOutput,
  type ToolSpec,
} from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import type { ToolHandler, ToolInvocation } from "./handler.js";

/**
 * A Standard Schema (https://standardschema.dev, v1): zod 3.24+ and 4, valibot, ArkType...
 * The spec asks libraries to copy its types rather than depend on a package: this is the part
 * we read.
 */
export interface StandardSchema<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    /** Standard JSON Schema (valibot, ArkType): how a non-zod schema becomes JSON Schema. */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** What a schema's `validate` gives on success. */
export type SchemaOutput<S extends StandardSchema> = NonNullable<S["~standard"]["types"]>["output"];

/** A function tool whose `parameters` is a zod (or other Standard) schema instead of JSON Schema. */
export type SchemaToolSpec<S extends StandardSchema = StandardSchema> = Omit<FunctionToolSpec, "parameters"> & {
  parameters: S;
};

/** What `pushSpec` and tool factories take: a spec, or a function spec with a schema. */
export type ToolSpecInput = ToolSpec | SchemaToolSpec;

type ToJsonSchemaCompat = typeof ToJsonSchemaCompatFn;
let zodConverter: ToJsonSchemaCompat | undefined;

/**
 * The MCP SDK's zod converter, loaded (synchronously: `pushSpec` is) on the first zod schema,
 * so a process that never sees one never loads it, nor the MCP SDK nor zod.
 */
function toJsonSchemaCompat(...args: Parameters<ToJsonSchemaCompat>): ReturnType<ToJsonSchemaCompat> {
  zodConverter ??= (
    createRequire(import.meta.url)("@modelcontextprotocol/sdk/server/zod-json-schema-compat.js") as {
      toJsonSchemaCompat: ToJsonSchemaCompat;
    }
  ).toJsonSchemaCompat;
  return zodConverter(...args);
}

function isStandardSchema(value: unknown): value is StandardSchema {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/**
 * The JSON Schema the model sees: zod through the MCP SDK's converter (zod 3 and 4, input
 * side: defaults are optional to the model), other libraries through Standard JSON Schema.
 */
function toJsonSchema(name: string, schema: StandardSchema): JsonSchema {
  const standard = schema["~standard"];
  let converted: JsonSchema;
  try {
    if (standard.vendor === "zod") {
      converted = toJsonSchemaCompat(schema as Parameters<typeof toJsonSchemaCompat>[0], { target: "draft-7" });
    } else if (standard.jsonSchema) {
      converted = standard.jsonSchema.input({ target: "draft-07" });
    } else {
      throw new Error(`a ${standard.vendor} schema gives no JSON Schema (it does not implement Standard JSON Schema)`);
    }
  } catch (err) {
    throw new TypeError(`parameters of tool ${name}: cannot convert to JSON Schema: ${errorMessage(err)}`);
  }
  if (converted["type"] !== "object") {
    throw new TypeError(
      `parameters of tool ${name} must be an object schema, got ${JSON.stringify(converted["type"])}`,
    );
  }
  // The dialect is ours to pick (draft-07 is the validator's default); some providers reject `$schema`.
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

/** The spec as every exporter and validator knows it: a schema's `parameters` become JSON Schema. */
export function resolveToolSpec(spec: ToolSpecInput): ToolSpec {
  if (spec.type !== "function" || !isStandardSchema(spec.parameters)) return spec as ToolSpec;
  return { ...spec, parameters: toJsonSchema(spec.name, spec.parameters) };
}

function issuePath(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  const keys = (path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment));
  return `/${keys.join("/")}`;
}

/**
 * A handler whose `args` are what `schema` parsed (typed, defaults filled, refinements
 * checked): the registry has already checked the JSON Schema form; the schema's own checks
 * that JSON Schema cannot say are answered to the model like any argument error.
 */
export function schemaHandler<S extends StandardSchema, Ctx = unknown>(
  schema: S,
  handle: (args: SchemaOutput<S>, inv: ToolInvocation<Ctx>) => Promise<ToolOutput | string>,
  hooks: Omit<ToolHandler<Ctx>, "kind" | "handle"> = {},
): ToolHandler<Ctx> {
  return {
    ...hooks,
    kind: "function",
    async handle(inv) {
      const result = await schema["~standard"].validate(inv.args);
      if (result.issues) {
        const problems = result.issues.map((issue) => `${issuePath(issue.path)} ${issue.message}`);
        throw FunctionCallError.respondToModel(texts.invalidArguments(inv.toolName, problems));
      }
      const output = await handle(result.value, inv);
      return typeof output === "string" ? { kind: "function", body: output, success: true } : output;
    },
  };
}
