/**
 * A regular file of the host's as a child's stdio entry (`{ readOnlyFile: fd }`, what the standby
 * bubblewrap's request file is): opened anew, read-only, so the spawner can start such a child
 * too and the host forks nothing per command (issue 31). Both ways a command starts are run:
 * through the host's spawner and by node's own spawn (`TOOLCALL_SPAWNER=off`).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { releaseGroup, spawnGroup, type GroupChild } from "../../src/process/index.js";
import { spawnerPid } from "../../src/process/spawner.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "stdio-files-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env["TOOLCALL_SPAWNER"];
});

/** Runs `script` with the descriptor `file` as its fd 3; its stdout and exit code. */
async function withFile(
  script: string,
  file: number,
): Promise<{ started: GroupChild; out: string; code: number | null }> {
  const started = await spawnGroup("sh", ["-c", script], {
    cwd: dir,
    env: { PATH: process.env["PATH"] ?? "" },
    stdio: ["ignore", "pipe", "pipe", { readOnlyFile: file }],
  });
  let out = "";
  started.child.stdout?.setEncoding("utf8").on("data", (s: string) => (out += s));
  const { code } = await started.exited;
  await started.closed;
  await releaseGroup(started);
  return { started, out, code };
}

/** The parent of `pid`, from /proc (read while it runs). */
const parentOf = (pid: number): number =>
  Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);

for (const way of ["spawner", "direct"] as const) {
  describe(`a host file as stdio (${way})`, () => {
    it("gives the child the file's content from its start, read-only, even once it is unlinked", async () => {
      if (way === "direct") process.env["TOOLCALL_SPAWNER"] = "off";
      const name = path.join(dir, `request-${way}`);
      const fd = openSync(name, "wx+", 0o600);
      try {
        unlinkSync(name);
        writeSync(fd, "the request\n", 0);
        // The host's offset is past the text: the child's own starts at 0.
        const { out, code } = await withFile("cat <&3; (echo more >&3) 2>/dev/null || echo read-only", fd);
        expect({ out, code }).toEqual({ out: "the request\nread-only\n", code: 0 });
      } finally {
        closeSync(fd);
      }
    });

    it("is forked by the spawner, not the host", async () => {
      if (way === "direct") process.env["TOOLCALL_SPAWNER"] = "off";
      const name = path.join(dir, `parent-${way}`);
      const fd = openSync(name, "wx+", 0o600);
      try {
        const started = await spawnGroup("sh", ["-c", "read -r line <&3; echo $line; read -r _"], {
          cwd: dir,
          env: { PATH: process.env["PATH"] ?? "" },
          stdio: ["pipe", "pipe", "pipe", { readOnlyFile: fd }],
        });
        const parent = parentOf(started.pgid);
        started.child.stdin?.end("\n");
        await started.exited;
        await releaseGroup(started);
        expect(parent).toBe(way === "spawner" ? spawnerPid() : process.pid);
      } finally {
        closeSync(fd);
        unlinkSync(name);
      }
    });

    it("refuses a descriptor that is not a regular file, naming it, and starts nothing", async () => {
      if (way === "direct") process.env["TOOLCALL_SPAWNER"] = "off";
      // A pipe of the host's: the read end of a child's stdout.
      const other = await spawnGroup("sleep", ["30"], {
        cwd: dir,
        env: process.env,
        stdio: ["ignore", "pipe", "ignore"],
      });
      const pipeFd = (other.child.stdout as unknown as { _handle: { fd: number } })._handle.fd;
      try {
        await expect(withFile("echo ran", pipeFd)).rejects.toThrow(`stdio descriptor ${pipeFd} is not a regular file`);
      } finally {
        await releaseGroup(other);
      }
    });
  });
}
