/**
 * An `exec_command` aborted while its process was still starting (a spawn is a round trip to the
 * spawner): the read that follows must end at once and its process be killed, not wait out the
 * yield with the abort's event already past.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ExecSession } from "../../../src/handlers/exec_command/session.js";
import { processAlive } from "../../../src/process/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-aborted-read-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// The ceiling only ends the failing case (a read that waits out a yield of ~25 days).
it(
  "a read whose call was aborted before it began ends at once; the process is killed",
  { timeout: 120_000 },
  async () => {
    const env = await createExecEnvironment({ cwd: dir, pidNamespace: false });
    const proc = await env.spawn({ argv: ["sleep", "600"], cwd: dir });
    const session = new ExecSession(1, proc, false);
    const controller = new AbortController();
    controller.abort();
    try {
      await expect(session.read(2 ** 31 - 1, controller.signal, 1_000)).rejects.toThrow(/abort/i);
      // It ended by the abort, not by its process.
      expect(session.exited).toBe(false);
    } finally {
      await session.kill();
    }
    expect(proc.pid).toBeDefined();
    expect(processAlive(proc.pid!)).toBe(false);
  },
);
