/**
 * `toolcall.toml` and its JSON form as zod schemas (loaded only when a config file exists, so a
 * bare `toolcall exec` never parses zod). The sections are the same in both forms; the top
 * level differs: TOML has Codex's `mcp_servers` and `approval_policy` and skips Codex's own
 * keys, JSON has `mcpServers` / `servers` / `inputs` and skips Claude Desktop's. The MCP
 * server tables and `hooks` are checked by their own layers (src/mcp, src/policy).
 *
 * Unknown keys: in `[permissions]`, the sandbox sections, `[shell_environment_policy]` and
 * `[docker]` they are errors (a misspelt deny rule or root would silently widen what a call
 * may do); elsewhere they are warned and skipped, so a newer config still loads.
 */
import * as z from "zod/v4";
import type { QuotaConfig, QuotaLimit } from "../ledger/index.js";
import type { PermissionMode, PermissionPolicy } from "../policy/index.js";
import type { EnvironmentPolicy } from "../protocol/index.js";
import type { ToolsConfig } from "../toolset.js";
import { asTableInput, describeValue, unknownKeysMessage } from "../util/index.js";
import { SANDBOX_MODES, type DockerSettings } from "./sandboxSettings.js";

const expected = (what: string) => ({
  error: (iss: { input?: unknown }) => `expected ${what}, got ${describeValue(iss.input)}`,
});

function table<S extends z.ZodRawShape>(shape: S, mode: "error" | "warn", documented: readonly string[] = []) {
  const message = unknownKeysMessage({ mode, known: Object.keys(shape), documented });
  return z.preprocess(
    asTableInput,
    z.strictObject(shape, {
      error: (iss) => (iss.code === "unrecognized_keys" ? message : expected("table").error(iss)),
    }),
  );
}

const boolean = () => z.boolean(expected("boolean"));
const nonEmpty = () => z.string(expected("a non-empty string")).min(1, expected("a non-empty string"));
const integer = (min: number, max: number) => {
  const e = expected(`integer in ${min}..${max}`);
  return z.number(e).int(e).min(min, e).max(max, e);
};
const oneOf = <const T extends readonly [string, ...string[]]>(choices: T) =>
  z.enum(choices, expected(`one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`));
const strings = () => z.array(z.string(expected("string")), expected("array of strings"));
const nonEmptyStrings = () =>
  z.array(
    z.string(expected("non-empty string")).min(1, expected("non-empty string")),
    expected("array of non-empty strings"),
  );
/** A choice of strings or `false` (`shell = false` switches the tool off). */
const choiceOrFalse = <const T extends readonly [string, ...string[]]>(choices: T) => {
  const e = expected(`one of ${[...choices.map((c) => JSON.stringify(c)), "false"].join(", ")}`);
  return z.union([z.enum(choices), z.literal(false)], e);
};

const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

