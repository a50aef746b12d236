/**
 * Bubblewrap missing under a sandboxing mode (DESIGN section 12): the command is not run and
 * the model reads why; never a silent fallback to no sandbox. PATH is pointed at an empty
 * directory for the duration (bubblewrap is looked up on the host's PATH at each spawn).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createToolRouter, createTurnContext, FunctionCallError, ToolCallRuntime } from "../../src/index.js";
import { createExecEnvironment, runCommand } from "../../src/sandbox/index.js";
import { text } from "../support/harness.js";
import { Scratch } from "./helpers.js";

const UNAVAILABLE = "sandbox unavailable: bubblewrap (bwrap) is not installed; install it or use danger-full-access";
const scratch = new Scratch();
let cwd: string;
let emptyBin: string;
const savedPath = process.env["PATH"];

beforeAll(async () => {
  cwd = await scratch.inTmp("nobwrap");
  emptyBin = await scratch.inTmp("empty-bin");
});
afterAll(() => scratch.cleanup());
beforeEach(() => {
  process.env["PATH"] = emptyBin;
});
afterEach(() => {
  process.env["PATH"] = savedPath;
});

/** A command that leaves `name` behind if it ever runs. */
const leaves = (name: string): string[] => ["/usr/bin/touch", path.join(cwd, name)];

describe("bubblewrap not installed", () => {
  it("runCommand rejects with the model's text and runs nothing, in both sandboxing modes", async () => {
    for (const mode of ["workspace-write", "read-only"] as const) {
      const env = await createExecEnvironment({ cwd, sandbox: { mode } });
      const err = await runCommand(env, { argv: leaves(mode), cwd }, { timeoutMs: 5_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FunctionCallError);
      expect((err as FunctionCallError).kind).toBe("respond_to_model");
      expect((err as Error).message).toBe(UNAVAILABLE);
      expect(existsSync(path.join(cwd, mode))).toBe(false);
    }
  });

  it("the shell tool answers exactly the unavailable text", async () => {
    const env = await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } });
    const runtime = new ToolCallRuntime(
      await createToolRouter({ shell: "shell" }),
      createTurnContext({ cwd, environment: env }),
    );
    runtime.submit({
      type: "function_call",
      call_id: "c1",
      name: "shell",
      arguments: JSON.stringify({ command: leaves("via-shell") }),
    });
    expect((await runtime.drain()).map(text)).toEqual([UNAVAILABLE]);
    expect(existsSync(path.join(cwd, "via-shell"))).toBe(false);
  });

  it("an unsandboxed spawn (an approved escalation) does not need bubblewrap", async () => {
    const env = await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } });
    const result = await runCommand(env, { argv: leaves("unsandboxed"), cwd, sandboxed: false }, { timeoutMs: 5_000 });
    expect(result.exitCode).toBe(0);
    expect(existsSync(path.join(cwd, "unsandboxed"))).toBe(true);
  });
});
