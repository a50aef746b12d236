/**
 * Host mounts that come and go while bubblewrap sets up (a Docker engine starting and ending
 * containers: their overlays) must not fail sandboxed commands. bubblewrap binds the host's tree
 * recursively and then remounts every submount it read; one removed in between failed the whole
 * set-up ("Can't bind mount /oldroot/ ...: remount ...: No such file or directory"). The churn
 * runs in a mount namespace of its own (fixtures/mountChurnHost.ts under `unshare`), so it
 * disturbs no other test.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { findExecutable } from "../../src/process/index.js";
import { TSX } from "../cli/helpers.js";
import { describeRequiring, Scratch } from "./helpers.js";

const HOST = fileURLToPath(new URL("fixtures/mountChurnHost.ts", import.meta.url));
const UNSHARE = await findExecutable("unshare", process.env["PATH"]);
const BWRAP = await findExecutable("bwrap", process.env["PATH"]);
const problem =
  BWRAP === null
    ? "bubblewrap (bwrap) is not installed"
    : UNSHARE === null
      ? "unshare (util-linux) is not installed"
      : process.getuid?.() !== 0
        ? "mounting file systems needs root"
        : undefined;

const scratch = new Scratch();

describeRequiring(problem, "sandboxed commands while host mounts come and go", () => {
  afterAll(() => scratch.cleanup());

  it("every command runs (fresh, standby, the resident helper) though raw bubblewrap set-ups fail beside them", async () => {
    const dir = await scratch.inTmp("mount-churn");
    const workspace = path.join(dir, "ws");
    await mkdir(workspace);
    const child = spawn(
      UNSHARE as string,
      ["--mount", "--propagation", "private", process.execPath, "--import", TSX, HOST, dir, workspace, "250", "10"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code, out).toBe(0);
    const report = JSON.parse(out) as { raw: { runs: number; failures: number }; failed: string[]; ran: number };
    // The churn is real: bubblewrap run by hand beside the commands failed its set-up.
    expect(report.raw.failures, JSON.stringify(report.raw)).toBeGreaterThan(0);
    expect(report.ran).toBe(50);
    expect(report.failed).toEqual([]);
    // Nothing of the churn reached this namespace.
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(dir);
  });
});
