import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processAlive, processGroupAlive, releaseGroup, spawnGroup, type GroupChild } from "../../src/process/index.js";
import { spawnerPid } from "../../src/process/spawner.js";
import type { SpawnerReply } from "../../src/process/spawnerProtocol.js";
import { createExecEnvironment, runCommand } from "../../src/sandbox/index.js";
import { TSX } from "../cli/helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = path.join(here, "../../src/process/spawnerMain.ts");
/** Generous: the machine is shared and loaded; these bound a wait, they assert no time. */
const CEILING_MS = 60_000;

/** Every pid a test saw, SIGKILLed after it in case it failed half-way. */
const seen: number[] = [];
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-spawner-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const pid of seen.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

const PATH = process.env["PATH"] ?? "";

function start(script: string, stdio: Array<"ignore" | "pipe"> = ["ignore", "pipe", "pipe"]): Promise<GroupChild> {
  return spawnGroup("sh", ["-c", script], { cwd: dir, env: { PATH }, stdio }).then((g) => {
    seen.push(g.pgid);
    return g;
  });
}

/** Fields of /proc/PID/stat after the command name (which may hold anything): state, ppid, pgrp, session, ... */
function statOf(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
const parentOf = (pid: number): number => Number(statOf(pid)[1]);

async function until(check: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < CEILING_MS; waited += 20) {
    if (check()) return true;
    await delay(20);
  }
  return check();
}

function bytes(stream: NodeJS.ReadableStream | null): Promise<number> {
  let n = 0;
  stream?.on("data", (b: Buffer) => (n += b.length));
  return new Promise((resolve) =>
    stream?.once("end", () => {
      resolve(n);
    }),
  );
}

