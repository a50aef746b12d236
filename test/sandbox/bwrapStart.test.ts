/**
 * startInBwrap (src/sandbox/bwrapStart.ts) hands over a child whose output is all there even
 * when the command ended before its set-up report was read: node resumes a child's pipes as it
 * reports the exit, which dropped a fast command's output when the host reaped it (along with
 * another child's exit) before the report came in (the parity test lost `cat a.txt` under load).
 * The ordering is forced by a launcher standing in for bubblewrap: it runs the sandbox's first
 * program with the report diverted, exits, and a process it leaves passes the report on only
 * once the host has reaped it (its /proc entry gone: the exit was delivered).
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { releaseGroup } from "../../src/process/index.js";
import { startInBwrap } from "../../src/sandbox/bwrapStart.js";

const LATE_REPORT = `#!/bin/sh
# Skip the launcher's own arguments, up to "--".
while [ "$1" != "--" ]; do shift; done
shift
# The sandbox's first program and its command, the set-up report (descriptor 4) kept back.
"$@" 4>/dev/null
launcher=$$
# Reported once the host has reaped this launcher; its pipes are not this relay's to hold.
(while [ -e /proc/$launcher ]; do sleep 0.01; done; printf . >&4) </dev/null >/dev/null 2>&1 &
exit 0
`;

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

it("keeps what a command printed before its set-up report was read, on stdout and stderr", async () => {
  const started = await startInBwrap(
    () => [launcher, "--some-arg"],
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
});
