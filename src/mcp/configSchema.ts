/**
 * The MCP server table of each config form as a zod schema: the programmatic form (camelCase),
 * Codex's `config.toml` (`[mcp_servers.NAME]`, snake_case) and the JSON forms (`mcpServers` /
 * VS Code's `servers`, camelCase plus `type`, `headers`, `disabled`, `serverUrl`, `envFile`).
 * One field table feeds all three; each schema turns its form into `McpServerConfig`.
 */
import * as z from "zod/v4";
import { asTableInput, describeValue, unknownKeysMessage, type UnknownKeys } from "../util/index.js";
import type { McpOAuthConfig, McpServerConfig } from "./config.js";

/** zod's error option: "expected `what`, got <the value>". */
const expected = (what: string) => ({
  error: (iss: { input?: unknown }) => `expected ${what}, got ${describeValue(iss.input)}`,
});

const nonEmpty = () => z.string(expected("a string")).min(1, expected("a non-empty string"));
const strings = () => z.array(z.string(expected("a string")), expected("an array of strings"));
const stringMap = () => z.record(z.string(), z.string(expected("a string")), expected("a table of string values"));
const boolean = () => z.boolean(expected("a boolean"));
const wholePositive = (what: string) => z.number(expected(what)).int(expected(what)).positive(expected(what));

/**
 * A Codex `env_vars` entry: a name, or (newer Codex) `{ name, source }` where only the local
 * source applies here (Codex's `remote` needs its remote executor).
 */
const ENV_VAR_ENTRY = 'an environment variable name (a string, or a table { name, source = "local" })';
const envVarEntry = z.union(
  [
    z.string(expected(ENV_VAR_ENTRY)).min(1, expected(ENV_VAR_ENTRY)),
    z.strictObject({ name: nonEmpty(), source: z.literal("local").optional() }),
  ],
  expected(ENV_VAR_ENTRY),
);

/** A table with these keys: another type is "expected `what`", an unknown key follows `unknown`. */
function table<S extends z.ZodRawShape>(shape: S, what: string, unknown: Omit<UnknownKeys, "known">) {
  const known = Object.keys(shape).filter((k) => !unknown.documented?.includes(k));
  const message = unknownKeysMessage({ ...unknown, known });
  const object = z.strictObject(shape, {
    error: (iss) => (iss.code === "unrecognized_keys" ? message : expected(what).error(iss)),
  });
  return z.preprocess(asTableInput, object);
}

type Field = keyof McpServerConfig;
type OAuthField = keyof McpOAuthConfig;

const SERVER_FIELDS = {
  command: nonEmpty(),
  args: strings(),
  env: stringMap(),
  envVars: z.array(
    envVarEntry,
    expected('an array of environment variable names (strings, or tables { name, source = "local" })'),
  ),
  cwd: nonEmpty(),
  url: nonEmpty(),
  bearerTokenEnvVar: nonEmpty(),
  httpHeaders: stringMap(),
  envHttpHeaders: stringMap(),
  startupTimeoutSec: z
    .number(expected("a positive number of seconds"))
    .positive(expected("a positive number of seconds")),
  startupTimeoutMs: wholePositive("a positive whole number of milliseconds"),
  toolTimeoutSec: z.number(expected("a positive number of seconds")).positive(expected("a positive number of seconds")),
  enabled: boolean(),
  enabledTools: strings(),
  disabledTools: strings(),
  supportsParallelToolCalls: boolean(),
  required: boolean(),
  maxReplyBytes: wholePositive("a positive whole number of bytes"),
} satisfies Record<Exclude<Field, "oauth">, z.ZodType>;

const OAUTH_FIELDS = {
  clientId: nonEmpty(),
  clientSecret: nonEmpty(),
  privateKey: nonEmpty(),
  signingAlgorithm: nonEmpty(),
  issuer: nonEmpty(),
  grantType: z.enum(
    ["authorization_code", "client_credentials"],
    expected('"authorization_code" or "client_credentials"'),
  ),
  scopes: strings(),
  callbackPort: z
    .number(expected("a port in 1..65535"))
    .int(expected("a port in 1..65535"))
    .min(1, expected("a port in 1..65535"))
    .max(65535, expected("a port in 1..65535")),
  clientMetadataUrl: nonEmpty(),
  clientName: nonEmpty(),
  idpTokenEndpoint: nonEmpty(),
  idpClientId: nonEmpty(),
  idTokenEnvVar: nonEmpty(),
} satisfies Record<OAuthField, z.ZodType>;

/** How one form names things, and its own keys. */
export interface Form {
  /** `mcp_servers`, `mcpServers`, `servers`: the table named in errors. */
  table: string;
  keyOf(field: string): string;
}

/** Raw keys of a form -> fields (their own values, still unchecked across keys). */
function renamed<F extends string>(
  fields: readonly F[],
  form: Form,
  raw: Record<string, unknown>,
): Partial<Record<F, unknown>> {
  const out: Partial<Record<F, unknown>> = {};
  for (const f of fields) if (raw[form.keyOf(f)] !== undefined) out[f] = raw[form.keyOf(f)];
  return out;
}

const shapeOf = (fields: Record<string, z.ZodType>, form: Form): Record<string, z.ZodType> =>
  Object.fromEntries(Object.entries(fields).map(([f, s]) => [form.keyOf(f), s.optional()]));

