/**
 * `npm run build && npx tsx bench/sidecar.ts [--reps N] [--calls N]`: the same turn through
 * `toolcall exec` (one process per turn, as an agent loop uses it) and through one long-lived
 * `toolcall serve --stdio` sidecar, interleaved; turns of 1 and N `read_file` calls and of 1
 * and N calls to an MCP tool (the demo server, which exec starts again every turn). Prints
 * medians per turn, per call, and the marginal cost of one more call ((T_N - T_1) / (N - 1)).
 * Then, in one process, what the protocol itself costs per call: a turn of N no-op calls fed
 * to `SidecarServer` as JSON lines (parse, submit, reply, streamed output, drain) against the
 * same turn through `runtime.submit` + `drain`. Measures, asserts nothing.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { lib } from "./lib/lib.js";
import { RpcChild } from "./lib/rpcChild.js";
import { interleave, median, timeMs, type Variant } from "./lib/stats.js";
import { batch, benchRouter, benchRuntime, runBatch } from "./lib/tools.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = path.join(ROOT, "dist/cli/main.js");
const DEMO_SERVER = path.join(ROOT, "dist/cli/demo/server.js");
if (!existsSync(MAIN)) {
  process.stderr.write("bench/sidecar.ts runs the compiled CLI: npm run build first\n");
  process.exit(2);
}
const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const reps = flag("--reps", 15);
const calls = flag("--calls", 50);

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-sidecar-"));
await writeFile(path.join(cwd, "a.txt"), "hello\n");
await writeFile(
  path.join(cwd, "toolcall.toml"),
  `[mcp_servers.demo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(DEMO_SERVER)}]\n`,
);

type Item = Record<string, unknown>;
const readFile = (i: number): Item => ({
  type: "function_call",
  call_id: `r${i}`,
  name: "read_file",
  arguments: JSON.stringify({ file_path: path.join(cwd, "a.txt") }),
});
const wordCount = (i: number): Item => ({
  type: "function_call",
  call_id: `w${i}`,
  name: "mcp__demo__word_count",
  arguments: JSON.stringify({ text: "a b c" }),
});
const turnOf = (make: (i: number) => Item, n: number): Item[] => Array.from({ length: n }, (_, i) => make(i));

/** One turn through `toolcall exec`: a process started, fed, and waited for. */
function execTurn(items: Item[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, "exec", "--sandbox", "danger-full-access"], { cwd });
    let lines = 0;
    child.stdout.setEncoding("utf8").on("data", (c: string) => (lines += c.split("\n").length - 1));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || lines !== items.length) reject(new Error(`exec: code ${code}, ${lines} outputs`));
      else resolve();
    });
    child.stdin.end(items.map((i) => `${JSON.stringify(i)}\n`).join(""));
  });
}

/** A sidecar process and a pipelining client: every submit is written at once, then the drain. */
class Sidecar extends RpcChild {
  constructor() {
    super([MAIN, "serve", "--stdio", "--sandbox", "danger-full-access"], cwd);
  }

  async turn(items: Item[]): Promise<void> {
    const { turnId } = (await this.send("turn/start", {})) as { turnId: string };
    this.sendAll(
      "turn/submit",
      items.map((item) => ({ turnId, item })),
    );
    const { outputs } = (await this.send("turn/drain", { turnId })) as { outputs: unknown[] };
    if (outputs.length !== items.length) throw new Error(`sidecar: ${outputs.length} outputs`);
  }

  override async close(): Promise<void> {
    await this.send("shutdown", {});
    await super.close();
  }
}

const sidecar = new Sidecar();
await sidecar.send("initialize", {});
const turns = {
  read1: turnOf(readFile, 1),
  readN: turnOf(readFile, calls),
  mcp1: turnOf(wordCount, 1),
  mcpN: turnOf(wordCount, calls),
};
const variants: Variant[] = [];
for (const [name, items] of Object.entries(turns)) {
  variants.push({ id: `exec ${name}`, label: "", run: () => timeMs(() => execTurn(items)) });
  variants.push({ id: `sidecar ${name}`, label: "", run: () => timeMs(() => sidecar.turn(items)) });
}
/** The protocol in process: lines in, messages out, no pipes. */
async function inProcess(): Promise<string> {
  const router = benchRouter();
  let drainId = 0;
  let drained: (() => void) | undefined;
  const server = new lib.SidecarServer({
    open: () => Promise.resolve({ router, turn: lib.createTurnContext(), close: () => Promise.resolve() }),
    send: (message) => {
      if (message.startsWith(`{"jsonrpc":"2.0","id":${drainId},"result"`)) drained?.();
    },
  });
  server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize" }));
  await new Promise((resolve) => setImmediate(resolve));
  const n = 100;
  let turnNo = 0;
  const items = batch("c", n, "noop", { n: 1 });
  const sidecarTurn = async (): Promise<void> => {
    const turnId = `t${++turnNo}`;
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: ++drainId, method: "turn/start", params: { turnId } }),
      ...items.map((item) =>
        JSON.stringify({ jsonrpc: "2.0", id: ++drainId, method: "turn/submit", params: { turnId, item } }),
      ),
    ];
    const done = new Promise<void>((resolve) => (drained = resolve));
    for (const line of lines) server.handleLine(line);
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: ++drainId, method: "turn/drain", params: { turnId } }));
    await done;
  };
  const samples = await interleave(
    [
      { id: "runtime", label: "", run: () => timeMs(() => runBatch(benchRuntime(router), items)) },
      { id: "sidecar", label: "", run: () => timeMs(sidecarTurn) },
    ],
    { warmup: 20, reps: 200 },
  );
  const direct = median(samples.get("runtime") ?? []);
  const rpc = median(samples.get("sidecar") ?? []);
  return (
    `in process, ${n} no-op calls a turn: runtime.submit + drain ${((direct / n) * 1000).toFixed(2)} µs/call, ` +
    `through SidecarServer ${((rpc / n) * 1000).toFixed(2)} µs/call (the protocol adds ${(((rpc - direct) / n) * 1000).toFixed(2)} µs/call)\n`
  );
}

try {
  process.stdout.write(await inProcess());
  const samples = await interleave(variants, { warmup: 2, reps });
  const m = (id: string): number => median(samples.get(id) ?? []);
  const rows: string[] = [];
  for (const kind of ["read", "mcp"]) {
    for (const mode of ["exec", "sidecar"]) {
      const one = m(`${mode} ${kind}1`);
      const many = m(`${mode} ${kind}N`);
      rows.push(
        `${mode} ${kind === "read" ? "read_file" : "MCP word_count"}`.padEnd(26) +
          `1 call ${one.toFixed(2).padStart(8)} ms   ${calls} calls ${many.toFixed(2).padStart(8)} ms ` +
          `(${((many / calls) * 1000).toFixed(0).padStart(6)} µs/call)   one more call ${(((many - one) / (calls - 1)) * 1000).toFixed(0).padStart(5)} µs`,
      );
    }
  }
  process.stdout.write(`${reps} interleaved repetitions, medians\n${rows.join("\n")}\n`);
} finally {
  await sidecar.close();
  await rm(cwd, { recursive: true, force: true });
}
