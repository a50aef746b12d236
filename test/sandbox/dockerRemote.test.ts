/**
 * The Docker environment on a remote engine (DESIGN section 16, "Remote engines"): a second
 * dockerd on a 127.0.0.1 TCP port with TLS (certificates made here) and its own data root. The
 * workspace lives in the container (a volume), seeded by the archive API; every tool of a turn
 * runs through the engine, and nothing of the turn reaches the host until `pull`.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, readlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, expect, it, onTestFinished, vi } from "vitest";
import {
  createDockerEnvironment,
  createToolRouter,
  createTurnContext,
  DockerPool,
  ToolCallRuntime,
  type ToolRouter,
  type TurnContext,
} from "../../src/index.js";
import type { DockerEnvironment, DockerEnvironmentOptions } from "../../src/sandbox/index.js";
import { collect, jsonLines, spawnCli, TSX } from "../cli/helpers.js";
import { functionCall } from "../handlers/toolHarness.js";
import { buildTestImage, containersOf, docker, dockerProblem, removeTestImage } from "../support/docker.js";
import { startRemoteEngine, type RemoteEngine } from "../support/remoteEngine.js";
import { describeRequiring, run, Scratch } from "./helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "dockerRemoteHost.ts");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const scratch = new Scratch();
let engine: RemoteEngine;
/** With node, ripgrep and ln: the resident helper runs in it. */
let image = "";
/** Without node: sh and coreutils. */
let bare = "";
const envs: DockerEnvironment[] = [];

async function open(opts: Partial<DockerEnvironmentOptions> = {}): Promise<DockerEnvironment> {
  const env = await createDockerEnvironment({
    image,
    volume: {},
    docker: { host: engine.host, tlsVerify: true, certPath: engine.certPath },
    ...opts,
  });
  envs.push(env);
  return env;
}