function oauthSchema(form: Form) {
  const k = (field: string): string => form.keyOf(field);
  return table(shapeOf(OAUTH_FIELDS, form), "a table of OAuth settings", { mode: "error" })
    .transform((raw) => renamed(Object.keys(OAUTH_FIELDS) as OAuthField[], form, raw) as McpOAuthConfig)
    .superRefine((o, ctx) => {
      const fail = (field: OAuthField, message: string): void => {
        ctx.addIssue({ code: "custom", path: [k(field)], message });
      };
      if ((o.grantType === "client_credentials" || o.privateKey !== undefined) && o.clientId === undefined) {
        fail("clientId", "expected a client id for client credentials");
      }
      const idp = [o.idpTokenEndpoint, o.idpClientId, o.idTokenEnvVar].filter((v) => v !== undefined).length;
      if (idp > 0 && (idp < 3 || o.clientId === undefined)) {
        fail(
          "idpTokenEndpoint",
          `expected ${k("idpTokenEndpoint")}, ${k("idpClientId")}, ${k("idTokenEnvVar")} and ${k("clientId")} together`,
        );
      }
      if (o.grantType === "client_credentials" && o.privateKey === undefined && o.clientSecret === undefined) {
        fail("clientSecret", `expected a client secret or ${k("privateKey")} for client credentials`);
      }
    });
}

/** The JSON forms' own keys: what they say in our terms (applied by `serverSchema`). */
const JSON_EXTRAS = {
  // The transport follows from command / url.
  type: z.enum(
    ["stdio", "http", "streamable-http", "streamableHttp", "sse"],
    expected('one of "stdio", "http", "streamable-http", "sse"'),
  ),
  headers: stringMap(),
  disabled: boolean(),
  serverUrl: nonEmpty(), // Windsurf
  envFile: nonEmpty(), // VS Code / Cursor; read by the caller, `env` wins over the file
};
/** Cline (autoApprove, alwaysAllow, timeout, transportType), VS Code (dev), descriptions. */
const JSON_DOCUMENTED = ["autoApprove", "alwaysAllow", "timeout", "transportType", "dev", "description", "name"];
/** Codex: the OAuth resource (its server-level `scopes` become `oauth.scopes`). */
const TOML_DOCUMENTED = ["oauth_resource"];
/** Codex's approval modes, read by the permission policy (src/cli/codexApprovals.ts). */
const TOML_POLICY_KEYS = ["tools", "default_tools_approval_mode"];

export type FormName = "programmatic" | "toml" | "json";

/** A server of the form, validated, with the JSON form's `envFile` still to read. */
export type ParsedServer = McpServerConfig & { envFile?: string };

/** One server's table in `form`, as `McpServerConfig` (`startupTimeoutMs` folded into seconds). */
export function serverSchema(name: FormName, form: Form) {
  const k = (field: string): string => form.keyOf(field);
  const extras: Record<string, z.ZodType> =
    name === "json" ? JSON_EXTRAS : name === "toml" ? { scopes: strings() } : {};
  const documented =
    name === "json" ? JSON_DOCUMENTED : name === "toml" ? [...TOML_DOCUMENTED, ...TOML_POLICY_KEYS] : [];
  const shape = {
    ...shapeOf(SERVER_FIELDS, form),
    [k("oauth")]: oauthSchema(form).optional(),
    ...Object.fromEntries(Object.entries(extras).map(([key, s]) => [key, s.optional()])),
  };
  return table(shape, "a table of settings", { mode: "error", documented })
    .superRefine((raw, ctx) => {
      const fail = (field: string | undefined, message: string): void => {
        ctx.addIssue({ code: "custom", path: field === undefined ? [] : [field], message });
      };
      const has = (field: Field): boolean => raw[k(field)] !== undefined;
      const url = has("url") || raw["serverUrl"] !== undefined;
      if (has("command") === url)
        fail(undefined, `expected exactly one of "${k("command")}" (stdio) or "${k("url")}" (HTTP)`);
      if (has("startupTimeoutMs") && has("startupTimeoutSec")) {
        fail(k("startupTimeoutMs"), `expected either ${k("startupTimeoutSec")} or ${k("startupTimeoutMs")}, not both`);
      }
      const wrong = has("command")
        ? (["url", "bearerTokenEnvVar", "httpHeaders", "envHttpHeaders", "oauth"] as const).map(
            (f) => [f, `a stdio server (it has "${k("command")}")`] as const,
          )
        : (["args", "env", "envVars", "cwd"] as const).map(
            (f) => [f, `an HTTP server (it has "${k("url")}")`] as const,
          );
      for (const [f, server] of wrong) if (has(f)) fail(k(f), `expected no ${k(f)} for ${server}`);
    })
    .transform((raw): ParsedServer => {
      const out = renamed([...Object.keys(SERVER_FIELDS), "oauth"] as Field[], form, raw) as McpServerConfig;
      const entries = out.envVars as Array<string | { name: string }> | undefined;
      if (entries) out.envVars = entries.map((e) => (typeof e === "string" ? e : e.name));
      if (out.startupTimeoutMs !== undefined) {
        out.startupTimeoutSec = out.startupTimeoutMs / 1000;
        delete out.startupTimeoutMs;
      }
      if (raw["scopes"] !== undefined) out.oauth = { scopes: raw["scopes"] as string[], ...out.oauth };
      if (raw["headers"] !== undefined)
        out.httpHeaders = { ...(raw["headers"] as Record<string, string>), ...out.httpHeaders };
      if (raw["disabled"] !== undefined && out.enabled === undefined) out.enabled = !(raw["disabled"] as boolean);
      if (raw["serverUrl"] !== undefined && out.url === undefined) out.url = raw["serverUrl"] as string;
      return raw["envFile"] === undefined ? out : { ...out, envFile: raw["envFile"] as string };
    });
}
