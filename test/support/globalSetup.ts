/**
 * The whole run's set-up and teardown (vitest `globalSetup`). Every process the tests start
 * inherits `TOOLCALL_TEST_RUN`, a marker unique to this run; at the end, any live process still
 * carrying it outlived its test. The teardown kills them (so a failed run leaves nothing behind)
 * and fails the run, naming each one: a leak found at the end is a bug in a test or in the code.
 *
 * A process started with an environment of its own (no marker) is not seen here; the tests
 * that start such processes check for their own survivors by command line.
 */
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";

const MARKER = "TOOLCALL_TEST_RUN";

/** Live processes, other than this one, whose environment carries `marker=value`. */
async function marked(value: string): Promise<Array<{ pid: number; cmdline: string }>> {
  const needle = `${MARKER}=${value}`;
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (!environ.split("\0").includes(needle)) continue;
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    if (/^State:\s+Z/m.test(status)) continue; // a zombie is dead; its parent reaps it
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0").join(" ").trim();
    found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

export default function setup(): () => Promise<void> {
  const run = randomUUID();
  process.env[MARKER] = run;
  return async () => {
    if (process.platform !== "linux") return;
    // Processes killed by the last tests' own clean-up may take a moment to go.
    let left = await marked(run);
    for (let waited = 0; left.length > 0 && waited < 5_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await marked(run);
    }
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    // vitest reports an error thrown here but still exits 0: set the exit code as well.
    process.exitCode = 1;
    throw new Error(
      `${left.length} process(es) started by the tests outlived them (killed now):\n` +
        left.map(({ pid, cmdline }) => `  ${pid}: ${cmdline.slice(0, 200)}`).join("\n"),
    );
  };
}