/** Every file under `dir` (relative paths), sorted. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

async function call(router: ToolRouter, turn: TurnContext, name: string, args: unknown) {
  const runtime = new ToolCallRuntime(router, turn);
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  const output = (outcome!.item as { output: unknown }).output;
  return { success: outcome!.success, text: typeof output === "string" ? output : JSON.stringify(output) };
}

describeRequiring(await dockerProblem(), "Docker environment on a remote engine (TLS over TCP)", () => {
  beforeAll(async () => {
    // None of the host's own engine settings: the options alone name the remote one.
    for (const name of ["DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"]) vi.stubEnv(name, "");
    engine = await startRemoteEngine();
    image = buildTestImage({ extra: ["node", "rg", "ln"], env: engine.env });
    bare = buildTestImage({
      extra: ["stat", "realpath", "readlink", "dirname", "basename", "mv", "chmod", "rmdir", "ln"],
      env: engine.env,
    });
  });
  // Each test's environments go with it: later ones count the engines' containers.
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((e) => e.close()));
  });
  afterAll(async () => {
    await Promise.all(envs.map((e) => e.close()));
    await engine?.stop();
    await scratch.cleanup();
    vi.unstubAllEnvs();
  });

  it("runs a whole turn in the container with nothing of the host mounted; the host sees the files only after pull", async () => {
    const seed = await scratch.inTmp("remote-seed");
    await mkdir(path.join(seed, "src"));
    await writeFile(path.join(seed, "src", "app.txt"), "alpha\nbeta\n");
    const before = await tree(seed);
    // A file only the host has: the container must not reach it by any path.
    const hostOnly = path.join(await scratch.inTmp("remote-host-only"), "secret.txt");
    await writeFile(hostOnly, "host secret\n");

    const env = await open({ volume: { seed } });
    const turn = createTurnContext({ cwd: env.workdir, environment: env });
    const tools = await createToolRouter({
      shell: "shell",
      applyPatch: "function",
      readFile: true,
      editFile: true,
      grepFiles: true,
      viewImage: true,
    });
    const sessions = await createToolRouter({ shell: "unified_exec", applyPatch: false });
    try {
      const shell = await call(tools, turn, "shell", {
        command: ["sh", "-c", "cat /proc/sys/kernel/hostname; cat src/app.txt; echo made > made.txt; pwd"],
      });
      expect(shell.text).toContain("alpha\nbeta\n");
      expect(shell.text).toContain("/workspace");
      expect(shell.text).not.toContain(os.hostname());
      // The container's only mounts are its own volume: no host path is bound.
      const mounts = JSON.parse(
        docker(["inspect", "-f", "{{json .Mounts}}", env.container], undefined, engine.env),
      ) as Array<{
        Type: string;
        Destination: string;
      }>;
      expect(mounts.map((m) => [m.Type, m.Destination])).toEqual([["volume", "/workspace"]]);
      // The engine's own mounts (the container's overlay) stay in its namespace: not in the host's
      // tree, which other tests' sandboxes bind meanwhile.
      expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(engine.dir);

      const patch = await call(tools, turn, "apply_patch", {
        input:
          "*** Begin Patch\n*** Add File: src/new.txt\n+from a patch\n*** Update File: src/app.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch",
      });
      expect(patch.text).toContain("src/new.txt");
      const read = await call(tools, turn, "read_file", { file_path: "/workspace/src/app.txt" });
      expect(read.text).toContain("gamma");
      const edit = await call(tools, turn, "edit_file", {
        file_path: "/workspace/src/app.txt",
        old_string: "gamma",
        new_string: "delta needle",
      });
      expect(edit.success).toBe(true);
      // ripgrep runs inside (the image has it at the host's path).
      const grep = await call(tools, turn, "grep_files", { pattern: "needle" });
      expect(grep.text).toBe("/workspace/src/app.txt");
      await env.files.write("/workspace/pic.bin", PNG);
      const image = await call(tools, turn, "view_image", { path: "pic.bin" });
      expect(image.text).toContain(`data:image/png;base64,${PNG.toString("base64")}`);

      const first = await call(sessions, turn, "exec_command", {
        cmd: 'read x; echo "got:$x"; cat src/app.txt',
        shell: "/bin/bash",
        login: false,
        tty: true,
        yield_time_ms: 1_000,
      });
      const session = /session ID (\d+)/.exec(first.text)?.[1];
      expect(session, first.text).toBeDefined();
      const second = await call(sessions, turn, "write_stdin", {
        session_id: Number(session),
        chars: "hi\n",
        yield_time_ms: 5_000,
      });
      expect(second.text).toContain("got:hi");
      expect(second.text).toContain("delta needle");

      // Escapes: the host's files are not there, by any path; a link to /etc is judged at /etc
      // by the container's kernel (the host has no such link).
      const hostRead = await call(tools, turn, "read_file", { file_path: hostOnly });
      expect(hostRead.success).toBe(false);
      expect(hostRead.text).not.toContain("host secret");
      const hostCat = await run(env, ["cat", hostOnly], { cwd: env.workdir });
      expect(hostCat.exitCode).not.toBe(0);
      await run(env, ["ln", "-s", "/etc", "etc-link"], { cwd: env.workdir });
      const viaLink = await call(tools, turn, "apply_patch", {
        input: "*** Begin Patch\n*** Add File: etc-link/evil\n+x\n*** End Patch",
      });
      expect(viaLink.success).toBe(false);
      expect(viaLink.text).toContain("outside the writable roots");
      expect((await run(env, ["ls", "/etc"], { cwd: env.workdir })).output).not.toContain("evil");

      // Nothing of the turn is on the host yet.
      expect(await tree(seed)).toEqual(before);
      expect(await readFile(path.join(seed, "src", "app.txt"), "utf8")).toBe("alpha\nbeta\n");

      const dest = await scratch.inTmp("remote-dest");
      const written = await env.pull(["src", "made.txt"], dest);
      expect(written.sort()).toEqual(
        [path.join(dest, "made.txt"), path.join(dest, "src", "app.txt"), path.join(dest, "src", "new.txt")].sort(),
      );
      expect(await readFile(path.join(dest, "src", "app.txt"), "utf8")).toBe("alpha\ndelta needle\n");
      expect(await readFile(path.join(dest, "src", "new.txt"), "utf8")).toBe("from a patch\n");
      // The whole workspace, into the seed: the link comes back as a link, never followed.
      await env.pull();
      expect(await readFile(path.join(seed, "made.txt"), "utf8")).toBe("made\n");
      expect(await readlink(path.join(seed, "etc-link"))).toBe("/etc");
    } finally {
      await tools.close();
      await sessions.close();
    }
  });

  it("reaches the engine by a Docker context name, and by the CLI's own variables (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH)", async () => {
    const config = await scratch.inTmp("remote-docker-config");
    const cert = (f: string) => path.join(engine.certPath, f);
    docker(
      [
        "context",
        "create",
        "toolcall-remote",
        "--docker",
        `host=${engine.host},ca=${cert("ca.pem")},cert=${cert("cert.pem")},key=${cert("key.pem")}`,
      ],
      undefined,
      { DOCKER_CONFIG: config },
    );
    vi.stubEnv("DOCKER_CONFIG", config);
    try {
      const byContext = await open({ docker: { host: "toolcall-remote" } });
      expect((await run(byContext, ["cat", "/proc/sys/kernel/hostname"], { cwd: byContext.workdir })).exitCode).toBe(0);
      expect(containersOf(byContext.session, engine.env)).toHaveLength(1);
    } finally {
      vi.stubEnv("DOCKER_CONFIG", "");
    }
    vi.stubEnv("DOCKER_HOST", engine.host);
    vi.stubEnv("DOCKER_TLS_VERIFY", "1");
    vi.stubEnv("DOCKER_CERT_PATH", engine.certPath);
    try {
      const byVariables = await createDockerEnvironment({ image, volume: {} });
      envs.push(byVariables);
      expect((await run(byVariables, ["true"], { cwd: byVariables.workdir })).exitCode).toBe(0);
      expect(containersOf(byVariables.session, engine.env)).toHaveLength(1);
    } finally {
      for (const name of ["DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH"]) vi.stubEnv(name, "");
    }
    // Without our certificate the engine refuses, and the error says the engine is unavailable.
    const noCerts = await scratch.inTmp("remote-no-certs");
    await expect(open({ docker: { host: engine.host, tlsVerify: true, certPath: noCerts } })).rejects.toThrow(
      `${path.join(noCerts, "ca.pem")} is missing`,
    );
    await expect(open({ docker: { host: engine.host, tlsVerify: false } })).rejects.toThrow(
      "Docker Engine unavailable",
    );
    await expect(open({ docker: { host: "ftp://example.com" } })).rejects.toThrow("must be unix://, tcp:// or ssh://");
  });

  it('toolcall exec with [docker] workspace = "volume" on the TLS engine: the turn runs in the container, its files come back at the end', async () => {
    const dir = await scratch.inTmp("remote-cli");
    const config = path.join(await scratch.inTmp("remote-cli-config"), "toolcall.toml");
    await writeFile(
      config,
      [
        "[docker]",
        `image = ${JSON.stringify(image)}`,
        `host = ${JSON.stringify(engine.host)}`,
        "tls_verify = true",
        `cert_path = ${JSON.stringify(engine.certPath)}`,
        'workspace = "volume"',
        "",
      ].join("\n"),
    );
    await writeFile(path.join(dir, "given.txt"), "given\n");
    const cli = spawnCli(["exec", "--config", config, "--cwd", dir]);
    const done = collect(cli);
    const shellCall = {
      type: "function_call",
      call_id: "c0",
      name: "shell",
      arguments: JSON.stringify({ command: ["sh", "-c", "pwd; cat given.txt; echo from-cli > made.txt"] }),
    };
    const patchCall = {
      type: "custom_tool_call",
      call_id: "c1",
      name: "apply_patch",
      input: "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch",
    };
    cli.stdin?.end(`${JSON.stringify(shellCall)}\n${JSON.stringify(patchCall)}\n`);
    const result = await done;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [shell] = jsonLines(result.stdout);
    expect(String(shell?.["output"])).toContain("/workspace\ngiven\n");
    expect(await readFile(path.join(dir, "made.txt"), "utf8")).toBe("from-cli\n");
    expect(await readFile(path.join(dir, "patched.txt"), "utf8")).toBe("patched\n");
    expect(docker(["ps", "-aq", "--filter", `label=toolcall.pid=${cli.pid}`], undefined, engine.env).trim()).toBe("");
  });

  it("an image without node: the file tools run through sh and coreutils in the container, paths still the container's", async () => {
    const env = await open({ image: bare });
    const turn = createTurnContext({ cwd: env.workdir, environment: env });
    const tools = await createToolRouter({
      shell: "shell",
      applyPatch: "function",
      readFile: true,
      editFile: true,
      grepFiles: true,
    });
    try {
      expect(
        (await call(tools, turn, "shell", { command: ["sh", "-c", "command -v node || echo no-node"] })).text,
      ).toContain("no-node");
      const patch = await call(tools, turn, "apply_patch", {
        input: "*** Begin Patch\n*** Add File: src/a.txt\n+one\n+two\n*** End Patch",
      });
      expect(patch.success, patch.text).toBe(true);
      expect((await call(tools, turn, "read_file", { file_path: "/workspace/src/a.txt" })).text).toContain("two");
      const edit = await call(tools, turn, "edit_file", {
        file_path: "/workspace/src/a.txt",
        old_string: "two",
        new_string: "two needle",
      });
      expect(edit.success, edit.text).toBe(true);
      expect((await run(env, ["cat", "src/a.txt"], { cwd: env.workdir })).output).toBe("one\ntwo needle\n");
      // No rg in this image: the search walks the workspace through the same operations.
      expect((await call(tools, turn, "grep_files", { pattern: "needle" })).text).toBe("/workspace/src/a.txt");
      await run(env, ["ln", "-s", "/etc", "etc-link"], { cwd: env.workdir });
      const viaLink = await call(tools, turn, "apply_patch", {
        input: "*** Begin Patch\n*** Add File: etc-link/evil\n+x\n*** End Patch",
      });
      expect(viaLink.text).toContain("outside the writable roots");
      await expect(env.files.read("/workspace/src")).rejects.toMatchObject({ code: "EISDIR" });
      await expect(env.files.read("/workspace/missing")).rejects.toMatchObject({ code: "ENOENT" });
      // A write only where it was judged to land: elsewhere is refused before a byte is written.
      await expect(
        env.files.write("/workspace/src/a.txt", "x", { onlyAt: ["/workspace/src/other.txt"] }),
      ).rejects.toMatchObject({ code: "ECHANGED", path: "/workspace/src/a.txt" });
      await env.files.write("/workspace/src/b.txt", "b\n", { onlyAt: ["/workspace/src/b.txt"] });
      expect((await run(env, ["cat", "src/a.txt", "src/b.txt"], { cwd: env.workdir })).output).toBe(
        "one\ntwo needle\nb\n",
      );
      const dest = await scratch.inTmp("remote-bare-dest");
      await env.pull(["src"], dest);
      expect(await readFile(path.join(dest, "src", "a.txt"), "utf8")).toBe("one\ntwo needle\n");
    } finally {
      await tools.close();
    }
  });

  it("a pool over the local and the TLS engine runs 40 turns at once, never more than maxPerHost containers on either", async () => {
    // The same image name on the local engine.
    const local = buildTestImage({ extra: ["node", "rg", "ln"] });
    docker(["tag", local, image]);
    onTestFinished(() => {
      removeTestImage(image);
      removeTestImage(local);
    });
    const engines = { local: {}, remote: engine.env };
    // This process's containers of the image: on the local engine other test files run theirs.
    const ours = ["--filter", `ancestor=${image}`, "--filter", `label=toolcall.pid=${process.pid}`];
    const seen = { local: 0, remote: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const [name, env] of Object.entries(engines) as Array<[keyof typeof engines, Record<string, string>]>) {
          const n = (await dockerAsync(["ps", "-q", ...ours], env)).split("\n").filter(Boolean).length;
          seen[name] = Math.max(seen[name], n);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const maxPerHost = 3;
    const pool = new DockerPool({
      hosts: ["unix:///var/run/docker.sock", { host: engine.host, tlsVerify: true, certPath: engine.certPath }],
      maxPerHost,
      warm: 1,
      environment: { image },
    });
    const seed = await scratch.inTmp("pool-seed");
    await writeFile(path.join(seed, "given.txt"), "given\n");
    const tools = await createToolRouter({ shell: "shell", readFile: true });
    const active: number[][] = [];
    try {
      const turns = Array.from({ length: 40 }, async (_, i) => {
        const env = await pool.acquire({ seed });
        active.push(pool.counts().map((c) => c.active));
        try {
          const turn = createTurnContext({ cwd: env.workdir, environment: env });
          const shell = await call(tools, turn, "shell", {
            command: ["sh", "-c", `cat given.txt; echo turn-${i} > out.txt`],
          });
          expect(shell.text).toContain("given");
          const read = await call(tools, turn, "read_file", { file_path: "/workspace/out.txt" });
          expect(read.text).toContain(`turn-${i}`);
        } finally {
          await env.close();
        }
      });
      await Promise.all(turns);
    } finally {
      sampling = false;
      await sampler;
      await tools.close();
      await pool.close();
    }
    expect(active).toHaveLength(40);
    // Both engines were filled to the limit, and never past it (by the pool's count and the engines' own).
    expect(Math.max(...active.map((a) => a[0]!))).toBe(maxPerHost);
    expect(Math.max(...active.map((a) => a[1]!))).toBe(maxPerHost);
    expect(seen.local).toBeLessThanOrEqual(maxPerHost);
    expect(seen.remote).toBeLessThanOrEqual(maxPerHost);
    expect(seen.local).toBeGreaterThan(0);
    expect(seen.remote).toBeGreaterThan(0);
    expect(pool.counts()).toEqual([
      { host: "unix:///var/run/docker.sock", active: 0, warm: 0 },
      { host: engine.host, active: 0, warm: 0 },
    ]);
    for (const env of Object.values(engines)) {
      await vi.waitFor(
        async () => {
          expect((await dockerAsync(["ps", "-aq", ...ours], env)).trim()).toBe("");
        },
        { timeout: 30_000, interval: 200 },
      );
    }
  });

  it("a host SIGKILLed with its watchdog leaves no container on the remote engine: the lifeline ends it", async () => {
    const child = spawn(process.execPath, ["--import", TSX, FIXTURE, image, engine.host, engine.certPath], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const session = await once(child.stdout, "data").then(([chunk]) => String(chunk).trim());
    expect(containersOf(session, engine.env)).toHaveLength(1);
    // The watchdog's `docker rm` never runs: only the engine's own end of the lifeline is left.
    for (const pid of await watchdogsOf(child.pid!)) process.kill(pid, "SIGKILL");
    child.kill("SIGKILL");
    await once(child, "exit");
    await vi.waitFor(
      () => {
        expect(
          docker(["ps", "-aq", "--filter", `label=toolcall.session=${session}`], undefined, engine.env).trim(),
        ).toBe("");
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(existsSync(engine.dir)).toBe(true);
  });
});

/** `docker ARGS` without blocking the event loop (a sampler runs beside the turns). */
async function dockerAsync(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)("docker", args, { env: { ...process.env, ...env }, timeout: 60_000 });
  return stdout;
}

/** The watchdog processes (src/process/watchdog.ts) the host `pid` started. */
async function watchdogsOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.includes("toolcall-watchdog")) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
  }
  return out;
}
