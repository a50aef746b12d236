/**
 * Scenario 4: the reference MCP server's `echo` (stdio) through the runtime versus the raw SDK
 * `client.callTool`; 10 parallel read-only calls versus 10 sequential ones; and this process's
 * CPU time per call with 100 in parallel (the client's cost, which wall time hides).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { FunctionCallItem, ToolCallRuntime } from "../../src/index.js";
import { everythingServer } from "../lib/everything.js";
import { lib } from "../lib/lib.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { cpuPerCall, meanOver, timeMs } from "../lib/stats.js";
import { assertAllSucceeded, functionCall, NO_LOOP_DETECTION } from "../lib/tools.js";

const SERVER = "everything";
const TOOL = `mcp__${SERVER}__echo`;
const FAN_OUT = 10;
const CPU_FAN_OUT = 100;

export const mcp: Scenario = {
  id: "mcp",
  title: "MCP: echo over stdio, runtime versus raw SDK client",
  async run(ctx) {
    const server = everythingServer();
    // Two processes of the same server: each client owns its transport.
    const manager = lib.McpConnectionManager.start({ [SERVER]: { ...server, startupTimeoutSec: 60 } });
    const client = new Client({ name: "bench-raw", version: "1.0.0" });
    try {
      await Promise.all([
        manager.waitForStartup(),
        client.connect(new StdioClientTransport({ ...server, stderr: "ignore" })),
      ]);
      const router = await lib.createToolRouter({ ...NO_LOOP_DETECTION }, { mcp: manager });
      if (!router.toolSupportsParallel(TOOL)) throw new Error(`${TOOL} is not parallel-safe (readOnlyHint missing?)`);
      const sequential = ctx.quick ? 50 : 200;
      const rounds = ctx.quick ? 5 : 20;
      let seq = 0;
      const item = (): FunctionCallItem => functionCall(`m${seq++}`, TOOL, { message: "hi" });
      const raw = async (): Promise<void> => {
        const result = await client.callTool({ name: "echo", arguments: { message: "hi" } });
        if (result.isError) throw new Error("raw echo failed");
      };
      const runtime = (): ToolCallRuntime => new lib.ToolCallRuntime(router, lib.createTurnContext());
      const oursSequential = async (count: number): Promise<void> => {
        const rt = runtime();
        for (let i = 0; i < count; i++) {
          rt.submit(item());
          assertAllSucceeded(await rt.drainOutcomes(), 1);
        }
      };
      const oursParallel = async (): Promise<void> => {
        const rt = runtime();
        for (let i = 0; i < FAN_OUT; i++) rt.submit(item());
        assertAllSucceeded(await rt.drainOutcomes(), FAN_OUT);
      };
      const perCall = (fn: () => Promise<void>) => async (): Promise<number> => (await timeMs(fn)) / sequential;
      const perBatch = (fn: () => Promise<void>) => (): Promise<number> => meanOver(fn, Infinity, rounds);

      const single = await measure(
        [
          {
            id: "rawSeq",
            label: "raw client.callTool, sequential",
            run: perCall(async () => {
              for (let i = 0; i < sequential; i++) await raw();
            }),
          },
          {
            id: "oursSeq",
            label: "runtime submit + drain, sequential",
            run: perCall(() => oursSequential(sequential)),
          },
        ],
        ctx.reps,
        "ms/call",
      );
      const batches = await measure(
        [
          {
            id: "rawPar",
            label: `raw client.callTool × ${FAN_OUT}, Promise.all`,
            run: perBatch(() => Promise.all(Array.from({ length: FAN_OUT }, raw)).then(() => undefined)),
          },
          { id: "oursPar", label: `runtime × ${FAN_OUT} parallel (readOnlyHint)`, run: perBatch(oursParallel) },
          { id: "oursSeq10", label: `runtime × ${FAN_OUT} sequential`, run: perBatch(() => oursSequential(FAN_OUT)) },
        ],
        ctx.reps,
        "ms/batch",
      );
      // Several batches per sample: CPU time is read in µs, and a batch takes a few ms.
      const cpuBatches = ctx.quick ? 2 : 5;
      const cpu = (fn: () => Promise<void>) => async (): Promise<number> =>
        cpuPerCall(async () => {
          for (let b = 0; b < cpuBatches; b++) await fn();
        }, cpuBatches * CPU_FAN_OUT);
      const cpuVariants = await measure(
        [
          {
            id: "rawCpu",
            label: `raw client.callTool × ${CPU_FAN_OUT}, Promise.all: CPU per call`,
            run: cpu(() => Promise.all(Array.from({ length: CPU_FAN_OUT }, raw)).then(() => undefined)),
          },
          {
            id: "oursCpu",
            label: `runtime × ${CPU_FAN_OUT} parallel (maxConcurrency ${CPU_FAN_OUT}): CPU per call`,
            run: cpu(async () => {
              const rt = new lib.ToolCallRuntime(router, lib.createTurnContext(), { maxConcurrency: CPU_FAN_OUT });
              for (let i = 0; i < CPU_FAN_OUT; i++) rt.submit(item());
              assertAllSucceeded(await rt.drainOutcomes(), CPU_FAN_OUT);
            }),
          },
        ],
        ctx.quick ? ctx.reps : { warmup: 5, reps: 30 },
        "µs",
      );
      const variants = [...single, ...batches, ...cpuVariants];
      return {
        status: "ok",
        note: "@modelcontextprotocol/server-everything over stdio, one process per client",
        variants,
        metrics: [
          metric(
            "seqRatio",
            "runtime / raw, sequential call",
            medianOf(variants, "oursSeq") / medianOf(variants, "rawSeq"),
            "×",
            {
              op: "<=",
              value: 1.1,
              description: "MCP call overhead within 1.10 of the raw SDK client",
            },
          ),
          metric(
            "parRatio",
            `runtime / raw, ${FAN_OUT} parallel`,
            medianOf(variants, "oursPar") / medianOf(variants, "rawPar"),
            "×",
            {
              op: "<=",
              value: 1.1,
              description: `MCP ${FAN_OUT}-call parallel batch within 1.10 of raw Promise.all`,
            },
          ),
          metric(
            "cpuRatio",
            `runtime / raw, CPU per call, ${CPU_FAN_OUT} parallel`,
            medianOf(variants, "oursCpu") / medianOf(variants, "rawCpu"),
            "×",
            {
              op: "<=",
              value: 1.2,
              description: `MCP client CPU per call, ${CPU_FAN_OUT} in parallel, within 1.2 of the raw SDK client`,
            },
          ),
          metric(
            "speedup",
            `runtime ${FAN_OUT} sequential / ${FAN_OUT} parallel`,
            medianOf(variants, "oursSeq10") / medianOf(variants, "oursPar"),
            "×",
          ),
        ],
      };
    } finally {
      await Promise.allSettled([manager.close(), client.close()]);
    }
  },
};
