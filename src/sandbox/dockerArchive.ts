import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { findExecutable, releaseGroup, spawnGroup, type GroupChild } from "../process/index.js";
import type { DockerCli } from "./dockerCli.js";
import { untar, type UntarResult } from "./tar.js";

/*
 * The engine's archive API (`PUT`/`GET /containers/{id}/archive`, through `docker cp` with a tar
 * stream on its stdin or stdout): how a workspace that lives in a container (a volume on a
 * remote engine) is seeded from a host directory and copied back. Nothing of the host is
 * mounted; the engine sees bytes only.
 */

/** A pull larger than this is refused (the archive is held in memory while it is checked). */
const MAX_PULL_BYTES = 1024 * 1024 * 1024;
const STDERR_CAP = 4 * 1024;

/** Resolves when the group ended with 0; rejects with its stderr otherwise. */
async function finished(started: GroupChild, what: string, stderr: () => string): Promise<void> {
  const { code, signal } = await started.exited;
  await releaseGroup(started);
  if (code !== 0) throw new Error(`${what} failed: ${stderr().trim() || (signal ?? `exit code ${String(code)}`)}`);
}

function collectStderr(started: GroupChild): () => string {
  let text = "";
  started.child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    if (text.length < STDERR_CAP) text += s;
  });
  return () => text;
}

/** `docker cp - CONTAINER:TO`: the tar stream `source` unpacked into the container's existing directory `to`. */
export async function putArchive(
  cli: DockerCli,
  container: string,
  to: string,
  source: Readable | Buffer,
): Promise<void> {
  const cp = await spawnGroup(cli.binary, ["cp", "-", `${container}:${to}`], {
    cwd: "/",
    env: cli.env,
    stdio: ["pipe", "ignore", "pipe"],
    forwardHostSignals: false,
  });
  const stdin = cp.child.stdin;
  stdin?.on("error", () => undefined); // a CLI that failed early: its exit says why
  let fed: Promise<Error | undefined> = Promise.resolve(undefined);
  if (Buffer.isBuffer(source)) stdin?.end(source);
  // Not `pipe`: a source that breaks off would leave the CLI's stdin open, and the CLI waiting
  // for its end for good; `pipeline` closes it (the CLI ends) and says why.
  else if (stdin)
    fed = pipeline(source, stdin).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
  await finished(cp, "docker cp into the container", collectStderr(cp));
  const broken = await fed;
  if (broken) throw new Error(`the archive for docker cp broke off: ${broken.message}`);
}

/**
 * Copies the host directory `from` (its contents, symlinks as links) into the container's
 * existing directory `to`, through the host's `tar` and `docker cp -`.
 */
export async function seedContainer(cli: DockerCli, container: string, from: string, to: string): Promise<void> {
  const st = await stat(from).catch(() => undefined);
  if (!st?.isDirectory()) throw new Error(`the seed is not a directory: ${from}`);
  const tarBin = await findExecutable("tar", process.env["PATH"]);
  if (tarBin === null) throw new Error("seeding a container's workspace needs tar on the host's PATH");
  const tar = await spawnGroup(tarBin, ["-C", from, "--numeric-owner", "-c", "-f", "-", "."], {
    cwd: "/",
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
    forwardHostSignals: false,
  });
  const tarErr = collectStderr(tar);
  // tar is released (its stdout closed) only once `docker cp` has read that stdout to its end:
  // tar exits as soon as its archive fits in the pipes, often before `docker cp` has started (a
  // spawn is a round trip to the spawner) or read much. Released then, the archive's tail was
  // dropped unread and `docker cp` waited for the end of its stdin for good.
  try {
    await putArchive(cli, container, to, tar.child.stdout ?? Readable.from([]));
  } catch (err) {
    await releaseGroup(tar);
    throw err;
  }
  await finished(tar, `tar of ${from}`, tarErr);
}

/** The tar stream `docker cp CONTAINER:SOURCE -` writes, whole, up to MAX_PULL_BYTES. */
async function archiveOf(cli: DockerCli, container: string, source: string): Promise<Buffer> {
  const cp = await spawnGroup(cli.binary, ["cp", `${container}:${source}`, "-"], {
    cwd: "/",
    env: cli.env,
    stdio: ["ignore", "pipe", "pipe"],
    forwardHostSignals: false,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  cp.child.stdout?.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_PULL_BYTES) {
      tooBig = true;
      cp.child.kill("SIGKILL");
      return;
    }
    chunks.push(chunk);
  });
  const err = collectStderr(cp);
  try {
    await finished(cp, `docker cp of ${source}`, err);
  } catch (e) {
    if (tooBig) throw new Error(`${source} is larger than ${MAX_PULL_BYTES} bytes: pull smaller parts`);
    throw e;
  }
  return Buffer.concat(chunks, size);
}

/**
 * Copies `source` (absolute, in the container) to the same place under the host directory
 * `dest` (`root/a/b` lands at `dest/a/b` for `root`), through `docker cp CONTAINER:SOURCE -`
 * and a careful unpacking (tar.ts).
 */
export async function pullFromContainer(
  cli: DockerCli,
  container: string,
  root: string,
  source: string,
  dest: string,
): Promise<UntarResult> {
  const rel = path.posix.relative(root, source);
  // The archive of `dir/.` holds the directory's contents; of `dir/file`, `file` itself.
  const whole = rel === "";
  const archive = await archiveOf(cli, container, whole ? `${root}/.` : source);
  const under = whole || path.posix.dirname(rel) === "." ? "" : path.posix.dirname(rel);
  return untar(archive, dest, under);
}
