/**
 * `npm run build && npx tsx bench/mcpSequential.ts --base OLD/dist [--new DIST] [--reps N] [--calls N] [--warmup N]`:
 * sequential `echo` calls to the reference MCP server over stdio, one at a time, through the
 * runtime (`submit` + `drainOutcomes` per call, as the `mcp` scenario) of the base build and of
 * this one, beside the raw SDK `client.callTool`; each client has a server process of its own.
 * and beside this build's client called directly (`McpConnectionManager.callTool`, no runtime):
 * what the MCP client costs apart from the runtime's per-call path. Wall and this process's CPU
 * (`process.cpuUsage`) per call, interleaved, medians [p25–p75]; the ratios to the raw client
 * are the (target <= 1.1x). `--warmup N` (default 2) samples of each are dropped first:
 * the runtime's path is longer than the client's, so V8 takes a few thousand calls to finish
 * optimizing it (each sample is `--calls` calls); a larger N shows the steady state.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Build, cpuRecorder, flag, interleaved, loadBuilds, machineLine } from "./lib/builds.js";
import { everythingServer } from "./lib/everything.js";
import { NO_LOOP_DETECTION } from "./lib/tools.js";

const reps = Number(flag("reps", "9"));
const CALLS = Number(flag("calls", "200"));
const WARMUP = Number(flag("warmup", "2"));
const SERVER = "everything";
const TOOL = `mcp__${SERVER}__echo`;
const server = everythingServer();
const { base, next } = await loadBuilds();
const cpu = cpuRecorder(CALLS);

interface Contender {
  run: () => Promise<void>;
  direct: () => Promise<void>;
  close: () => Promise<void>;
}

async function ours(lib: Build): Promise<Contender> {
  const manager = lib.McpConnectionManager.start({ [SERVER]: { ...server, startupTimeoutSec: 60 } });
  await manager.waitForStartup();
  const router = await lib.createToolRouter({ ...NO_LOOP_DETECTION }, { mcp: manager });
  let n = 0;
  return {
    run: async () => {
      const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
      for (let i = 0; i < CALLS; i++) {
        runtime.submit({ type: "function_call", call_id: `m${++n}`, name: TOOL, arguments: '{"message":"hi"}' });
        const [outcome] = await runtime.drainOutcomes();
        if (outcome?.success !== true) throw new Error(`echo failed: ${JSON.stringify(outcome).slice(0, 200)}`);
      }
    },
    direct: async () => {
      for (let i = 0; i < CALLS; i++) {
        const result = await manager.callTool(SERVER, "echo", { message: "hi" });
        if (result.isError) throw new Error("echo failed");
      }
    },
    close: async () => {
      await router.close();
      await manager.close();
    },
  };
}

const client = new Client({ name: "bench-raw", version: "1.0.0" });
await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
const contenders = [await ours(base), await ours(next)];
try {
  process.stdout.write(
    `${machineLine()}\nMCP echo, sequential, ${CALLS} calls a sample, ${reps} reps after ${WARMUP} warm-up\n`,
  );
  const rows = await interleaved(
    [
      cpu.contender("base", (contenders[0] as Contender).run),
      cpu.contender("new", (contenders[1] as Contender).run),
      cpu.contender("new, client alone (no runtime)", (contenders[1] as Contender).direct),
      cpu.contender("raw client.callTool", async () => {
        for (let i = 0; i < CALLS; i++) {
          const result = await client.callTool({ name: "echo", arguments: { message: "hi" } });
          if (result.isError) throw new Error("raw echo failed");
        }
      }),
    ],
    reps,
    WARMUP,
  );
  const raw = rows.get("raw client.callTool")?.median ?? NaN;
  const rawCpu = cpu.summary("raw client.callTool", reps).median;
  for (const [id, row] of rows) {
    const c = cpu.summary(id, reps);
    process.stdout.write(
      `${id}: wall ${((row.median / CALLS) * 1000).toFixed(0)} µs/call (${(row.median / raw).toFixed(2)}x), ` +
        `CPU ${c.median.toFixed(0)} µs/call [${c.p25.toFixed(0)}–${c.p75.toFixed(0)}] (${(c.median / rawCpu).toFixed(2)}x)\n`,
    );
  }
  process.stdout.write(`${machineLine()}\n`);
} finally {
  await Promise.allSettled([...contenders.map((c) => c.close()), client.close()]);
}
