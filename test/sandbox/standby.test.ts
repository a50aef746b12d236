/**
 * The standby bubblewrap (src/sandbox/standby.ts, issue 27): once an environment has run a
 * command, the next command's bubblewrap is started ahead and serves it, with the same results
 * as a fresh one. Observed from outside: the standby is a `bwrap` child of this process that
 * exists before the spawn call, and the spawned command's pid is that child's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { processAlive } from "../../src/process/groups.js";
import type { ExecEnvironment, SpawnedProcess, SpawnRequest } from "../../src/protocol/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { collect, TSX } from "../cli/helpers.js";
import { describeSandbox, Scratch } from "./helpers.js";

const HOST = fileURLToPath(new URL("fixtures/standbyExitHost.ts", import.meta.url));

/** The `bwrap` processes this test process started and that are still running (not zombies). */
function bwrapChildren(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(" ");
    if (comm === "bwrap" && state !== "Z" && Number(ppid) === process.pid) pids.push(Number(name));
  }
  return pids;
}

/** Waits for the one standby of `env` (no command of the test running meanwhile): its pid. */
async function standbyPid(): Promise<number> {
  return vi.waitFor(
    () => {
      const pids = bwrapChildren();
      expect(pids).toHaveLength(1);
      return pids[0]!;
    },
    { interval: 20 },
  );
}

interface Outcome {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

async function runToEnd(env: ExecEnvironment, req: SpawnRequest, input?: string): Promise<Outcome> {
  const child: SpawnedProcess = await env.spawn(req);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  if (input !== undefined) child.stdin?.end(input);
  const { code, signal } = await child.exited;
  await child.dispose();
  return { pid: child.pid, code, signal, stdout, stderr };
}

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

for (const mode of ["workspace-write", "danger-full-access"] as const) {
  describeSandbox(`standby bubblewrap (${mode})`, () => {
    let cwd: string;
    let env: ExecEnvironment;
    beforeAll(async () => {
      cwd = await scratch.inTmp("standby");
    });
    afterEach(async () => {
      await env.close?.();
      delete process.env["STANDBY_TEST_SECRET"];
    });
    const fresh = (): Promise<ExecEnvironment> => createExecEnvironment({ cwd, sandbox: { mode } });

    it("serves the second command with a bubblewrap started before the call", async () => {
      env = await fresh();
      const first = await runToEnd(env, { argv: ["true"], cwd });
      expect(first.code).toBe(0);
      const pid = await standbyPid();
      expect(pid).not.toBe(first.pid);
      const second = await runToEnd(env, { argv: ["sh", "-c", "echo served"], cwd });
      expect(second).toMatchObject({ pid, code: 0, stdout: "served\n" });
    });

    it("does not keep an embedder that never closes its environment alive, and dies with it", async () => {
      env = await fresh(); // closed by afterEach; the host below never closes its own
      const host = spawn(process.execPath, ["--import", TSX, HOST, mode, cwd], { stdio: ["ignore", "pipe", "pipe"] });
      const done = await collect(host);
      expect(done.code).toBe(0);
      const { codes, standbys } = JSON.parse(done.stdout) as { codes: number[]; standbys: number[] };
      expect(codes).toEqual([0, 0]);
      expect(standbys).toHaveLength(1);
      await vi.waitFor(() => {
        expect(standbys.filter((pid) => processAlive(pid))).toEqual([]);
      });
    });

    it("is gone once the environment is closed", async () => {
      env = await fresh();
      await runToEnd(env, { argv: ["true"], cwd });
      const pid = await standbyPid();
      await env.close?.();
      expect(processAlive(pid)).toBe(false);
      expect(bwrapChildren()).toEqual([]);
    });

    it("is replaced, never used, when it died meanwhile", async () => {
      env = await fresh();
      await runToEnd(env, { argv: ["true"], cwd });
      const dead = await standbyPid();
      process.kill(-dead, "SIGKILL");
      await vi.waitFor(
        () => {
          expect(bwrapChildren()).not.toContain(dead);
        },
        { interval: 20 },
      );
      const next = await runToEnd(env, { argv: ["sh", "-c", "echo ok"], cwd });
      expect(next).toMatchObject({ code: 0, stdout: "ok\n" });
      expect(next.pid).not.toBe(dead);
    });

    // Each command runs twice: first on a fresh bubblewrap (the environment's first command),
    // then on the standby; both must come out the same, and right.
    const twice = async (req: SpawnRequest, input?: string): Promise<[Outcome, Outcome]> => {
      env = await fresh();
      const viaFresh = await runToEnd(env, req, input);
      const pid = await standbyPid();
      const viaStandby = await runToEnd(env, req, input);
      expect(viaStandby.pid).toBe(pid);
      await env.close?.();
      return [viaFresh, viaStandby];
    };
    const same = (a: Outcome, b: Outcome): void => {
      const { pid: _a, ...restA } = a;
      const { pid: _b, ...restB } = b;
      expect(restB).toEqual(restA);
    };

    it("passes the exit code and the death by signal on", async () => {
      const [a, b] = await twice({ argv: ["sh", "-c", "echo out; echo err >&2; exit 7"], cwd });
      expect(b).toMatchObject({ code: 7, stdout: "out\n", stderr: "err\n" });
      same(a, b);
      const [c, d] = await twice({ argv: ["sh", "-c", "kill -KILL $$"], cwd });
      // bubblewrap reports its command's death by signal as 128 + the signal.
      expect(d).toMatchObject({ code: 137, signal: null });
      same(c, d);
    });

    it("gives stdin when asked and /dev/null otherwise", async () => {
      const [a, b] = await twice({ argv: ["cat"], cwd, stdin: "pipe" }, "some input\n");
      expect(b).toMatchObject({ code: 0, stdout: "some input\n" });
      same(a, b);
      const [c, d] = await twice({ argv: ["sh", "-c", "readlink /proc/self/fd/0; cat"], cwd });
      expect(d).toMatchObject({ code: 0, stdout: "/dev/null\n" });
      same(c, d);
    });

    it("runs in the cwd with the call's variables and without the filtered ones or descriptors of its own", async () => {
      process.env["STANDBY_TEST_SECRET"] = "hidden";
      const script = 'pwd; echo "$CALL_VAR|${STANDBY_TEST_SECRET-unset}"; ls /proc/self/fd; env | sort';
      const [a, b] = await twice({ argv: ["sh", "-c", script, "-x"], cwd, env: { CALL_VAR: "a  b=c" } });
      expect(b.code).toBe(0);
      expect(b.stdout.startsWith(`${cwd}\na  b=c|unset\n`)).toBe(true);
      expect(b.stdout).not.toContain("hidden");
      // Same descriptors, same variables (nothing of the stub's: bash's own, its request pipe).
      same(a, b);
    });

    it("runs an argv[0] that starts with a dash as a program", async () => {
      const bin = path.join(cwd, "bin");
      await mkdir(bin, { recursive: true });
      await writeFile(path.join(bin, "-dash"), '#!/bin/sh\necho dash "$@"\n', { mode: 0o755 });
      const req = { argv: ["-dash", "-x"], cwd, env: { PATH: `${bin}:/usr/bin:/bin` } };
      const [a, b] = await twice(req);
      expect(b).toMatchObject({ code: 0, stdout: "dash -x\n" });
      same(a, b);
    });
  });
}
