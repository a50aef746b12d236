/**
 * The composition root: which tools a router offers. The router only routes; building one from
 * a config happens here, with plugin factories passed in (never held in a process-wide table).
 */
import path from "node:path";
import type { Logger } from "pino";
import { specName } from "./protocol/index.js";
import {
  FileReadLedger,
  ToolActivation,
  ToolRegistryBuilder,
  resolveToolSpec,
  type DynamicToolSpec,
  type McpToolSource,
  type ToolFactory,
  type ToolFactoryContext,
  type ToolRegistration,
  type ToolSpecInput,
} from "./registry/index.js";
import { ToolRouter } from "./router/index.js";
import type { QuotaConfig } from "./ledger/index.js";
import { SpillStore } from "./turn/index.js";
import { applyPatchToolFactory, type ApplyPatchToolConfig } from "./handlers/apply_patch/index.js";
import { dynamicToolsFactory, type DynamicToolsConfig } from "./handlers/dynamic/index.js";
import { editFileToolFactory, type EditFileToolConfig } from "./handlers/edit_file/index.js";
import { globToolFactory, type GlobToolConfig } from "./handlers/glob/index.js";
import { grepFilesToolFactory, type GrepFilesToolConfig } from "./handlers/grep_files/index.js";
import { listDirToolFactory, type ListDirToolConfig } from "./handlers/list_dir/index.js";
import { mcpResourceToolsFactory } from "./handlers/mcp_resources/index.js";
import { readFileToolFactory, type ReadFileToolConfig } from "./handlers/read_file/index.js";
import { requestUserInputToolFactory, type RequestUserInputToolConfig } from "./handlers/request_user_input/index.js";
import { shellToolFactory, type ShellToolConfig } from "./handlers/shell/index.js";
import { skillToolFactory, type SkillToolConfig } from "./handlers/skill/index.js";
import { resetToolsFactory, type ResetToolsConfig } from "./handlers/reset_tools/index.js";
import { toolSearchFactory, type ToolSearchConfig } from "./handlers/tool_search/index.js";
import { unifiedExecToolFactory, type UnifiedExecToolConfig } from "./handlers/exec_command/index.js";
import { testSyncToolFactory, type TestSyncToolConfig } from "./handlers/test_sync_tool/index.js";
import { updatePlanToolFactory, type UpdatePlanToolConfig } from "./handlers/update_plan/index.js";
import { viewImageToolFactory, type ViewImageToolConfig } from "./handlers/view_image/index.js";
import { writeFileToolFactory, type WriteFileToolConfig } from "./handlers/write_file/index.js";

/** Which built-in tools `createToolRouter` adds: each built-in reads its own keys. */
export interface ToolsConfig
  extends
    ShellToolConfig,
    SkillToolConfig,
    ResetToolsConfig,
    ToolSearchConfig,
    UnifiedExecToolConfig,
    RequestUserInputToolConfig,
    ApplyPatchToolConfig,
    EditFileToolConfig,
    WriteFileToolConfig,
    ReadFileToolConfig,
    ListDirToolConfig,
    GrepFilesToolConfig,
    GlobToolConfig,
    ViewImageToolConfig,
    UpdatePlanToolConfig,
    TestSyncToolConfig,
    DynamicToolsConfig {
  /**
   * A named tool set the other keys start from (keys given explicitly win). `"codex"`: the
   * tools Codex 0.171 offers by default — `exec_command` + `write_stdin`, `apply_patch`
   * (freeform), `update_plan`, `view_image` (images at `detail: "original"`) and
   * `request_user_input` — and nothing else.
   */
  preset?: "codex";
  /**
   * Where outputs the model sees cut are kept whole for the session, the truncation marker
   * naming the file (read_file pages it); removed by `router.close()`. Default: none.
   */
  spillDir?: string;
  /** Repair malformed function arguments where the meaning is certain (DESIGN section 18); default true. */
  repair?: boolean;
  /** The same call with the same result this many times in a row is answered, not run; 0: off; default 5. */
  loopLimit?: number;
  /** Tool name or `*` pattern -> `{ perTurn, perSession }`: how often its calls may run. */
  quotas?: QuotaConfig;
}

/** What each preset sets (DESIGN section 9). */
const PRESETS: Record<NonNullable<ToolsConfig["preset"]>, ToolsConfig> = {
  codex: {
    shell: "unified_exec",
    applyPatch: "freeform",
    updatePlan: true,
    viewImage: true,
    imageDetail: "original",
    requestUserInput: true,
    readFile: false,
    listDir: false,
    grepFiles: false,
    editFile: false,
    writeFile: false,
    glob: false,
  },
};

