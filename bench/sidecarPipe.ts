/**
 * `npm run build && npx tsx bench/sidecarPipe.ts --base OLD/dist [--new DIST] [--reps N] [--calls N]`:
 * the sidecar end to end against the floor of any JSON-lines sidecar. Four child processes
 * served by one pipelining client (every `turn/submit` written at once, then `turn/drain`),
 * turns of N `test_sync_tool {}` calls (`--read BYTES`: N `read_file` calls of a file that
 * size), interleaved with the order rotating:
 * - `base`: `toolcall serve --stdio` of the base build (each output streamed and drained);
 * - `new both`: this build, `initialize {}` (the same two copies);
 * - `new stream`: this build, `initialize { outputs: "stream" }` (each output once);
 * - `floor`: a 20-line node child that parses each request and answers it, plus one
 *   `turn/output` per submit, batched per event-loop turn like `serve --stdio`; its drain
 *   answers the call ids.
 * Prints wall µs/call, the server's CPU µs/call (from /proc, all its threads) and the bytes it
 * wrote per call; medians [p25–p75]. `--per-sample N`: calls a sample (default 10 000). `--prof DIR`: a CPU profile of each server. Measures, asserts nothing.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { flag, machineLine } from "./lib/builds.js";
import { RpcChild } from "./lib/rpcChild.js";
import { median, quantile } from "./lib/stats.js";

const reps = Number(flag("reps", "15"));
const calls = Number(flag("calls", "100"));
/** `--read BYTES`: each call a read_file of a file that size (the floor answers as many bytes) instead of test_sync_tool. */
const readBytes = Number(flag("read", "0"));
/** Calls a sample (whole turns): CPU time is read in 10 ms ticks, so enough to make them small. */
const callsPerSample = Number(flag("per-sample", "10000"));
const baseDist = flag("base", "");
if (baseDist === "") throw new Error("pass --base DIST: the dist/ of the build to compare with");
const newDist = flag("new", "dist");
/** `--prof DIR`: each server writes a CPU profile there (node --cpu-prof) when it exits. */
const prof = flag("prof", "");
const profArgs = prof === "" ? [] : ["--cpu-prof", "--cpu-prof-interval", "200", "--cpu-prof-dir", path.resolve(prof)];

const FLOOR = `
const OUTPUT = "x".repeat(Number(process.argv[2]) || 2);
const out = []; let scheduled = false;
const send = (m) => { out.push(JSON.stringify(m)); if (!scheduled) { scheduled = true; setImmediate(() => { scheduled = false; process.stdout.write(out.join("\\n") + "\\n"); out.length = 0; }); } };
const turns = new Map();
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === "turn/start") { turns.set(params.turnId, []); return send({ jsonrpc: "2.0", id, result: { turnId: params.turnId } }); }
  if (method === "turn/submit") {
    const callId = params.item.call_id; turns.get(params.turnId).push(callId);
    send({ jsonrpc: "2.0", id, result: { accepted: true, callId } });
    return send({ jsonrpc: "2.0", method: "turn/output", params: { turnId: params.turnId, callId, item: { type: "function_call_output", call_id: callId, output: OUTPUT } } });
  }
  if (method === "turn/drain") { const ids = turns.get(params.turnId); turns.delete(params.turnId); return send({ jsonrpc: "2.0", id, result: { callIds: ids } }); }
  send({ jsonrpc: "2.0", id, result: {} });
});
`;

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-sidecar-pipe-"));
const floorScript = path.join(cwd, "floor.cjs");
await writeFile(floorScript, FLOOR);
const readPath = path.join(cwd, "read.txt");
const readText = Array.from({ length: Math.ceil(readBytes / 40) }, (_, i) => `line ${i} of the file read by each call`)
  .join("\n")
  .slice(0, readBytes);
await writeFile(readPath, readText);
const call =
  readBytes > 0
    ? { name: "read_file", arguments: JSON.stringify({ file_path: readPath }) }
    : { name: "test_sync_tool", arguments: "{}" };

