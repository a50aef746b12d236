import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  createTurnContext,
  ToolCallRuntime,
  createToolRouter,
  type McpConnectionManager,
  type McpServerConfig,
  type ToolEvent,
  type ToolsConfig,
} from "../../src/index.js";
import { WAIT_CEILING_MS } from "../support/setup.js";

export const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-server.ts", import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

export function fixtureServer(profile = "default", extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: ["--import", "tsx", FIXTURE, "stdio", profile], ...extra };
}

/** Only the MCP tools: other built-ins stay out of these tests. */
export const MCP_ONLY: ToolsConfig = {
  shell: false,
  applyPatch: false,
  readFile: false,
  listDir: false,
  grepFiles: false,
  viewImage: false,
  updatePlan: false,
};

export async function runtimeFor(manager: McpConnectionManager, events: ToolEvent[] = []) {
  const router = await createToolRouter(MCP_ONLY, { mcp: manager });
  const runtime = new ToolCallRuntime(
    router,
    createTurnContext({ onEvent: (e) => events.push(e), truncationPolicy: { mode: "bytes", limit: 2_000 } }),
  );
  return { router, runtime, events };
}

export const call = (callId: string, name: string, args: unknown = {}) => ({
  type: "function_call" as const,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

const HAS_PROCFS = existsSync("/proc/self/stat");

/**
 * A killed process whose parent died stays a zombie until init reaps it, which some container
 * inits do only every second or two; a zombie runs nothing, so it counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!HAS_PROCFS) return true; // macOS: the signal probe is all there is
  try {
    // "pid (comm) state ...": comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false; // gone between the probe and the read
  }
}

/** Polls `check` until it holds (condition wait, not a timing assert). */
/** Polls `check` until it holds; the ceiling (test/support/setup.ts's) only stops a hung test. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + WAIT_CEILING_MS;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}
