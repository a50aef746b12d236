import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ToolFactory, ToolSpecInput } from "../registry/index.js";
import { errorMessage } from "../util/index.js";
import { ConfigError } from "./configError.js";

/** Plugin tool factories, by the name `createToolRouter` knows them by. */
export interface LoadedPlugins {
  factories: Record<string, ToolFactory<unknown, unknown, ToolSpecInput>>;
  tools: Record<string, unknown>;
}

/**
 * `--plugin FILE`: ESM modules whose default export (or `register`) is a tool factory,
 * `(params, ctx) => [{ spec, handler, supportsParallel }]`, the plugin API `createToolRouter`
 * takes. Each is called once with `{}`. Paths resolve against the current directory.
 */
export async function loadPlugins(files: readonly string[]): Promise<LoadedPlugins> {
  const loaded: LoadedPlugins = { factories: {}, tools: {} };
  for (const [i, file] of files.entries()) {
    const resolved = path.resolve(file);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`--plugin ${file}: cannot load ${resolved}: ${errorMessage(err)}`);
    }
    const factory = typeof module["default"] === "function" ? module["default"] : module["register"];
    if (typeof factory !== "function") {
      throw new ConfigError(
        `--plugin ${file}: expected a default export (or "register") that is a tool factory (params, ctx) => registrations`,
      );
    }
    const name = `plugin${i}:${path.basename(file)}`;
    loaded.factories[name] = factory as ToolFactory<unknown, unknown, ToolSpecInput>;
    loaded.tools[name] = {};
  }
  return loaded;
}
