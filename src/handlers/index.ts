import type { ToolFactory } from "../registry/factory.js";
import type { ToolsConfig } from "../registry/config.js";

/**
 * The built-in tools, in the order their specs are offered. Each factory reads the
 * `ToolsConfig` and returns the registrations it adds (none when its tool is switched off).
 */
export const builtinToolFactories: ReadonlyArray<ToolFactory<ToolsConfig>> = [];
