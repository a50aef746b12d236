import { describe, expect, it } from "vitest";
import { createToolRouter, type ConfiguredToolSpec, type FunctionToolSpec } from "../../../src/index.js";
import { callRouter, useTempDir } from "../toolHarness.js";

/*
 * `yield: "until_idle"` (router option `execIdleYield`): a call returns once the output it is
 * waiting for has gone quiet, not after the whole `yield_time_ms`. Proved by order, not by a
 * clock: the command prints a second line seconds after the first, and a 30 s yield would
 * include it; an early return cannot.
 */
let dir: string;
useTempDir((d) => (dir = d));

const paramsOf = (specs: ConfiguredToolSpec[], name: string): Record<string, unknown> => {
  const spec = specs.map((c) => c.spec).find((s) => s.type === "function" && s.name === name) as FunctionToolSpec;
  return (spec.parameters as { properties: Record<string, unknown> }).properties;
};

describe("exec_command and write_stdin with yield until_idle", () => {
  it("are offered only with the router option execIdleYield", async () => {
    const plain = await createToolRouter({ shell: "unified_exec" });
    const idle = await createToolRouter({ shell: "unified_exec", execIdleYield: true });
    try {
      for (const tool of ["exec_command", "write_stdin"]) {
        expect(paramsOf(plain.specs(), tool)).not.toHaveProperty("yield");
        expect(paramsOf(idle.specs(), tool)).toHaveProperty("yield");
      }
      const refused = await callRouter(plain, "exec_command", { cmd: "true", yield: "until_idle" }, { cwd: dir });
      expect(refused.success).toBe(false);
      expect(refused.text).toMatch(/yield/);
    } finally {
      await Promise.all([plain.close(), idle.close()]);
    }
  });

  it("return once the output has gone quiet, leaving the session running", async () => {
    const router = await createToolRouter({ shell: "unified_exec", execIdleYield: true });
    try {
      const started = await callRouter(
        router,
        "exec_command",
        {
          cmd: "echo ready; read line; echo got $line; sleep 8; echo late",
          tty: true,
          login: false,
          yield: "until_idle",
        },
        { cwd: dir },
      );
      expect(started.text).toContain("ready");
      const id = Number(/session ID (\d+)/.exec(started.text)?.[1]);
      expect(Number.isInteger(id)).toBe(true);

      const answered = await callRouter(
        router,
        "write_stdin",
        { session_id: id, chars: "x\n", yield_time_ms: 30_000, yield: "until_idle" },
        { cwd: dir },
      );
      expect(answered.text).toContain("got x");
      expect(answered.text).not.toContain("late");
      expect(answered.text).toMatch(/Process running with session ID/);

      const opened = await callRouter(
        router,
        "exec_command",
        { cmd: "echo first; sleep 8; echo late", yield_time_ms: 30_000, yield: "until_idle", login: false },
        { cwd: dir },
      );
      expect(opened.text).toContain("first");
      expect(opened.text).not.toContain("late");
      expect(opened.text).toMatch(/Process running with session ID/);
    } finally {
      await router.close();
    }
  });

  it("wait the whole yield while nothing was printed, as Codex", async () => {
    const router = await createToolRouter({ shell: "unified_exec", execIdleYield: true });
    try {
      // Silent at first: the quiet period starts with output, so the call still sees the line.
      const out = await callRouter(
        router,
        "exec_command",
        { cmd: "sleep 0.5; echo after; sleep 8; echo late", yield_time_ms: 30_000, yield: "until_idle", login: false },
        { cwd: dir },
      );
      expect(out.text).toContain("after");
      expect(out.text).not.toContain("late");
    } finally {
      await router.close();
    }
  });
});
