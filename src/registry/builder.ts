import type { Logger } from "pino";
import { specName, type ConfiguredToolSpec, type ToolSpec } from "../protocol/index.js";
import { SchemaValidatorCache } from "./arguments.js";
import type { ToolHandler } from "./handler.js";
import type { ToolMiddleware } from "./middleware.js";
import { ToolRegistry, type MiddlewareEntry, type RegisteredTool } from "./registry.js";
import { resolveToolSpec, type ToolSpecInput } from "./schemaSpec.js";

export interface PushSpecOptions {
  /** Calls may run in parallel with other parallel calls. Default false. */
  parallel?: boolean;
  /** This tool's deadline in ms, instead of the runtime's `toolTimeoutMs`. */
  timeoutMs?: number;
}

/** Collects specs and handlers; `build()` checks them and compiles argument validators once. */
export class ToolRegistryBuilder<Ctx = unknown> {
  private readonly specs: ConfiguredToolSpec[] = [];
  private readonly handlers: Array<[string, ToolHandler<Ctx>]> = [];
  private readonly aliases: Array<[string, string]> = [];
  private readonly timeouts = new Map<string, number>();
  private readonly middleware: MiddlewareEntry<Ctx>[] = [];

  constructor(private readonly opts: { logger?: Logger; validators?: SchemaValidatorCache } = {}) {}

  /**
   * Adds a spec; its calls run exclusively unless `opts.parallel`. A function spec's
   * `parameters` may be a zod (or other Standard) schema: it is converted to JSON Schema here.
   */
  pushSpec(input: ToolSpecInput, opts: PushSpecOptions = {}): this {
    const spec = resolveToolSpec(input);
    const { timeoutMs } = opts;
    if (timeoutMs !== undefined) {
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
        throw new RangeError(`timeoutMs of ${specName(spec)} must be a positive number, got ${String(timeoutMs)}`);
      }
      this.timeouts.set(specName(spec), timeoutMs);
    }
    return this.pushSpecWithParallelSupport(spec, opts.parallel === true);
  }

  /** Wraps handlers in `mw` (the first `use` is the outermost); `opts.tools`: exact names, default every tool. */
  use(mw: ToolMiddleware<Ctx>, opts: { tools?: string[] } = {}): this {
    if (typeof mw !== "function") throw new TypeError("middleware must be a function");
    this.middleware.push({ mw, tools: opts.tools ? new Set(opts.tools) : undefined });
    return this;
  }

  pushSpecWithParallelSupport(spec: ToolSpec, supportsParallel: boolean): this {
    this.specs.push({ spec, supportsParallelToolCalls: supportsParallel });
    return this;
  }

  registerHandler(name: string, handler: ToolHandler<Ctx>): this {
    this.handlers.push([name, handler]);
    return this;
  }

  /** Another name for a registered tool: same handler, validator and parallel flag, no spec. */
  registerAlias(alias: string, target: string): this {
    this.aliases.push([alias, target]);
    return this;
  }

  /** Throws on a duplicate spec or handler name, naming the tool. */
  build(): { specs: ConfiguredToolSpec[]; registry: ToolRegistry<Ctx> } {
    const specByName = new Map<string, ConfiguredToolSpec>();
    for (const configured of this.specs) {
      const name = specName(configured.spec);
      if (specByName.has(name)) throw new Error(`duplicate tool spec: ${name}`);
      specByName.set(name, configured);
    }
    const validators = this.opts.validators ?? new SchemaValidatorCache(this.opts.logger);
    const tools = new Map<string, RegisteredTool<Ctx>>();
    const registry = new ToolRegistry(tools, [...this.middleware]);
    for (const [name, handler] of this.handlers) {
      if (tools.has(name)) throw new Error(`duplicate tool handler: ${name}`);
      const configured = specByName.get(name);
      const spec = configured?.spec;
      const validate = spec?.type === "function" ? validators.validatorFor(spec.parameters, name) : null;
      tools.set(name, {
        handler,
        validate,
        supportsParallel: configured?.supportsParallelToolCalls ?? false,
        timeoutMs: this.timeouts.get(name),
        middleware: registry.middlewareFor(name),
      });
    }
    for (const [alias, target] of this.aliases) {
      const tool = tools.get(target);
      if (!tool) throw new Error(`alias ${alias} names an unregistered tool: ${target}`);
      if (tools.has(alias)) throw new Error(`duplicate tool handler: ${alias}`);
      tools.set(alias, tool);
    }
    return { specs: [...this.specs], registry };
  }
}
