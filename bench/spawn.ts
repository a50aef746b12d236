/**
 * `npm run build && npx tsx bench/spawn.ts [--reps N] [--mib N] [--batch N]`: what the spawner
 * (src/process/spawner.ts) buys, on the built dist/ (its spawner is the bundled-free compiled
 * one), interleaved in one process, medians with [min–max]:
 *
 * - with the host holding `--mib` MiB (a touched Buffer, default 400): the event loop's block per
 *   spawned command, i.e. the synchronous part of `spawnGroup` (the fork, when direct) through the
 *   spawner and directly (`TOOLCALL_SPAWNER=off`), and the loop's longest gap while it runs;
 * - `shell` `true` through the handler vs a raw `child_process.spawn`, sequential batches of
 *   `--batch`: wall per command and CPU per command (the host's own, its reaped children's, and the
 *   spawner's with its children's, from /proc);
 * - a fan-out of 20 `true` through the handler vs 20 raw spawns at once: wall and the loop's longest gap.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type * as ProcessLib from "../src/process/index.js";
import type * as HandlersLib from "../src/subpaths/handlers.js";
import type * as Lib from "../src/index.js";
import { flag } from "./lib/builds.js";
import { median } from "./lib/stats.js";
import { rawTrue, shellInvocation } from "./lib/commands.js";

const dist = path.resolve(fileURLToPath(import.meta.url), "../../dist");
const proc = (await import(path.join(dist, "process/index.js"))) as typeof ProcessLib;
const spawner = (await import(path.join(dist, "process/spawner.js"))) as { spawnerPid: () => number | undefined };
const { ShellHandler } = (await import(path.join(dist, "subpaths/handlers.js"))) as typeof HandlersLib;
const lib = (await import(path.join(dist, "index.js"))) as typeof Lib;

const REPS = Number(flag("reps", "7"));
const MIB = Number(flag("mib", "400"));
const BATCH = Number(flag("batch", "20"));
const FANOUT = 20;
const TICK_MS = 1000 / 100; // USER_HZ: /proc's CPU times are in 10 ms ticks

/** utime + stime + cutime + cstime of `pid` in ms (a process and its reaped children). */
function cpuOfProc(pid: number | undefined, withSelf = true): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // fields after the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
    return ((withSelf ? f[11]! + f[12]! : 0) + f[13]! + f[14]!) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The host's CPU (µs precision) plus its reaped children's and the spawner's (10 ms ticks), in ms. */
function cpuNow(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + cpuOfProc(process.pid, false) + cpuOfProc(spawner.spawnerPid());
}

const fmt = (xs: number[], digits = 2): string =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;

const handler = new ShellHandler({ timeoutMs: 60_000 });
// A plain spawn, as the raw one: no sandbox and no PID namespace (bubblewrap is bench/sandbox.ts's).
const environment = await lib.createExecEnvironment({
  cwd: process.cwd(),
  sandbox: { mode: "danger-full-access" },
  pidNamespace: false,
});
const turn = lib.createTurnContext({ environment });
function shellTrue(): Promise<unknown> {
  return handler.handle(shellInvocation(["true"], turn));
}

/**
 * Watches the event loop from now: a chain of setImmediate callbacks, each noting the gap since
 * the previous one (a synchronous fork shows as one long gap). Returns the stop, which gives the
 * longest gap in ms.
 */
function loopGaps(): () => number {
  let last = performance.now();
  let max = 0;
  let on = true;
  const tick = (): void => {
    const t = performance.now();
    max = Math.max(max, t - last);
    last = t;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    on = false;
    return max;
  };
}

/** Runs `fn` with the spawner off (node's spawn in the host) when `direct`. */
async function mode<T>(direct: boolean, fn: () => Promise<T>): Promise<T> {
  if (direct) process.env["TOOLCALL_SPAWNER"] = "off";
  try {
    return await fn();
  } finally {
    delete process.env["TOOLCALL_SPAWNER"];
  }
}

/**
 * One spawnGroup of `true`: the ms its synchronous part held the loop (wall, and its CPU time: on
 * a loaded machine the wall includes the host being descheduled), and the loop's longest gap until it ended.
 */
