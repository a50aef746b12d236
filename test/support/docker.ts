/**
 * For the Docker environment's tests and `bench/docker.ts` (DESIGN section 16): a Docker Engine that runs
 * (started here when it does not: root only, `dockerd --iptables=false --bridge=none`, shared by
 * every test file that asks), and a small image made on this machine (no registry is reachable):
 * the host's sh, bash and a few coreutils with their libraries, `docker import`ed.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";

const PROGRAMS = ["sh", "bash", "sleep", "cat", "ls", "env", "hostname", "mkdir", "rm", "true", "wc", "head"];

/** `docker ARGS` (on the engine `env` names: DOCKER_HOST and its TLS variables; default the local one). */
function docker(args: string[], input?: Buffer, env?: Record<string, string>): string {
  return execFileSync("docker", args, {
    encoding: "utf8",
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    timeout: 120_000,
    ...(input !== undefined && { input }),
    ...(env !== undefined && { env: { ...process.env, ...env } }),
  });
}

function engineAnswers(): boolean {
  try {
    docker(["info", "--format", "{{.ServerVersion}}"]);
    return true;
  } catch {
    return false;
  }
}

function which(name: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Starts dockerd when it is not running and this is root; undefined once the engine answers, else why not. */
async function startEngine(): Promise<string | undefined> {
  if (which("docker") === undefined) return "the docker CLI is not installed";
  if (engineAnswers()) return undefined;
  const dockerd = which("dockerd");
  if (dockerd === undefined)
    return "Docker Engine is not running and dockerd is not installed (apt-get install docker.io)";
  if (process.getuid?.() !== 0) return "Docker Engine is not running and starting dockerd needs root";
  // Another test file may be starting it right now: a second dockerd fails on the pid file, harmlessly.
  const log = openSync(path.join(os.tmpdir(), "toolcall-test-dockerd.log"), "a");
  // The engine outlives the run on purpose: it carries no test-run marker (test/support/globalSetup.ts).
  const env = { ...process.env };
  delete env["TOOLCALL_TEST_RUN"];
  const child = spawn(dockerd, ["--iptables=false", "--bridge=none"], {
    detached: true,
    env,
    stdio: ["ignore", log, log],
  });
  child.on("error", () => undefined);
  child.unref();
  for (let i = 0; i < 600; i++) {
    if (engineAnswers()) return undefined;
    await delay(200);
  }
  return `dockerd did not answer within 120 s (log: ${path.join(os.tmpdir(), "toolcall-test-dockerd.log")})`;
}

let problem: Promise<string | undefined> | undefined;

/** Why Docker cannot be used here, or undefined once the engine answers (started on first call). */
export function dockerProblem(): Promise<string | undefined> {
  problem ??= startEngine();
  return problem;
}

/**
 * Builds a ~5 MB image from the host's own programs and their libraries (plus `extra` ones,
 * e.g. node, rg; `shIsBash`: bash as its `sh`), on the engine `env` names; returns its name.
 */
export function buildTestImage(
  opts: { extra?: string[]; env?: Record<string, string>; shIsBash?: boolean } = {},
): string {
  const name = `toolcall-test:${process.pid}-${Date.now()}`;
  const root = mkdtempSync(path.join(os.tmpdir(), "toolcall-rootfs-"));
  try {
    for (const dir of ["usr/bin", "tmp", "etc", "proc", "dev", "sys"])
      mkdirSync(path.join(root, dir), { recursive: true });
    chmodSync(path.join(root, "tmp"), 0o1777);
    symlinkSync("usr/bin", path.join(root, "bin"));
    const binaries = [...PROGRAMS, ...(opts.extra ?? [])].flatMap((p) => {
      const found = which(p);
      return found !== undefined && found.startsWith("/") ? [found] : [];
    });
    for (const bin of binaries) copyFileSync(bin, path.join(root, "usr/bin", path.basename(bin)));
    // Images where `sh` is bash (Fedora, Arch, many slim builds): the host's sh is dash.
    if (opts.shIsBash === true) copyFileSync(path.join(root, "usr/bin/bash"), path.join(root, "usr/bin/sh"));
    const libs = new Set<string>();
    for (const bin of binaries) {
      const ldd = execFileSync("ldd", [bin], { encoding: "utf8" });
      for (const m of ldd.matchAll(/(\/\S+\.so[^\s]*)/g)) if (m[1] !== undefined) libs.add(m[1]);
    }
    for (const lib of libs) {
      mkdirSync(path.join(root, path.dirname(lib)), { recursive: true });
      copyFileSync(lib, path.join(root, lib));
    }
    const tar = execFileSync("tar", ["-C", root, "-c", "."], { maxBuffer: 256 * 1024 * 1024 });
    docker(["import", "-", name], tar, opts.env);
    return name;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Removes every container left of `image` (a test that failed half-way), then the image. */
export function removeTestImage(image: string, env?: Record<string, string>): void {
  const leftovers = docker(["ps", "-aq", "--filter", `ancestor=${image}`], undefined, env)
    .split("\n")
    .filter(Boolean);
  if (leftovers.length > 0) docker(["rm", "-f", ...leftovers], undefined, env);
  docker(["rmi", "-f", image], undefined, env);
}

/** The running containers of one environment (by its session label). */
export function containersOf(session: string, env?: Record<string, string>): string[] {
  return docker(["ps", "-q", "--filter", `label=toolcall.session=${session}`], undefined, env)
    .split("\n")
    .filter(Boolean);
}

/** `docker top` of a container: its process command lines. */
export function processesIn(container: string): string[] {
  return docker(["top", container, "-o", "pid,args"])
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.trim().replace(/^\d+\s+/, ""));
}

export { docker };