/** `config` over its preset's keys (an explicit `undefined` does not unset a preset key). */
function withPreset(config: ToolsConfig): ToolsConfig {
  if (config.preset === undefined) return config;
  if (!Object.hasOwn(PRESETS, config.preset)) {
    throw new TypeError(`ToolsConfig.preset must be "codex", got ${JSON.stringify(config.preset)}`);
  }
  const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
  return { ...PRESETS[config.preset], ...given };
}

/** The built-in tools, in the order their specs are offered. */
const BUILTIN_FACTORIES: ReadonlyArray<ToolFactory<ToolsConfig>> = [
  shellToolFactory,
  unifiedExecToolFactory,
  requestUserInputToolFactory,
  applyPatchToolFactory,
  editFileToolFactory,
  writeFileToolFactory,
  readFileToolFactory,
  listDirToolFactory,
  grepFilesToolFactory,
  globToolFactory,
  viewImageToolFactory,
  updatePlanToolFactory,
  skillToolFactory,
  resetToolsFactory,
  toolSearchFactory,
  mcpResourceToolsFactory,
  dynamicToolsFactory,
  testSyncToolFactory,
];

export interface CreateToolRouterOptions<Ctx = unknown> {
  mcp?: McpToolSource;
  dynamicTools?: DynamicToolSpec[];
  /** Plugin tool factories by name; `tools` says which to use with what parameters. */
  factories?: Record<string, ToolFactory<never, Ctx, ToolSpecInput>>;
  /** Plugin tools to add: factory name -> its parameters. */
  tools?: Record<string, unknown>;
  logger?: Logger;
}

/**
 * A router with the built-in tools `config` selects, the MCP tools of `opts.mcp`, the
 * embedder's dynamic tools, and plugin tools from `opts.factories` (`opts.tools`: factory
 * name -> its parameters). Throws on an unknown factory name or a duplicate tool name.
 */
export async function createToolRouter<Ctx = unknown>(
  toolsConfig: ToolsConfig = {},
  opts: CreateToolRouterOptions<Ctx> = {},
): Promise<ToolRouter<Ctx>> {
  const config = withPreset(toolsConfig);
  // The session's: every tool of this router, and only of this router, shares what was read.
  const ctx: ToolFactoryContext = { dynamicTools: opts.dynamicTools ?? [], fileReads: new FileReadLedger() };
  if (opts.mcp) ctx.mcp = opts.mcp;
  const builder = new ToolRegistryBuilder<Ctx>(opts.logger ? { logger: opts.logger } : {});
  const closers = new Set<() => Promise<void>>();
  if ((config.groups && Object.keys(config.groups).length > 0) || config.deferTools === true) {
    ctx.activation = new ToolActivation(config.groups ?? {}, config.deferTools === true);
  }
  if (config.spillDir !== undefined) {
    if (typeof config.spillDir !== "string" || config.spillDir === "")
      throw new TypeError(`ToolsConfig.spillDir must be a non-empty path, got ${JSON.stringify(config.spillDir)}`);
    const spill = new SpillStore(path.resolve(config.spillDir));
    ctx.spill = spill;
    closers.add(() => spill.close());
  }
  const add = (registrations: ToolRegistration<Ctx, ToolSpecInput>[]): void => {
    for (const { spec: input, handler, supportsParallel, aliases, close } of registrations) {
      const spec = resolveToolSpec(input);
      builder.pushSpecWithParallelSupport(spec, supportsParallel).registerHandler(specName(spec), handler);
      for (const alias of aliases ?? []) builder.registerAlias(alias, specName(spec));
      if (close) closers.add(close);
    }
  };
  // Built-in handlers ignore the embedder's context type: they never read it.
  for (const factory of BUILTIN_FACTORIES) add(factory(config, ctx));
  for (const [name, params] of Object.entries(opts.tools ?? {})) {
    const factory = Object.hasOwn(opts.factories ?? {}, name) ? opts.factories?.[name] : undefined;
    if (!factory) throw new Error(`unknown tool factory: ${name}`);
    add((factory as ToolFactory<unknown, Ctx, ToolSpecInput>)(params, ctx));
  }
  const { specs, registry } = builder.build();
  return new ToolRouter<Ctx>(registry, specs, opts.mcp, {
    ...(opts.logger && { logger: opts.logger }),
    closers: [...closers],
    ...(ctx.spill && { spill: ctx.spill }),
    ...(ctx.activation && { activation: ctx.activation }),
    ...(config.repair !== undefined && { repair: config.repair }),
    ...(config.loopLimit !== undefined && { loopLimit: config.loopLimit }),
    ...(config.quotas !== undefined && { quotas: config.quotas }),
  });
}
