/**
 * startInBwrap (src/sandbox/bwrapStart.ts) hands over a child whose output is all there even
 * when the command ended before its set-up report was read: node resumes a child's pipes as it
 * reports the exit, which dropped a fast command's output when the host reaped it (along with
 * another child's exit) before the report came in (the parity test lost `cat a.txt` under load).
 * The ordering is forced by a launcher standing in for bubblewrap: it runs the sandbox's first
 * program with the report diverted, exits, and a process it leaves passes the report on only
 * once the host has seen that exit (a file this test writes on the child's `exit` event; the
 * launcher's /proc entry going is not enough: the spawner reaps it and tells the host later).
 * Both ways a command starts are run: through the host's spawner and by node's own spawn.
 */
import { writeFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import type * as ProcessModule from "../../src/process/index.js";
import { releaseGroup } from "../../src/process/index.js";
import { startInBwrap } from "../../src/sandbox/bwrapStart.js";

const LATE_REPORT = `#!/bin/sh
# The file the host writes once it has seen this launcher's exit; then up to "--".
seen=$1
while [ "$1" != "--" ]; do shift; done
shift
# The sandbox's first program and its command, the set-up report (descriptor 4) kept back.
"$@" 4>/dev/null
# Reported once the host has seen the exit; its pipes are not this relay's to hold.
(while [ ! -e "$seen" ]; do sleep 0.01; done; printf . >&4) </dev/null >/dev/null 2>&1 &
exit 0
`;

/** Where the launcher of the running test waits for the host to have seen its exit. */
let seenFile = "";

// The real spawnGroup, which writes seenFile as the child's exit reaches the host.
vi.mock("../../src/process/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof ProcessModule>();
  return {
    ...real,
    spawnGroup: async (...args: Parameters<typeof real.spawnGroup>) => {
      const started = await real.spawnGroup(...args);
      const file = seenFile;
      started.child.once("exit", () => {
        writeFileSync(file, "");
      });
      return started;
    },
  };
});

let dir: string;
let launcher: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "bwrap-start-"));
  launcher = path.join(dir, "late-report");
  await writeFile(launcher, LATE_REPORT);
  await chmod(launcher, 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  delete process.env["TOOLCALL_SPAWNER"];
});

it.each(["spawner", "node's spawn"])(
  "keeps what a command printed before its set-up report was read, on stdout and stderr (%s)",
  async (how) => {
    if (how !== "spawner") process.env["TOOLCALL_SPAWNER"] = "off";
    seenFile = path.join(dir, `seen-${how === "spawner" ? "spawner" : "node"}`);
    const started = await startInBwrap(
      () => [launcher, seenFile, "--some-arg"],
      ["/bin/sh", "-c", "printf 'alpha\\n'; printf 'oops\\n' >&2"],
      {
        cwd: dir,
        env: { PATH: "/usr/bin:/bin" },
        stdin: "ignore",
      },
    );
    // The exit came first: node has already resumed the pipes it saw nobody reading.
    expect(started.child.exitCode).toBe(0);
    let stdout = "";
    let stderr = "";
    started.child.stdout?.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    started.child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    await started.closed;
    await releaseGroup(started);
    expect({ stdout, stderr }).toEqual({ stdout: "alpha\n", stderr: "oops\n" });
  },
);