/** `[tools]`; `skills` and `spill_dir` are still relative to the config file. */
const TOOLS = table(
  {
    preset: oneOf(["codex"]).optional(),
    shell: choiceOrFalse(["shell", "shell_command", "unified_exec"]).optional(),
    apply_patch: choiceOrFalse(["freeform", "function"]).optional(),
    edit_file: boolean().optional(),
    write_file: boolean().optional(),
    read_file: boolean().optional(),
    list_dir: boolean().optional(),
    grep_files: boolean().optional(),
    glob: boolean().optional(),
    view_image: boolean().optional(),
    update_plan: boolean().optional(),
    test_sync_tool: boolean().optional(),
    request_user_input: boolean().optional(),
    user_input_timeout_ms: integer(1, MAX_TIMEOUT_MS).optional(),
    image_detail: oneOf(["auto", "low", "high", "original"]).optional(),
    shell_non_safe_exclusive: boolean().optional(),
    exec_timeout_ms: integer(1, MAX_TIMEOUT_MS).optional(),
    max_exec_sessions: integer(1, 1024).optional(),
    skills: nonEmptyStrings().optional(),
    spill_dir: nonEmpty().optional(),
    defer_tools: boolean().optional(),
    repair: boolean().optional(),
    loop_limit: integer(0, 1_000_000).optional(),
    groups: z
      .record(
        z.string(),
        table(
          {
            tools: z.array(
              z.string(expected("non-empty string")).min(1, expected("non-empty string")),
              expected("a list of tool names"),
            ),
            description: nonEmpty().optional(),
            instructions: nonEmpty().optional(),
          },
          "warn",
        ),
        expected("table"),
      )
      .optional(),
  },
  "warn",
  ["web_search"], // Codex's hosted web search is not ours to run
).transform((t): ToolsConfig => {
  const out: ToolsConfig = {};
  const set = <K extends keyof ToolsConfig>(key: K, value: ToolsConfig[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  set("preset", t.preset);
  set("shell", t.shell);
  set("applyPatch", t.apply_patch);
  set("editFile", t.edit_file);
  set("writeFile", t.write_file);
  set("readFile", t.read_file);
  set("listDir", t.list_dir);
  set("grepFiles", t.grep_files);
  set("glob", t.glob);
  set("viewImage", t.view_image);
  set("updatePlan", t.update_plan);
  set("testSyncTool", t.test_sync_tool);
  set("requestUserInput", t.request_user_input);
  set("shellNonSafeExclusive", t.shell_non_safe_exclusive);
  set("deferTools", t.defer_tools);
  set("repair", t.repair);
  set("loopLimit", t.loop_limit);
  set("execTimeoutMs", t.exec_timeout_ms);
  set("userInputTimeoutMs", t.user_input_timeout_ms);
  set("imageDetail", t.image_detail);
  set("maxExecSessions", t.max_exec_sessions);
  set("skills", t.skills);
  set("spillDir", t.spill_dir);
  if (t.groups) {
    out.groups = Object.fromEntries(
      Object.entries(t.groups).map(([name, g]) => [
        name,
        {
          tools: g.tools,
          ...(g.description !== undefined && { description: g.description }),
          ...(g.instructions !== undefined && { instructions: g.instructions }),
        },
      ]),
    );
  }
  return out;
});

const RUNTIME = table(
  {
    max_concurrency: integer(1, 256).optional(),
    truncation: table(
      {
        mode: oneOf(["bytes", "tokens"]).default("bytes"),
        limit: integer(0, Number.MAX_SAFE_INTEGER),
      },
      "warn",
    ).optional(),
    exec_timeout_ms: integer(1, MAX_TIMEOUT_MS).optional(),
  },
  "warn",
);

/**
 * `[quotas]` (DESIGN section 18): tool name or `*` pattern -> `{ per_turn, per_session }`. A
 * misspelt limit would silently allow every call: unknown keys are errors.
 */
const QUOTAS = z
  .record(
    z.string().min(1, expected("a non-empty tool name or pattern")),
    table(
      {
        per_turn: integer(0, Number.MAX_SAFE_INTEGER).optional(),
        per_session: integer(0, Number.MAX_SAFE_INTEGER).optional(),
      },
      "error",
    ),
    expected("table"),
  )
  .transform((q): QuotaConfig =>
    Object.fromEntries(
      Object.entries(q).map(([pattern, l]): [string, QuotaLimit] => [
        pattern,
        {
          ...(l.per_turn !== undefined && { perTurn: l.per_turn }),
          ...(l.per_session !== undefined && { perSession: l.per_session }),
        },
      ]),
    ),
  );

const PERMISSION_MODES = [
  "default",
  "accept_edits",
  "read_only",
  "bypass",
] as const satisfies readonly PermissionMode[];

/** Types only: the rules' syntax is checked by the `PermissionEngine` built from them. */
const PERMISSIONS = table(
  {
    mode: oneOf(PERMISSION_MODES).optional(),
    allow: strings().optional(),
    ask: strings().optional(),
    deny: strings().optional(),
    approval_timeout_ms: integer(1, MAX_TIMEOUT_MS).optional(),
    risk_field: boolean().optional(),
    ask_at_risk: oneOf(["medium", "high"]).optional(),
  },
  "error",
).transform((p): PermissionPolicy => {
  const out: PermissionPolicy = {};
  if (p.mode !== undefined) out.mode = p.mode;
  if (p.allow !== undefined) out.allow = p.allow;
  if (p.ask !== undefined) out.ask = p.ask;
  if (p.deny !== undefined) out.deny = p.deny;
  if (p.approval_timeout_ms !== undefined) out.approvalTimeoutMs = p.approval_timeout_ms;
  if (p.risk_field !== undefined) out.riskField = p.risk_field;
  if (p.ask_at_risk !== undefined) out.askAtRisk = p.ask_at_risk;
  return out;
});

const SANDBOX = table(
  {
    mode: oneOf(SANDBOX_MODES).optional(),
    writable_roots: nonEmptyStrings().optional(),
    // The allowlist's entries are checked by the sandbox layer (validateDomainPatterns).
    network_access: z
      .union([z.boolean(), z.array(z.unknown())], expected("true, false or a list of domains"))
      .optional(),
    readable_roots: nonEmptyStrings().optional(),
    allow_unix_sockets: nonEmptyStrings().optional(),
  },
  "error",
);

/** Codex's `false` defaults change nothing here; `true` asks for what this sandbox cannot do. */
const notSupported = () =>
  z.literal(false, expected("false (leaving /tmp or $TMPDIR out of the writable roots is not supported)"));
const SANDBOX_WORKSPACE_WRITE = table(
  {
    writable_roots: nonEmptyStrings().optional(),
    network_access: boolean().optional(),
    exclude_tmpdir_env_var: notSupported().optional(),
    exclude_slash_tmp: notSupported().optional(),
  },
  "error",
);

/** What execve could not pass on: the command would otherwise fail to start, far from the config. */
const validName = (name: string): boolean => name !== "" && !name.includes("=") && !name.includes("\0");
const SHELL_ENVIRONMENT_POLICY = table(
  {
    inherit: oneOf(["all", "core", "none"]).optional(),
    ignore_default_excludes: boolean().optional(),
    exclude: nonEmptyStrings().optional(),
    include_only: nonEmptyStrings().optional(),
    set: z.record(z.string(), z.string(expected("string")), expected("table")).optional(),
  },
  "error",
)
  .superRefine((p, ctx) => {
    for (const [name, value] of Object.entries(p.set ?? {})) {
      if (!validName(name)) {
        ctx.addIssue({ code: "custom", path: ["set"], message: `invalid variable name ${JSON.stringify(name)}` });
      } else if (value.includes("\0")) {
        ctx.addIssue({ code: "custom", path: ["set", name], message: "a value must not contain NUL" });
      }
    }
  })
  .transform((p): EnvironmentPolicy => {
    const out: EnvironmentPolicy = {};
    if (p.inherit !== undefined) out.inherit = p.inherit;
    if (p.ignore_default_excludes !== undefined) out.ignoreDefaultExcludes = p.ignore_default_excludes;
    if (p.exclude !== undefined) out.exclude = p.exclude;
    if (p.include_only !== undefined) out.includeOnly = p.include_only;
    if (p.set !== undefined) out.set = p.set;
    return out;
  });

const DOCKER = table(
  {
    image: nonEmpty().optional(),
    network: z.union([z.boolean(), z.string().min(1)], expected("boolean or a non-empty string")).optional(),
    user: nonEmpty().optional(),
    host: nonEmpty().optional(),
    workspace: z.enum(["bind", "volume"], expected('"bind" or "volume"')).optional(),
    tls_verify: boolean().optional(),
    cert_path: nonEmpty().optional(),
  },
  "error",
).transform((d): DockerSettings => {
  const out: DockerSettings = {};
  if (d.image !== undefined) out.image = d.image;
  if (d.network !== undefined) out.network = d.network;
  if (d.user !== undefined) out.user = d.user;
  if (d.host !== undefined) out.host = d.host;
  if (d.workspace !== undefined) out.workspace = d.workspace;
  if (d.tls_verify !== undefined) out.tlsVerify = d.tls_verify;
  if (d.cert_path !== undefined) out.certPath = d.cert_path;
  return out;
});

const SECTIONS = {
  tools: TOOLS.optional(),
  runtime: RUNTIME.optional(),
  quotas: QUOTAS.optional(),
  permissions: PERMISSIONS.optional(),
  // Checked by the policy layer (validateHookConfig).
  hooks: z.unknown().optional(),
};
const SANDBOX_SECTIONS = {
  sandbox: SANDBOX.optional(),
  sandbox_mode: oneOf(SANDBOX_MODES).optional(),
  sandbox_workspace_write: SANDBOX_WORKSPACE_WRITE.optional(),
  shell_environment_policy: SHELL_ENVIRONMENT_POLICY.optional(),
  docker: DOCKER.optional(),
};

/**
 * Top-level keys of a whole `~/.codex/config.toml` (Codex's docs/config.md) that are Codex's
 * own business (model, UI, telemetry): skipped, so the file loads as it is.
 */
const CODEX_TOP_LEVEL_KEYS = [
  "model",
  "model_provider",
  "model_providers",
  "model_context_window",
  "model_max_output_tokens",
  "model_auto_compact_token_limit",
  "model_reasoning_effort",
  "model_reasoning_summary",
  "model_reasoning_summary_format",
  "model_verbosity",
  "model_supports_reasoning_summaries",
  "review_model",
  "oss_provider",
  "tool_output_token_limit",
  "notify",
  "instructions",
  "experimental_instructions_file",
  "experimental_use_exec_command_tool",
  "experimental_use_rmcp_client",
  "features",
  "ghost_snapshot",
  "project_doc_max_bytes",
  "profile",
  "profiles",
  "history",
  "file_opener",
  "tui",
  "hide_agent_reasoning",
  "show_raw_agent_reasoning",
  "check_for_update_on_startup",
  "chatgpt_base_url",
  "projects",
  "otel",
  "forced_login_method",
  "forced_chatgpt_workspace_id",
  "cli_auth_credentials_store",
  "mcp_oauth_credentials_store",
  "disable_response_storage",
  "windows_wsl_setup_acknowledged",
];

/** Top-level keys of Claude Desktop's `claude_desktop_config.json` besides `mcpServers`, and a JSON schema reference. */
const CLAUDE_TOP_LEVEL_KEYS = ["globalShortcut", "preferences", "$schema"];

/** `toolcall.toml` (or a Codex `config.toml`): servers and approvals are read by src/mcp and codexApprovals.ts. */
export const TOML_CONFIG = table(
  { ...SECTIONS, mcp_servers: z.unknown().optional(), approval_policy: z.unknown().optional(), ...SANDBOX_SECTIONS },
  "warn",
  CODEX_TOP_LEVEL_KEYS,
);
/** The JSON form (also the sidecar's `initialize.config`): servers are read by src/mcp. */
export const JSON_CONFIG = table(
  {
    ...SECTIONS,
    mcpServers: z.unknown().optional(),
    servers: z.unknown().optional(),
    inputs: z.unknown().optional(),
    ...SANDBOX_SECTIONS,
  },
  "warn",
  CLAUDE_TOP_LEVEL_KEYS,
);

export type ConfigDocument = z.output<typeof TOML_CONFIG> | z.output<typeof JSON_CONFIG>;