/** A server and a pipelining client that counts what the server wrote. */
class Server extends RpcChild {
  constructor(args: string[]) {
    super([...profArgs, ...args], cwd);
  }

  /** One turn; checks that every call was answered (streamed, or in the drain's outputs). */
  async turn(n: number): Promise<void> {
    const { turnId } = (await this.send("turn/start", {})) as { turnId: string };
    const streamed = this.notified.get("turn/output") ?? 0;
    this.sendAll(
      "turn/submit",
      Array.from({ length: n }, (_, i) => ({ turnId, item: { type: "function_call", call_id: `c${i}`, ...call } })),
    );
    const drained = (await this.send("turn/drain", { turnId })) as { outputs?: unknown[]; callIds?: string[] };
    const answered = drained.outputs?.length ?? (this.notified.get("turn/output") ?? 0) - streamed;
    if (answered !== n || (drained.callIds !== undefined && drained.callIds.length !== n))
      throw new Error(`${answered} outputs for ${n} calls`);
  }
}

const serve = (dist: string): string[] => [
  path.resolve(dist, "cli/main.js"),
  "serve",
  "--stdio",
  "--sandbox",
  "danger-full-access",
];
// Loop detection off: every call of a turn is the same call on purpose.
const init = { config: { tools: { test_sync_tool: true, loop_limit: 0 } } };
const servers: Array<{ id: string; server: Server; init?: Record<string, unknown> }> = [
  { id: "base", server: new Server(serve(baseDist)), init },
  { id: "new both", server: new Server(serve(newDist)), init },
  { id: "new stream", server: new Server(serve(newDist)), init: { ...init, outputs: "stream" } },
  { id: "floor", server: new Server([floorScript, String(readBytes)]) },
];
try {
  for (const s of servers) {
    if (!s.init) continue;
    // A build from before loop detection refuses its key: it has nothing to turn off.
    await s.server.send("initialize", s.init).catch((err: unknown) => {
      if (!String(err).includes("loop_limit")) throw err;
      return s.server.send("initialize", { ...s.init, config: { tools: { test_sync_tool: true } } });
    });
  }
  process.stdout.write(
    `${machineLine()}\n${calls} calls a turn, ${reps} reps; turns a sample: enough for ${callsPerSample} calls\n`,
  );
  const perSample = Math.max(1, Math.ceil(callsPerSample / calls));
  const samples = new Map(
    servers.map((s) => [s.id, { wall: [] as number[], cpu: [] as number[], bytes: [] as number[] }]),
  );
  for (let r = 0; r < reps + 2; r++) {
    for (let k = 0; k < servers.length; k++) {
      const { id, server } = servers[(r + k) % servers.length] as (typeof servers)[number];
      const cpu0 = server.cpuMs();
      const bytes0 = server.bytes;
      const t0 = performance.now();
      for (let t = 0; t < perSample; t++) await server.turn(calls);
      const per = (x: number): number => (x * 1000) / (perSample * calls);
      if (r < 2) continue;
      const row = samples.get(id);
      row?.wall.push(per(performance.now() - t0));
      row?.cpu.push(per(server.cpuMs() - cpu0));
      row?.bytes.push((server.bytes - bytes0) / (perSample * calls));
    }
  }
  const fmt = (xs: number[]): string =>
    `${median(xs).toFixed(1)} [${quantile(xs, 0.25).toFixed(1)}–${quantile(xs, 0.75).toFixed(1)}]`;
  const floor = samples.get("floor");
  for (const [id, row] of samples) {
    const ratio = (a: number[], b: number[] | undefined): string => (b ? (median(a) / median(b)).toFixed(2) : "-");
    process.stdout.write(
      `${id.padEnd(11)} wall ${fmt(row.wall)} µs/call (${ratio(row.wall, floor?.wall)}× floor)   ` +
        `server CPU ${fmt(row.cpu)} µs/call (${ratio(row.cpu, floor?.cpu)}×)   ${median(row.bytes).toFixed(0)} B/call written\n`,
    );
  }
} finally {
  await Promise.all(servers.map((s) => s.server.close()));
  await rm(cwd, { recursive: true, force: true });
}
