/**
 * The suite's own guard (test/support/globalSetup.ts): a run in which a test leaves a process
 * behind fails, names the process, and kills it.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collect, processesWith, ROOT, uniqueMarker } from "./cli/helpers.js";

describe("the test run's teardown", () => {
  it("fails a run that leaves a process alive, naming it, and kills it", async () => {
    const marker = uniqueMarker();
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/fixtures/leaky/vitest.config.ts"],
      { cwd: ROOT, env: { ...process.env, LEAK_MARKER: marker, CI: "true" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const result = await collect(child);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(`sleep ${marker}`);
    expect(await processesWith(marker)).toEqual([]);
  });
});
