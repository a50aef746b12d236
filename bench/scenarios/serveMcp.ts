/**
 * Scenario: `toolcall serve-mcp` as an MCP proxy. A client sends 100 parallel `tools/call`s
 * (the reference server's read-only `echo`) through serve-mcp to the server, against the same
 * two hops made of the raw SDK (bench/lib/rawProxy.ts), and at several `max_concurrency`
 * settings, to pick serve-mcp's default.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { metric } from "../lib/report.js";
import { everythingServer } from "../lib/everything.js";
import { measure, medianOf, skipped, type Scenario } from "../lib/scenario.js";
import { meanOver } from "../lib/stats.js";

const FAN_OUT = 100;
const LIB = path.dirname(fileURLToPath(import.meta.url));

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: "bench-serve-mcp", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: "ignore" }));
  return client;
}

/** 100 parallel echo calls; throws unless every one came back with its text. */
async function fanOut(client: Client, tool: string): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: FAN_OUT }, (_, i) => client.callTool({ name: tool, arguments: { message: `m${i}` } })),
  );
  results.forEach((r, i) => {
    const text = (r.content as Array<{ text?: string }>)[0]?.text ?? "";
    if (r.isError || !text.includes(`m${i}`)) throw new Error(`${tool} call ${i} failed: ${text.slice(0, 200)}`);
  });
}

export const serveMcp: Scenario = {
  id: "serveMcp",
  title: `serve-mcp proxy: ${FAN_OUT} parallel calls through toolcall versus two raw SDK hops`,
  async run(ctx) {
    const built = process.env["TOOLCALL_BENCH_LIB"];
    if (!built) return skipped("needs the tsc build (run through bench/run.ts)");
    const main = path.join(path.dirname(built), "cli", "main.js");
    const upstream = everythingServer();
    const dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-bench-serve-"));
    const clients: Client[] = [];
    try {
      const settings = ctx.quick ? [16, 64] : [16, 32, 64, 128];
      const proxies = new Map<number, Client>();
      for (const max of settings) {
        const config = path.join(dir, `c${max}.toml`);
        await writeFile(
          config,
          `[runtime]\nmax_concurrency = ${max}\n[mcp_servers.everything]\ncommand = ${JSON.stringify(upstream.command)}\nargs = ${JSON.stringify(upstream.args)}\nstartup_timeout_sec = 60\n`,
        );
        const client = await connect(process.execPath, [main, "serve-mcp", "--config", config], dir);
        clients.push(client);
        proxies.set(max, client);
      }
      const raw = await connect(
        process.execPath,
        [...process.execArgv, path.join(LIB, "..", "lib", "rawProxy.ts"), upstream.command, ...upstream.args],
        dir,
      );
      clients.push(raw);
      const rounds = ctx.quick ? 3 : 10;
      const perBatch = (fn: () => Promise<void>) => (): Promise<number> => meanOver(fn, Infinity, rounds);
      const variants = await measure(
        [
          {
            id: "raw",
            label: `raw SDK proxy (two hops) × ${FAN_OUT}, Promise.all`,
            run: perBatch(() => fanOut(raw, "echo")),
          },
          ...settings.map((max) => ({
            id: `ours${max}`,
            label: `toolcall serve-mcp × ${FAN_OUT}, max_concurrency ${max}`,
            run: perBatch(() => fanOut(proxies.get(max) as Client, "mcp__everything__echo")),
          })),
        ],
        ctx.reps,
        "ms/batch",
      );
      const rawMs = medianOf(variants, "raw");
      return {
        status: "ok",
        note: `@modelcontextprotocol/server-everything upstream; each proxy a process of its own (serve-mcp from the tsc build); ${rounds} batches per sample`,
        variants,
        metrics: settings.map((max) =>
          metric(
            `ratio${max}`,
            `serve-mcp (max_concurrency ${max}) / two raw hops`,
            medianOf(variants, `ours${max}`) / rawMs,
            "×",
            max === DEFAULT_SERVE_CONCURRENCY
              ? {
                  op: "<=",
                  value: 1.2,
                  description: "serve-mcp proxy within 1.2 of two raw SDK hops (the default setting)",
                }
              : undefined,
          ),
        ),
      };
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** serve-mcp's default `max_concurrency` (src/server/mcpServer.ts). */
const DEFAULT_SERVE_CONCURRENCY = 128;
