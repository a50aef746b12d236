/**
 * A command's stdin through the spawner: the host writes to a pipe whose handle the spawner
 * passed over, then ends or closes it, and the command must see that end (no copy of the write
 * end may stay open in the spawner or elsewhere). Many readers at once and one after another, a few KB
 * to 2 MB each, every one ends with all its bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { releaseGroup, spawnGroup, type GroupChild } from "../../src/process/index.js";
import { spawnerPid } from "../../src/process/spawner.js";

const PATH = process.env["PATH"] ?? "";
const N = 50;
/** Sizes fed, by command index: from 3 KB to 2 MB. */
const sizeOf = (i: number): number => [3_000, 64_000, 300_000, 2_000_000][i % 4]!;

let dir: string;
/** A tar holding one file `payload` of 200 KB. */
let archive: Buffer;
const payload = Buffer.alloc(200_000, "p");
const started: GroupChild[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-spawner-stdin-"));
  const src = path.join(dir, "src");
  await mkdir(src);
  await writeFile(path.join(src, "payload"), payload);
  archive = execFileSync("tar", ["-C", src, "-c", "-f", "-", "payload"], { maxBuffer: 1 << 24 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  // A command still waiting for its stdin's end (the failure this file is about) is killed.
  await Promise.all(started.splice(0).map(releaseGroup));
});

function text(stream: NodeJS.ReadableStream | null): Promise<string> {
  let out = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (s: string) => (out += s));
  return new Promise((resolve) =>
    stream?.once("end", () => {
      resolve(out);
    }),
  );
}

/** Feeds command `i` its input, ends its stdin, and returns what proves it saw all of it and the end. */
async function feed(i: number): Promise<{ exit: unknown; got: string; want: string }> {
  const kind = i % 3;
  const size = sizeOf(i);
  const into = path.join(dir, `x${i}`);
  if (kind === 2) await mkdir(into);
  const [program, args] =
    kind === 0 ? ["wc", ["-c"]] : kind === 1 ? ["sh", ["-c", "cat | wc -c"]] : ["tar", ["-x", "-f", "-", "-C", into]];
  const g = await spawnGroup(program, args, { cwd: dir, env: { PATH }, stdio: ["pipe", "pipe", "pipe"] });
  started.push(g);
  const out = text(g.child.stdout);
  const input = kind === 2 ? archive : Buffer.alloc(size, i % 256);
  // Half end with a shutdown (seen even through a stray copy of the write end), half by closing
  // the pipe once written: the command sees that end only when no other copy is open anywhere.
  if (i % 2 === 0) g.child.stdin?.end(input);
  else g.child.stdin?.write(input, () => g.child.stdin?.destroy());
  const exit = await g.exited;
  const got = kind === 2 ? String((await readFile(path.join(into, "payload"))).equals(payload)) : (await out).trim();
  return { exit, got, want: kind === 2 ? "true" : String(size) };
}

describe("stdin through the spawner", () => {
  it(`${N} readers at once each see all their input and its end`, async () => {
    const runs = await Promise.all(Array.from({ length: N }, (_, i) => feed(i)));
    expect(spawnerPid()).toBeDefined();
    for (const run of runs) expect(run).toEqual({ exit: { code: 0, signal: null }, got: run.want, want: run.want });
  });

  it(`${N} readers one after another each see all their input and its end`, async () => {
    for (let i = 0; i < N; i++) {
      const run = await feed(N + i);
      expect(run).toEqual({ exit: { code: 0, signal: null }, got: run.want, want: run.want });
    }
  });
});
