/**
 * `npx tsx bench/dockerRemote.ts [--reps N]`: the Docker environment on a remote engine (DESIGN
 * section 16, "Remote engines"), a second dockerd on 127.0.0.1 with TLS started here
 * (test/support/remoteEngine.ts; root only), the workspace in a volume, next to the local ways:
 *
 * - per command (`true`): a raw `docker exec CONTAINER true` on the TLS engine (the CLI alone,
 *   spawned and awaited), `runCommand` on the remote volume environment, `runCommand` locally
 *   (unconfined spawn); interleaved, medians and the remote / raw ratio (issue 33: within 1.1x);
 * - per file read (a 1 KiB file): the remote environment's `files.read` (the resident helper in
 *   the container, over the exec's stream) next to a raw `docker exec CONTAINER cat FILE`, and
 *   `localFileOps.read` on the host; a remote `files.write` too;
 * - the archive API: seed of a 100-file directory and `pull()` of it back.
 *
 * Measures, asserts nothing.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createDockerEnvironment, createExecEnvironment, type ExecEnvironment } from "../src/index.js";
import { localFileOps, runCommand } from "../src/subpaths/sandbox.js";
import { buildTestImage, dockerProblem } from "../test/support/docker.js";
import { startRemoteEngine } from "../test/support/remoteEngine.js";
import { median, quantile } from "./lib/stats.js";

const args = process.argv.slice(2);
const at = args.indexOf("--reps");
const reps = at >= 0 ? Number(args[at + 1]) : 30;
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/dockerRemote.ts [--reps N]\n");
  process.exit(2);
}
const problem = await dockerProblem();
if (problem !== undefined) {
  process.stderr.write(`bench/dockerRemote: ${problem}\n`);
  process.exit(1);
}

const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;
const line = (name: string, xs: number[]): string =>
  `  ${name.padEnd(44)} median ${fmt(median(xs))}  p95 ${fmt(quantile(xs, 0.95))}  (${xs.length} runs)`;

const engine = await startRemoteEngine();
const root = await mkdtemp(path.join(os.tmpdir(), "bench-docker-remote-"));
try {
  const image = buildTestImage({ extra: ["node"], env: engine.env });
  const remote = await createDockerEnvironment({
    image,
    volume: {},
    docker: { host: engine.host, tlsVerify: true, certPath: engine.certPath },
  });
  const local = await createExecEnvironment({ cwd: root });
  const raw = (argv: string[]): Promise<number> =>
    new Promise((resolve, reject) => {
      const start = performance.now();
      const child = spawn("docker", ["exec", remote.container, ...argv], {
        env: { PATH: process.env["PATH"] ?? "", HOME: os.homedir(), ...engine.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.resume();
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve(performance.now() - start);
        else reject(new Error(`docker exec: exit ${code}: ${stderr}`));
      });
    });
  const timeTrue = async (env: ExecEnvironment, cwd: string): Promise<number> => {
    const start = performance.now();
    const result = await runCommand(env, { argv: ["true"], cwd }, { timeoutMs: 60_000 });
    if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode}`);
    return performance.now() - start;
  };
  const timed = async (fn: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };

  const kib = "x".repeat(1023) + "\n";
  const hostFile = path.join(root, "one-kib.txt");
  await writeFile(hostFile, kib);
  await remote.files.write("/workspace/one-kib.txt", kib); // starts the container and the helper
  for (let i = 0; i < 3; i++) {
    await raw(["sh", "-c", "true"]);
    await timeTrue(remote, remote.workdir);
    await timeTrue(local, root);
    await remote.files.read("/workspace/one-kib.txt");
  }
  const cmd = { raw: [] as number[], remote: [] as number[], local: [] as number[] };
  const file = { remote: [] as number[], rawCat: [] as number[], host: [] as number[], write: [] as number[] };
  for (let i = 0; i < reps; i++) {
    const steps: Array<() => Promise<void>> = [
      async () => void cmd.raw.push(await raw(["sh", "-c", "true"])),
      async () => void cmd.remote.push(await timeTrue(remote, remote.workdir)),
      async () => void cmd.local.push(await timeTrue(local, root)),
      async () => void file.remote.push(await timed(() => remote.files.read("/workspace/one-kib.txt"))),
      async () => void file.rawCat.push(await raw(["cat", "/workspace/one-kib.txt"])),
      async () => void file.host.push(await timed(() => localFileOps.read(hostFile))),
      async () => void file.write.push(await timed(() => remote.files.write("/workspace/w.txt", kib))),
    ];
    // Rotated, so no step always follows the same one.
    for (let k = 0; k < steps.length; k++) await (steps[(i + k) % steps.length] as () => Promise<void>)();
  }

  const tree = path.join(root, "tree");
  for (let d = 0; d < 10; d++) {
    await mkdir(path.join(tree, `d${d}`), { recursive: true });
    for (let f = 0; f < 10; f++) await writeFile(path.join(tree, `d${d}`, `f${f}.txt`), kib);
  }
  const seedMs: number[] = [];
  const pullMs: number[] = [];
  for (let i = 0; i < Math.min(reps, 10); i++) {
    seedMs.push(await timed(() => remote.seed(tree)));
    const dest = await mkdtemp(path.join(root, "pull-"));
    pullMs.push(await timed(() => remote.pull(["."], dest)));
  }
  await remote.close();
  await local.close?.();

  process.stdout.write(
    [
      "per command (true)",
      line("raw `docker exec C sh -c true` (TLS engine)", cmd.raw),
      line("runCommand, remote volume environment", cmd.remote),
      line("runCommand, local (unconfined spawn)", cmd.local),
      `  ratio remote / raw docker exec = ${(median(cmd.remote) / median(cmd.raw)).toFixed(2)}x`,
      "per file read (1 KiB)",
      line("files.read, remote (helper in the container)", file.remote),
      line("raw `docker exec C cat FILE`", file.rawCat),
      line("localFileOps.read on the host", file.host),
      line("files.write, remote (helper)", file.write),
      "archive API (100 files of 1 KiB in 10 directories)",
      line("seed (tar | docker cp -)", seedMs),
      line("pull (docker cp C:. - | untar)", pullMs),
      "",
    ].join("\n"),
  );
} finally {
  await engine.stop();
  await rm(root, { recursive: true, force: true });
}
