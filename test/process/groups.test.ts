import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  processAlive,
  processGroupAlive,
  releaseGroup,
  spawnGroup,
  terminateProcessGroup,
  trackProcessGroup,
} from "../../src/process/index.js";
import { collect, TSX } from "../cli/helpers.js";

/** Every pid a test saw, killed after it in case it failed half-way. */
const seen: number[] = [];
afterEach(() => {
  for (const pid of seen.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** `script` as the leader of its own group; its first output line is a background grandchild's pid. */
async function startGroup(script: string): Promise<{ pgid: number; grandchild: number; exited: Promise<unknown[]> }> {
  const child: ChildProcess = spawn("bash", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const exited = once(child, "exit");
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  const pgid = child.pid!;
  const grandchild = Number(line.toString().trim());
  seen.push(pgid, grandchild);
  return { pgid, grandchild, exited };
}

describe("terminateProcessGroup", () => {
  it("ends the whole group, background grandchild included", async () => {
    const { pgid, grandchild, exited } = await startGroup("sleep 30 & echo $!; sleep 30");
    expect(processGroupAlive(pgid)).toBe(true);
    await terminateProcessGroup(pgid);
    expect(processGroupAlive(pgid)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
    expect(await exited).toEqual([null, "SIGTERM"]);
  });

  it("SIGKILLs a group that ignores SIGTERM once the grace is over", async () => {
    // The ignored SIGTERM is inherited by both sleeps.
    const { pgid, grandchild, exited } = await startGroup("trap '' TERM; sleep 30 & echo $!; sleep 30");
    await terminateProcessGroup(pgid, 100);
    expect(processGroupAlive(pgid)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
    expect(await exited).toEqual([null, "SIGKILL"]);
  });
});

describe("trackProcessGroup", () => {
  it("hooks into the host only while some group is tracked; untracking twice is harmless", async () => {
    const { pgid } = await startGroup("sleep 30 & echo $!; sleep 30");
    const count = (): number[] =>
      (["exit", "SIGINT", "SIGTERM", "SIGHUP"] as const).map((e) => process.listenerCount(e));
    const before = count();
    const untrackJob = trackProcessGroup(pgid, { forwardHostSignals: true });
    const untrackService = trackProcessGroup(pgid);
    expect(count()).toEqual(before.map((n) => n + 1));
    untrackJob();
    untrackJob();
    expect(count()).toEqual(before.map((n) => n + 1));
    untrackService();
    expect(count()).toEqual(before);
    await terminateProcessGroup(pgid);
  });
});

describe("spawnGroup", () => {
  it("rejects with the spawn error for a program that cannot start, tracking nothing", async () => {
    const count = (): number[] =>
      (["exit", "SIGINT", "SIGTERM", "SIGHUP"] as const).map((e) => process.listenerCount(e));
    const before = count();
    const start = spawnGroup("/nonexistent/program", [], { cwd: "/", env: {}, stdio: ["ignore", "pipe", "pipe"] });
    await expect(start).rejects.toMatchObject({ code: "ENOENT", syscall: "spawn /nonexistent/program" });
    expect(count()).toEqual(before);
  });

  it("tracks a started group at once and releases it whole, background child included", async () => {
    const started = await spawnGroup("bash", ["-c", "sleep 30 & echo $!"], {
      cwd: "/",
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    seen.push(started.pgid);
    const [line] = (await once(started.child.stdout!, "data")) as [Buffer];
    const grandchild = Number(line.toString().trim());
    seen.push(grandchild);
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(processAlive(grandchild)).toBe(true);
    // The background child holds the pipes: not closed until the group is killed.
    expect(started.hasClosed()).toBe(false);
    await releaseGroup(started);
    expect(processAlive(grandchild)).toBe(false);
    await started.closed;
    expect(started.hasClosed()).toBe(true);
  });
});

describe("the host ending with tracked groups (a shell command's and an MCP server's)", () => {
  const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "host.ts");

  /** Runs the fixture host, `end`s it once it printed its groups, and checks no process of them survived. */
  async function hostEnds(
    mode: "exit" | "wait" | "handled",
    end: (host: ChildProcess) => void,
    opts: { setup?: "churn" | "no-tmpdir"; tmpdir?: string } = {},
  ) {
    const host = spawn(process.execPath, ["--import", TSX, fixture, mode, ...(opts.setup ? [opts.setup] : [])], {
      stdio: ["ignore", "pipe", "pipe"],
      ...(opts.tmpdir !== undefined && { env: { ...process.env, TMPDIR: opts.tmpdir } }),
    });
    const result = collect(host);
    const printed = await new Promise<string>((resolve) => {
      let out = "";
      host.stdout?.on("data", (chunk: string) => {
        if ((out += chunk).includes("\n")) resolve(out);
      });
      host.once("close", () => {
        resolve(out);
      });
    });
    const pids = Object.values(JSON.parse(printed.split("\n")[0] ?? "") as Record<string, number[]>).flat();
    seen.push(...pids);
    expect(pids).toHaveLength(4);
    end(host);
    // A host that did not end (a failing test) is ended by a signal it cannot ignore here.
    const guard = setTimeout(() => host.kill("SIGKILL"), 10_000);
    const { code, signal, stdout, stderr } = await result.finally(() => {
      clearTimeout(guard);
    });
    // The SIGKILL was sent before the host ended; the kernel finishes the job.
    await vi.waitFor(
      () => {
        expect(pids.map(processAlive), stderr).toEqual([false, false, false, false]);
      },
      { timeout: 3_000, interval: 10 },
    );
    return { code, signal, after: stdout.split("\n").slice(1).join("\n") };
  }

  it("process.exit SIGKILLs every tracked group", async () => {
    expect(await hostEnds("exit", () => undefined)).toEqual({ code: 0, signal: null, after: "" });
  });

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "an unhandled %s SIGKILLs every tracked group, then ends the host",
    async (sig) => {
      expect(await hostEnds("wait", (host) => host.kill(sig))).toEqual({ code: null, signal: sig, after: "" });
    },
  );

  it("a SIGKILLed host's groups die by its watchdog, whose list is in its memory only, nowhere on disk (S8)", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "host-tmp-"));
    try {
      let written: string[] = ["(not looked)"];
      const ended = await hostEnds(
        "wait",
        (host) => {
          // 1 000 groups came and went before the two live ones: nothing of it is a file.
          // (tsx keeps its cache there: the one entry that is not the host's own.)
          written = readdirSync(tmp).filter((name) => !name.startsWith("tsx-"));
          host.kill("SIGKILL");
        },
        { setup: "churn", tmpdir: tmp },
      );
      expect(ended).toEqual({ code: null, signal: "SIGKILL", after: "" });
      expect(written).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it("a SIGKILLed host without a usable temporary directory sends its watchdog the list down the pipe", async () => {
    expect(await hostEnds("wait", (host) => host.kill("SIGKILL"), { setup: "no-tmpdir" })).toEqual({
      code: null,
      signal: "SIGKILL",
      after: "",
    });
  });

  it("a SIGINT the host handles is passed on to the command's group only; the server's dies with the host", async () => {
    expect(await hostEnds("handled", (host) => host.kill("SIGINT"))).toEqual({
      code: 0,
      signal: null,
      after: "job leader: SIGINT; service leader: SIGTERM\n",
    });
  });
});
