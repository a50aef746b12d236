/**
 * The Docker environment (DESIGN section 16) against a real engine and an image built here:
 * commands run in the container, its network is off, the host's secrets stay out, abort kills
 * inside, sessions are isolated, and no container outlives its host (close, exit, SIGKILL).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import {
  createDockerEnvironment,
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ApprovalRequest,
  type ToolEvent,
} from "../../src/index.js";
import type { DockerEnvironment, DockerEnvironmentOptions } from "../../src/sandbox/index.js";
import { runCommand } from "../../src/sandbox/index.js";
import { collect, jsonLines, processesWith, spawnCli, TSX } from "../cli/helpers.js";
import { functionCall } from "../handlers/toolHarness.js";
import {
  buildTestImage,
  containersOf,
  docker,
  dockerProblem,
  processesIn,
  removeTestImage,
} from "../support/docker.js";
import { describeRequiring, run, Scratch, shellIn } from "./helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "dockerHost.ts");
const scratch = new Scratch();
let image = "";
let ws: string;
const envs: DockerEnvironment[] = [];

async function open(opts: Partial<DockerEnvironmentOptions> = {}): Promise<DockerEnvironment> {
  const env = await createDockerEnvironment({ image, workspace: ws, ...opts });
  envs.push(env);
  return env;
}

describeRequiring(await dockerProblem(), "Docker environment", () => {
  beforeAll(() => {
    image = buildTestImage();
  });
  beforeAll(async () => {
    ws = await scratch.inTmp("docker");
  });
  afterAll(async () => {
    await Promise.all(envs.map((e) => e.close()));
    if (image !== "") removeTestImage(image);
    await scratch.cleanup();
  });

  it("runs commands inside the container, on the workspace the host sees", async () => {
    const env = await open();
    // The container starts with the first command, not before.
    expect(containersOf(env.session)).toEqual([]);
    const out = await shellIn(env, ws, ["sh", "-c", "cat /proc/sys/kernel/hostname; echo made > inside.txt; pwd"]);
    const [hostname, pwd] = out.trim().split("\n").slice(-2);
    expect(hostname).not.toBe(os.hostname());
    expect(pwd).toBe(ws);
    expect(await readFile(path.join(ws, "inside.txt"), "utf8")).toBe("made\n");
    expect(containersOf(env.session)).toHaveLength(1);
    // The file tools share the workspace and nothing else.
    await expect(env.checkWrite([path.join(ws, "a.txt")])).resolves.toBeUndefined();
    await expect(env.checkWrite(["/etc/passwd"])).rejects.toThrow("outside the writable roots");
    await expect(env.checkRead("/etc/passwd")).rejects.toThrow("outside the readable roots");
    await expect(env.spawn({ argv: ["true"], cwd: "/etc" })).rejects.toThrow("outside the container's workspace");
  });

  it("has no network unless asked: a host listener is out of reach with --network none", async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const connect = ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`];
    try {
      const closed = await run(await open(), connect, { cwd: ws });
      expect(closed.exitCode).not.toBe(0);
      expect(closed.output).toContain("Connection refused");
      expect(connections).toBe(0);
      // The same client reaches it on the host's network: the refusal above was the container's.
      const hostNet = await run(await open({ network: "host" }), connect, { cwd: ws });
      expect(hostNet).toEqual({ exitCode: 0, output: "hello from the host\n" });
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it("passes the host's variables through the environment policy only", async () => {
    vi.stubEnv("TOOLCALL_DOCKER_PLAIN", "plain-value");
    vi.stubEnv("TOOLCALL_DOCKER_SECRET", "secret-value");
    try {
      const inherit = await run(await open({ env: { inherit: "all", set: { ADDED: "x y" } } }), ["env"], { cwd: ws });
      expect(inherit.output).toContain("TOOLCALL_DOCKER_PLAIN=plain-value\n");
      expect(inherit.output).toContain("ADDED=x y\n");
      expect(inherit.output).not.toContain("secret-value");
      // By default the image's environment alone.
      const plain = await run(await open(), ["env"], { cwd: ws });
      expect(plain.output).not.toContain("TOOLCALL_DOCKER_PLAIN");
      expect(plain.output).toContain("PATH=");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("gives the command the environment it was given where the image's sh is bash", async () => {
    const bashImage = buildTestImage({ shIsBash: true });
    try {
      const names = (output: string): string[] =>
        output
          .split("\n")
          .filter(Boolean)
          .map((l) => l.slice(0, l.indexOf("=")))
          .sort();
      const onDash = await run(await open({ env: { inherit: "none", set: { ADDED: "1" } } }), ["env"], { cwd: ws });
      const onBash = await run(
        await open({ image: bashImage, env: { inherit: "none", set: { ADDED: "1" } } }),
        ["env"],
        {
          cwd: ws,
        },
      );
      // bash as the wrapper's sh would add SHLVL=1 and `_=/usr/bin/env`.
      expect(names(onBash.output)).toEqual(names(onDash.output));
      expect(names(onBash.output)).not.toContain("SHLVL");
      // A SHLVL given on purpose arrives as given; a builtin and a missing command still run as in sh.
      const kept = await run(await open({ image: bashImage, env: { inherit: "none", set: { SHLVL: "4" } } }), ["env"], {
        cwd: ws,
      });
      expect(kept.output).toContain("SHLVL=4\n");
      expect(kept.output).not.toMatch(/^_=/m);
      const bashEnv = await open({ image: bashImage });
      expect((await run(bashEnv, ["cd", "/"], { cwd: ws })).exitCode).toBe(0);
      const missing = await run(bashEnv, ["no-such-program-x"], { cwd: ws });
      expect(missing.exitCode).toBe(127);
    } finally {
      await Promise.all(envs.splice(0).map((e) => e.close()));
      removeTestImage(bashImage);
    }
  });

  it("abort kills the command's process group inside the container; a finished one leaves nothing", async () => {
    const env = await open();
    await run(env, ["sh", "-c", "sleep 1002 & echo started"], { cwd: ws });
    const controller = new AbortController();
    const running = runCommand(
      env,
      { argv: ["sh", "-c", "sleep 1001 & sleep 1000"], cwd: ws },
      { timeoutMs: 60_000, killGraceMs: 200, signal: controller.signal },
    );
    await vi.waitFor(
      () => {
        expect(processesIn(env.container).join("\n")).toContain("sleep 1000");
      },
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    controller.abort();
    expect((await running).aborted).toBe(true);
    expect(processesIn(env.container).join("\n")).not.toMatch(/sleep 100[012]/);

    // Killing the docker CLI on the host ends only the CLI: the command it left running inside
    // is killed when the process is disposed of.
    const proc = await env.spawn({ argv: ["sleep", "1003"], cwd: ws });
    await vi.waitFor(
      () => {
        expect(processesIn(env.container).join("\n")).toContain("sleep 1003");
      },
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    process.kill(-proc.pid!, "SIGKILL");
    expect((await proc.exited).code).toBeNull();
    await proc.dispose();
    expect(processesIn(env.container).join("\n")).not.toContain("sleep 1003");
  });

  it("keeps two sessions apart: neither sees the other's files", async () => {
    const other = await scratch.inTmp("docker-other");
    const a = await open();
    const b = await open({ workspace: other });
    await run(a, ["sh", "-c", "echo a > /tmp/mine; echo a > mine.txt"], { cwd: ws });
    expect((await run(a, ["cat", "/tmp/mine"], { cwd: ws })).output).toBe("a\n");
    for (const file of ["/tmp/mine", path.join(ws, "mine.txt")]) {
      const seen = await run(b, ["cat", file], { cwd: other });
      expect(seen.exitCode).not.toBe(0);
      expect(seen.output).toContain("No such file or directory");
    }
  });

  it("asks no sandbox_escalation for a denial inside: nothing outside the container could run it", async () => {
    const env = await open();
    const asked: ApprovalRequest[] = [];
    const permissions = new PermissionEngine({
      mode: "default",
      allow: ["shell"],
      approve: (req) => {
        asked.push(req);
        return Promise.resolve({ decision: "allow" });
      },
    });
    const events: ToolEvent[] = [];
    const turn = createTurnContext({ cwd: ws, environment: env, permissions, onEvent: (e) => events.push(e) });
    const router = await createToolRouter({ shell: "shell" });
    const runtime = new ToolCallRuntime(router, turn);
    runtime.submit(functionCall("shell", { command: ["sh", "-c", "echo x > /proc/sys/kernel/hostname"] }));
    const [outcome] = await runtime.drainOutcomes();
    await router.close();
    expect((outcome!.item as { output: string }).output).toContain("Read-only file system");
    expect(asked).toEqual([]);
    expect(events.filter((e) => e.type === "exec_command_begin")).toHaveLength(1);
  });

  it("runs exec_command sessions with a tty inside, input through write_stdin", async () => {
    const env = await open();
    const router = await createToolRouter({ shell: "unified_exec" });
    const turn = createTurnContext({ cwd: ws, environment: env });
    const call = async (name: string, args: unknown): Promise<string> => {
      const runtime = new ToolCallRuntime(router, turn);
      runtime.submit(functionCall(name, args));
      const [outcome] = await runtime.drainOutcomes();
      return (outcome!.item as { output: string }).output;
    };
    try {
      const first = await call("exec_command", {
        cmd: '[ -t 0 ] && echo "a terminal"; read x; echo "got:$x"; cat /proc/sys/kernel/hostname',
        shell: "/bin/bash",
        login: false,
        tty: true,
        yield_time_ms: 1_500,
      });
      expect(first).toContain("a terminal");
      const session = /session ID (\d+)/.exec(first)?.[1];
      expect(session).toBeDefined();
      const second = await call("write_stdin", { session_id: Number(session), chars: "hi\n", yield_time_ms: 1_500 });
      expect(second).toContain("got:hi");
      expect(second).toContain("Process exited with code 0");
      expect(second).not.toContain(os.hostname());
    } finally {
      await router.close();
    }
  });

  it("grep_files finds matches when the image has no ripgrep (the search falls back to the host's copy)", async () => {
    const dir = await scratch.inTmp("docker-grep");
    const grepEnv = await open({ workspace: dir });
    await run(grepEnv, ["sh", "-c", "echo needle-in-container > found.txt"], { cwd: dir });
    const router = await createToolRouter({});
    try {
      const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, environment: grepEnv }));
      runtime.submit(functionCall("grep_files", { pattern: "needle-in-container" }));
      const [outcome] = await runtime.drainOutcomes();
      expect((outcome!.item as { output: string }).output).toContain(path.join(dir, "found.txt"));
      expect(outcome!.success).toBe(true);
    } finally {
      await router.close();
    }
  });

  it("close() removes the container and refuses later commands", async () => {
    const env = await open();
    await run(env, ["true"], { cwd: ws });
    expect(containersOf(env.session)).toHaveLength(1);
    await env.close();
    expect(docker(["ps", "-aq", "--filter", `label=toolcall.session=${env.session}`]).trim()).toBe("");
    await expect(env.spawn({ argv: ["true"], cwd: ws })).rejects.toThrow("the Docker environment is closed");
  });

  it("toolcall exec --docker-image runs the turn's commands in a container and removes it at the end", async () => {
    const cli = spawnCli(["exec", "--docker-image", image, "--cwd", ws]);
    const done = collect(cli);
    cli.stdin?.end(
      `${JSON.stringify({
        type: "function_call",
        call_id: "c1",
        name: "shell",
        arguments: JSON.stringify({ command: ["cat", "/proc/sys/kernel/hostname"] }),
      })}\n`,
    );
    const result = await done;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [output] = jsonLines(result.stdout);
    expect(String(output?.["output"])).toContain("Exit code: 0");
    expect(String(output?.["output"])).not.toContain(os.hostname());
    expect(docker(["ps", "-aq", "--filter", `label=toolcall.pid=${cli.pid}`]).trim()).toBe("");
  });

  it("leaves no container behind a host that exits without close, or is killed by SIGKILL (its watchdog removes it: R5)", async () => {
    const host = (mode: "exit" | "wait") => {
      const child = spawn(process.execPath, ["--import", TSX, FIXTURE, image, ws, mode], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const session = once(child.stdout, "data").then(([chunk]) => String(chunk).trim());
      return { child, session };
    };
    const exiting = host("exit");
    const exitedSession = await exiting.session;
    await once(exiting.child, "exit");
    // process.exit ran the exit hook: a detached `docker rm -f`.
    await vi.waitFor(
      () => {
        expect(containersOf(exitedSession)).toEqual([]);
      },
      { timeout: 30_000, interval: 100 },
    );

    // SIGKILL: no hook runs; the host's watchdog runs its `docker rm -f`, with no later host.
    const killed = host("wait");
    const killedSession = await killed.session;
    expect(containersOf(killedSession)).toHaveLength(1);
    killed.child.kill("SIGKILL");
    await once(killed.child, "exit");
    await vi.waitFor(
      () => {
        expect(containersOf(killedSession)).toEqual([]);
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(existsSync(ws)).toBe(true);
  });

  it("a host whose watchdog died too leaves its container to the next environment's sweep", async () => {
    const child = spawn(process.execPath, ["--import", TSX, FIXTURE, image, ws, "wait"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const session = await once(child.stdout, "data").then(([chunk]) => String(chunk).trim());
    const watchdogs = await watchdogsOf(child.pid!);
    expect(watchdogs).toHaveLength(1);
    for (const pid of watchdogs) process.kill(pid, "SIGKILL");
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(containersOf(session)).toHaveLength(1);
    await open();
    expect(docker(["ps", "-aq", "--filter", `label=toolcall.session=${session}`]).trim()).toBe("");
  });
});

/** The watchdog processes (src/process/watchdog.ts) the host `pid` started. */
async function watchdogsOf(pid: number): Promise<number[]> {
  const all = await processesWith("toolcall-watchdog");
  const ppid = async (p: number): Promise<number> => {
    const stat = await readFile(`/proc/${p}/stat`, "utf8").catch(() => "");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  };
  const out: number[] = [];
  for (const p of all) if ((await ppid(p)) === pid) out.push(p);
  return out;
}
