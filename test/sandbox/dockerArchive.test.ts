/**
 * Seeding a container's workspace through `docker cp -` (dockerArchive.ts): the host's `tar`
 * piped into the CLI's stdin. The engine is not the point here, the stream is: a stand-in
 * `docker` (a shell script) unpacks what `cp -` reads into the directory it is given as the
 * container's, with the real `tar`. The real engine's version is dockerRemote.test.ts.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerCli } from "../../src/sandbox/dockerCli.js";
import { putArchive, seedContainer } from "../../src/sandbox/dockerArchive.js";
import { Scratch } from "./helpers.js";

const scratch = new Scratch();
let cli: DockerCli;
let bin: string;

/**
 * `docker cp - CONTAINER:DIR`: unpacks its stdin into DIR (a host directory) with `tar -x`, as
 * slowly as a busy engine: one read, then a pause, so what tar wrote before it exited stays in
 * the pipes for a while. Gives up after a minute (a CLI waiting for the end of its stdin for good).
 */
const fakeDocker = (): string => `#!${process.execPath}
const [cmd, dash, target = ""] = process.argv.slice(2);
if (cmd !== "cp" || dash !== "-") {
  process.stderr.write("unexpected: docker " + process.argv.slice(2).join(" ") + "\\n");
  process.exit(2);
}
const tar = require("node:child_process").spawn("tar", ["-x", "-f", "-", "-C", target.slice(target.indexOf(":") + 1)], {
  stdio: ["pipe", "inherit", "inherit"],
});
tar.stdin.on("error", () => {});
tar.on("exit", (code) => process.exit(code ?? 1));
setTimeout(() => process.exit(124), 60_000).unref();
process.stdin.on("data", (chunk) => {
  tar.stdin.write(chunk);
  process.stdin.pause();
  setTimeout(() => process.stdin.resume(), 50);
});
process.stdin.on("end", () => tar.stdin.end());
`;

beforeAll(async () => {
  bin = await scratch.inTmp("fake-docker");
  await writeFile(path.join(bin, "docker"), fakeDocker());
  await chmod(path.join(bin, "docker"), 0o755);
  const saved = process.env["PATH"];
  process.env["PATH"] = `${bin}:${saved ?? ""}`;
  try {
    cli = await DockerCli.find();
  } finally {
    process.env["PATH"] = saved;
  }
});
afterAll(async () => {
  await scratch.cleanup();
});

/** Every file under `dir` (relative path -> content). */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const full = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, full)] = await readFile(full, "latin1");
    }
  }
  return out;
}

describe("the archive stream into docker cp", () => {
  it("seeds the whole tree when the CLI is still reading after tar has ended", async () => {
    const seed = await scratch.inTmp("seed");
    await mkdir(path.join(seed, "src"));
    await writeFile(path.join(seed, "src", "app.txt"), "alpha\nbeta\n");
    // More than the pipes hold: tar ends while the CLI has a good part still to read.
    await writeFile(path.join(seed, "data.bin"), Buffer.alloc(2_000_000, "x"));
    const into = await scratch.inTmp("container");
    await seedContainer(cli, "box", seed, into);
    expect(await tree(into)).toEqual(await tree(seed));
  });

  it("a source that breaks off ends the CLI's stdin and fails, it does not wait for an end for good", async () => {
    const big = await scratch.inTmp("big");
    await writeFile(path.join(big, "big.bin"), Buffer.alloc(1_000_000, "y"));
    const archive = execFileSync("tar", ["-C", big, "-c", "-f", "-", "."], { maxBuffer: 4_000_000 });
    const into = await scratch.inTmp("broken");
    const source = new Readable({
      read() {
        this.push(archive.subarray(0, 300_000));
        this.destroy(new Error("the disk went away"));
      },
    });
    await expect(putArchive(cli, "box", into, source)).rejects.toThrow(
      /docker cp into the container failed: tar: Unexpected EOF|the archive for docker cp broke off/,
    );
  });
});