describe("the spawner", () => {
  it("is the command's parent, not the host; its group leads a session of its own", async () => {
    const g = await start("exec cat", ["pipe", "pipe", "pipe"]);
    const spawner = spawnerPid();
    expect(spawner).toBeDefined();
    expect(spawner).not.toBe(process.pid);
    expect(parentOf(g.pgid)).toBe(spawner);
    expect(parentOf(spawner!)).toBe(process.pid);
    expect(statOf(g.pgid).slice(2, 4).map(Number)).toEqual([g.pgid, g.pgid]);
    // The spawner's channel to the host (its fd 3) is not the command's: it could ask for any command.
    const channel = readlinkSync(`/proc/${spawner!}/fd/3`);
    expect(channel).toMatch(/^socket:/);
    const fds = readdirSync(`/proc/${g.pgid}/fd`).map((fd) => readlinkSync(`/proc/${g.pgid}/fd/${fd}`));
    expect(fds).not.toContain(channel);
    // stdin reaches it, stdout comes back, the exit is reported.
    const out = bytes(g.child.stdout);
    g.child.stdin?.end("hello");
    expect(await g.exited).toEqual({ code: 0, signal: null });
    expect(await out).toBe(5);
    await releaseGroup(g);
  });

  it("reports the exit code and the signal", async () => {
    const coded = await start("exit 7");
    expect(await coded.exited).toEqual({ code: 7, signal: null });
    await releaseGroup(coded);
    const killed = await start("kill -TERM $$");
    expect(await killed.exited).toEqual({ code: null, signal: "SIGTERM" });
    await releaseGroup(killed);
  });

  it("rejects as node's own spawn does (ENOENT for a missing program or directory)", async () => {
    const attempt = (opts: { program: string; cwd: string }): Promise<unknown> =>
      spawnGroup(opts.program, [], { cwd: opts.cwd, env: { PATH }, stdio: ["ignore", "pipe", "pipe"] }).then(
        () => "started",
        (e: unknown) => e,
      );
    for (const opts of [
      { program: "/nonexistent/program", cwd: dir },
      { program: "true", cwd: path.join(dir, "missing") },
    ]) {
      const viaSpawner = (await attempt(opts)) as NodeJS.ErrnoException;
      process.env["TOOLCALL_SPAWNER"] = "off";
      const direct = (await attempt(opts).finally(
        () => delete process.env["TOOLCALL_SPAWNER"],
      )) as NodeJS.ErrnoException;
      expect(viaSpawner).toBeInstanceOf(Error);
      expect(viaSpawner.code).toBe("ENOENT");
      expect([viaSpawner.message, viaSpawner.code, viaSpawner.syscall, viaSpawner.path]).toEqual([
        direct.message,
        direct.code,
        direct.syscall,
        direct.path,
      ]);
    }
  });

  it("runs a fan-out at once: each command waits at a barrier until all have started", async () => {
    const n = 12;
    const barrier = await mkdtemp(path.join(dir, "barrier-"));
    // Each leaves its mark, then waits (at most ~60 s) for the others' marks: exit 0 only if all met.
    const script = (i: number): string =>
      `: > ${barrier}/${i}; t=0; while [ "$(ls ${barrier} | wc -l)" -lt ${n} ]; do t=$((t+1)); [ $t -gt 3000 ] && exit 1; sleep 0.02; done`;
    const groups = await Promise.all(Array.from({ length: n }, (_, i) => start(script(i))));
    const exits = await Promise.all(groups.map((g) => g.exited));
    expect(exits).toEqual(Array.from({ length: n }, () => ({ code: 0, signal: null })));
    expect((await readdir(barrier)).length).toBe(n);
    await Promise.all(groups.map(releaseGroup));
  });

  it("loses no byte of fast producers, many at once, on stdout and stderr", async () => {
    const n = 24;
    const size = 1_000_000;
    const runs = await Promise.all(
      Array.from({ length: n }, async () => {
        const g = await start(`head -c ${size} /dev/zero; head -c ${size / 2} /dev/zero >&2`);
        const [out, err] = await Promise.all([bytes(g.child.stdout), bytes(g.child.stderr)]);
        const exit = await g.exited;
        await releaseGroup(g);
        return { out, err, exit };
      }),
    );
    expect(runs).toEqual(
      Array.from({ length: n }, () => ({ out: size, err: size / 2, exit: { code: 0, signal: null } })),
    );
  });

  it("killed mid-command: each running call ends once (killed), nothing is left, the next command gets a new spawner", async () => {
    // No PID namespace: the pids the commands print are the host's.
    const env = await createExecEnvironment({ cwd: dir, sandbox: { mode: "danger-full-access" }, pidNamespace: false });
    try {
      const marks = await mkdtemp(path.join(dir, "marks-"));
      const results = [0, 1, 2].map((i) => {
        let pids = "";
        const settled: string[] = [];
        const run = runCommand(
          env,
          { argv: ["sh", "-c", `sleep 60 & echo $$ $!; : > ${marks}/${i}; wait`], cwd: dir },
          { timeoutMs: CEILING_MS, onOutput: (_, chunk) => (pids += chunk.toString()) },
        ).then(
          (r) => settled.push(`exit ${r.exitCode} ${r.signal}`),
          (e: unknown) => settled.push(`error ${String(e)}`),
        );
        return { run, settled, pids: () => pids.trim().split(" ").map(Number) };
      });
      expect(await until(() => results.every((r) => r.pids().length === 2 && r.pids().every((p) => p > 0)))).toBe(true);
      const old = spawnerPid();
      for (const r of results) seen.push(...r.pids());
      expect(old).toBeDefined();
      process.kill(old!, "SIGKILL");
      await Promise.all(results.map((r) => r.run));
      for (const r of results) {
        expect(r.settled).toEqual(["exit 137 SIGKILL"]);
        const [leader, background] = r.pids() as [number, number];
        expect(await until(() => !processGroupAlive(leader) && !processAlive(background))).toBe(true);
      }
      expect(await until(() => !processAlive(old!))).toBe(true);
      // The next command starts a new spawner.
      const next = await runCommand(env, { argv: ["sh", "-c", "exit 3"], cwd: dir }, { timeoutMs: CEILING_MS });
      expect(next.exitCode).toBe(3);
      expect(spawnerPid()).not.toBe(old);
    } finally {
      await env.close?.();
    }
  });

  it("an abort still kills the command's whole group", async () => {
    const env = await createExecEnvironment({ cwd: dir, sandbox: { mode: "danger-full-access" }, pidNamespace: false });
    let pids = "";
    const abort = new AbortController();
    const run = runCommand(
      env,
      { argv: ["sh", "-c", "sleep 60 & echo $$ $!; wait"], cwd: dir },
      {
        timeoutMs: CEILING_MS,
        signal: abort.signal,
        onOutput: (_, chunk) => {
          pids += chunk.toString();
          if (pids.includes("\n")) abort.abort();
        },
      },
    );
    const result = await run;
    const [leader, background] = pids.trim().split(" ").map(Number) as [number, number];
    seen.push(leader);
    expect(result.aborted).toBe(true);
    expect(processGroupAlive(leader)).toBe(false);
    expect(await until(() => !processAlive(background))).toBe(true);
    await env.close?.();
  });

  it("dies with its host (SIGKILL), and the host's watchdog still kills the command's group", async () => {
    const host = spawn(process.execPath, ["--import", TSX, path.join(here, "fixtures/spawnerHost.ts")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [line] = (await once(host.stdout, "data")) as [Buffer];
    const { spawner, pids } = JSON.parse(line.toString()) as { spawner: number; pids: number[] };
    seen.push(...pids, spawner);
    expect(parentOf(pids[0]!)).toBe(spawner);
    expect(parentOf(spawner)).toBe(host.pid);
    host.kill("SIGKILL");
    await once(host, "exit");
    expect(await until(() => !processAlive(spawner))).toBe(true);
    expect(await until(() => pids.every((pid) => !processAlive(pid)))).toBe(true);
  });
  it("where no spawner can start, the host forks its commands itself", async () => {
    const host = spawn(process.execPath, ["--import", TSX, path.join(here, "fixtures/noSpawnerHost.ts")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    host.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const [code] = (await once(host, "exit")) as [number | null];
    expect(code).toBe(0);
    const { host: pid, parents, codes } = JSON.parse(out) as { host: number; parents: number[]; codes: number[] };
    expect(parents).toEqual([pid, pid]);
    expect(codes).toEqual([3, 4]);
  });
});

describe("spawnerMain", () => {
  let child: ChildProcess;
  afterEach(() => {
    child.kill("SIGKILL");
  });

  it("answers each bad request with a failure and keeps serving; ends when its channel does", async () => {
    child = spawn(process.execPath, ["--import", TSX, ENTRY], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const replies: SpawnerReply[] = [];
    child.on("message", (m: SpawnerReply) => replies.push(m));
    const ok = { file: "sh", args: ["-c", "exit 7"], cwd: "/", env: { PATH }, stdio: ["ignore", "ignore", "ignore"] };
    const bad: unknown[] = [
      "not a request",
      null,
      [1, 2],
      { id: "1" },
      { id: 1 },
      { ...ok, id: 2, args: "-c exit 7" },
      { ...ok, id: 3, env: { A: 1 } },
      { ...ok, id: 4, stdio: ["inherit"] },
      { ...ok, id: 5, file: "sh\0" },
      { ...ok, id: 6, file: "/nonexistent/program" },
      { ...ok, id: 7, cwd: "/nonexistent" },
    ];
    for (const message of bad) child.send(message as never);
    child.send({ ...ok, id: 8 });
    expect(await until(() => replies.some((r) => r.id === 8 && r.kind === "exit"))).toBe(true);
    const failed = replies.filter((r) => r.kind === "failed").map((r) => r.id);
    expect(failed.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(replies.filter((r) => r.id === 8).map((r) => r.kind)).toEqual(["started", "ready", "exit"]);
    expect(replies.find((r) => r.id === 8 && r.kind === "exit")).toMatchObject({ code: 7, signal: null });
    const exited = once(child, "exit");
    child.disconnect();
    expect(await exited).toEqual([0, null]);
  });
});