async function blockOnce(direct: boolean): Promise<{ block: number; cpu: number; delay: number }> {
  return mode(direct, async () => {
    const stop = loopGaps();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const starting = proc.spawnGroup("true", [], {
      cwd: "/",
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const block = performance.now() - t0;
    const used = process.cpuUsage(c0);
    const g = await starting;
    g.child.stdout?.resume();
    g.child.stderr?.resume();
    await g.exited;
    await proc.releaseGroup(g);
    return { block, cpu: (used.user + used.system) / 1000, delay: stop() };
  });
}

async function main(): Promise<void> {
  const load = readFileSync("/proc/loadavg", "utf8").trim();
  // Warm both paths (the spawner starts on first use).
  await blockOnce(false);
  await blockOnce(true);
  await shellTrue();
  await rawTrue();

  const result: Record<string, unknown> = { loadBefore: load, reps: REPS, batch: BATCH };

  // Sequential `true`: small host first (the table's ratio), the big host after.
  const walls = { handler: [] as number[], raw: [] as number[], handlerDirect: [] as number[] };
  const cpus = { handler: [] as number[], raw: [] as number[], handlerDirect: [] as number[] };
  const contenders: Array<[keyof typeof walls, () => Promise<unknown>]> = [
    ["handler", shellTrue],
    ["raw", rawTrue],
    ["handlerDirect", () => mode(true, shellTrue)],
  ];
  for (let r = 0; r < REPS; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const [id, fn] = contenders[(r + k) % contenders.length]!;
      const c0 = cpuNow();
      const t0 = performance.now();
      for (let i = 0; i < BATCH; i++) await fn();
      walls[id].push((performance.now() - t0) / BATCH);
      cpus[id].push((cpuNow() - c0) / BATCH);
    }
  }
  const ratios = (a: number[], b: number[]): number[] => a.map((x, i) => x / b[i]!);
  result["sequentialTrue"] = {
    wallMsPerCommand: { handler: fmt(walls.handler), raw: fmt(walls.raw), handlerDirect: fmt(walls.handlerDirect) },
    cpuMsPerCommand: { handler: fmt(cpus.handler), raw: fmt(cpus.raw), handlerDirect: fmt(cpus.handlerDirect) },
    wallRatioHandlerOverRaw: fmt(ratios(walls.handler, walls.raw)),
    cpuRatioHandlerOverRaw: fmt(ratios(cpus.handler, cpus.raw)),
    wallRatioDirectHandlerOverRaw: fmt(ratios(walls.handlerDirect, walls.raw)),
    cpuRatioDirectHandlerOverRaw: fmt(ratios(cpus.handlerDirect, cpus.raw)),
  };

  // The host grows to MIB, every page touched (fork copies the page tables of what is mapped).
  const ballast = Buffer.alloc(MIB * 1024 * 1024, 1);
  const blocks = { spawner: [] as number[], direct: [] as number[] };
  const blockCpus = { spawner: [] as number[], direct: [] as number[] };
  const delays = { spawner: [] as number[], direct: [] as number[] };
  for (let r = 0; r < REPS; r++) {
    for (const direct of r % 2 ? [true, false] : [false, true]) {
      const { block, cpu, delay } = await blockOnce(direct);
      blocks[direct ? "direct" : "spawner"].push(block);
      blockCpus[direct ? "direct" : "spawner"].push(cpu);
      delays[direct ? "direct" : "spawner"].push(delay);
    }
  }
  result[`host${MIB}MiB`] = {
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    spawnerRssMiB: spawnerRss(),
    syncBlockMsPerSpawn: { spawner: fmt(blocks.spawner, 3), direct: fmt(blocks.direct, 3) },
    syncBlockCpuMsPerSpawn: { spawner: fmt(blockCpus.spawner, 3), direct: fmt(blockCpus.direct, 3) },
    longestLoopGapMsPerSpawn: { spawner: fmt(delays.spawner), direct: fmt(delays.direct) },
  };

  // A fan-out of 20 at once, still at MIB: handler (spawner), handler direct, raw spawn.
  const fan = { handler: [] as number[], handlerDirect: [] as number[], raw: [] as number[] };
  const fanDelay = { handler: [] as number[], handlerDirect: [] as number[], raw: [] as number[] };
  const fanners: Array<[keyof typeof fan, () => Promise<unknown>]> = [
    ["handler", shellTrue],
    ["raw", rawTrue],
    ["handlerDirect", () => mode(true, shellTrue)],
  ];
  for (let r = 0; r < REPS; r++) {
    for (let k = 0; k < fanners.length; k++) {
      const [id, fn] = fanners[(r + k) % fanners.length]!;
      const stop = loopGaps();
      const t0 = performance.now();
      if (id === "handlerDirect") await mode(true, () => Promise.all(Array.from({ length: FANOUT }, shellTrue)));
      else await Promise.all(Array.from({ length: FANOUT }, fn));
      fan[id].push(performance.now() - t0);
      fanDelay[id].push(stop());
    }
  }
  result[`fanout${FANOUT}At${MIB}MiB`] = {
    wallMs: { handler: fmt(fan.handler, 1), handlerDirect: fmt(fan.handlerDirect, 1), raw: fmt(fan.raw, 1) },
    longestLoopGapMs: {
      handler: fmt(fanDelay.handler, 1),
      handlerDirect: fmt(fanDelay.handlerDirect, 1),
      raw: fmt(fanDelay.raw, 1),
    },
  };
  ballast.fill(0);
  result["loadAfter"] = readFileSync("/proc/loadavg", "utf8").trim();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

function spawnerRss(): number | undefined {
  const pid = spawner.spawnerPid();
  if (pid === undefined) return undefined;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
}

await main();
