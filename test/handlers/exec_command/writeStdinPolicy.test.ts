import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ApprovalRequest,
  type ToolRouter,
} from "../../../src/index.js";
import { functionCall, tempDir } from "../toolHarness.js";

/*
 * Typed input is judged (issue 26 item 3, security review S12): a line typed into a shell
 * session with write_stdin is judged as a script with the rules and mode of exec_command;
 * typing into another program is judged as exec_command of that program; "allow for the
 * session" remembers the line's prefix rule, never the bare write_stdin.
 */
let dir: string;
let cleanup: () => Promise<void>;
let router: ToolRouter;
beforeEach(async () => {
  vi.stubEnv("SHELL", "/bin/bash");
  ({ dir, cleanup } = await tempDir());
  router = await createToolRouter({ shell: "unified_exec" });
  writeFileSync(path.join(dir, "V"), "victim\n");
  writeFileSync(path.join(dir, "V2"), "victim\n");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await router.close();
  await cleanup();
});

async function call(engine: PermissionEngine, name: string, args: unknown): Promise<string> {
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }));
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  return (outcome!.item as { output: string }).output;
}

async function start(engine: PermissionEngine, cmd: string): Promise<number> {
  const text = await call(engine, "exec_command", { cmd, tty: true, login: false, yield_time_ms: 300 });
  const id = /session ID (\d+)/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no session: ${text}`);
  return Number(id);
}

/** Types `chars`, then waits until `mark` shows in the session's output. */
async function typeUntil(engine: PermissionEngine, id: number, chars: string, mark: string): Promise<string> {
  let seen = await call(engine, "write_stdin", { session_id: id, chars, yield_time_ms: 300 });
  for (let i = 0; i < 300 && !seen.includes(mark); i++) {
    seen += await call(engine, "write_stdin", { session_id: id, chars: "\n", yield_time_ms: 300 });
  }
  if (!seen.includes(mark)) throw new Error(`never saw ${mark}: ${seen.slice(-1500)}`);
  return seen;
}

describe("write_stdin into a shell session", () => {
  it("a deny rule on any shell tool judges each typed line; the victim survives", async () => {
    const engine = new PermissionEngine({ mode: "bypass", deny: ["shell(rm:*)"] });
    const id = await start(engine, "bash --norc --noprofile");
    const denied = await call(engine, "write_stdin", { session_id: id, chars: "rm V; echo rc=$?\n" });
    expect(denied).toBe('denied by policy: rule "shell(rm:*)" forbids this call');
    // A line split over two calls is judged whole when it ends.
    expect(await call(engine, "write_stdin", { session_id: id, chars: "echo start; r" })).not.toContain("denied");
    expect(await call(engine, "write_stdin", { session_id: id, chars: "m V\n" })).toBe(
      'denied by policy: rule "shell(rm:*)" forbids this call',
    );
    // The pending `echo start; r` runs as its own line (harmless), then a marker.
    await typeUntil(engine, id, '\necho al""ive\n', "alive");
    expect(existsSync(path.join(dir, "V"))).toBe(true);
  }, 120_000);

  it("allow_session remembers the typed line's prefix rule, not write_stdin: a later rm is asked again", async () => {
    const asked: ApprovalRequest[] = [];
    const engine = new PermissionEngine({
      mode: "default",
      approve: async (req) => {
        asked.push(req);
        return req.summary.includes("rm V2") ? { decision: "deny" } : { decision: "allow_session" };
      },
    });
    const id = await start(engine, "bash --norc --noprofile");
    await call(engine, "write_stdin", { session_id: id, chars: "mkdir -p d1\n" });
    const typing = asked.filter((r) => r.toolName === "write_stdin");
    expect(typing[0]?.suggestedRules).toEqual(["exec_command(mkdir:*)"]);
    expect(engine.sessionRules()).toEqual(["exec_command(bash:*)", "exec_command(mkdir:*)"]);
    const denied = await call(engine, "write_stdin", { session_id: id, chars: "rm V2\n" });
    expect(denied).toBe("rejected by user");
    // The remembered rule covers the same kind of line: no new question. Known-safe lines
    // (the marker) are not asked either, as exec_command of them would not be.
    const before = asked.length;
    await call(engine, "write_stdin", { session_id: id, chars: "mkdir -p d2\n" });
    await typeUntil(engine, id, 'echo ma""de\n', "made");
    expect(existsSync(path.join(dir, "d1"))).toBe(true);
    expect(existsSync(path.join(dir, "d2"))).toBe(true);
    expect(existsSync(path.join(dir, "V2"))).toBe(true);
    expect(asked.length).toBe(before);
  });

  it("editing keys make a line unreadable: with a shell deny rule it is asked, never run unasked", async () => {
    const engine = new PermissionEngine({ mode: "bypass", deny: ["shell(rm:*)"] });
    const id = await start(engine, "bash --norc --noprofile");
    // Backspace turns `rmx V` into `rm V` in the terminal; the rules cannot read that.
    const text = await call(engine, "write_stdin", { session_id: id, chars: "rmx\x7f V\n" });
    expect(text).toBe("rejected: this call needs approval and no approver is configured");
    await typeUntil(engine, id, 'echo st""ill\n', "still");
    expect(existsSync(path.join(dir, "V"))).toBe(true);
  }, 120_000);
});

describe("write_stdin into another program", () => {
  it("is judged as exec_command of the session's command", async () => {
    const engine = new PermissionEngine({ mode: "bypass", deny: ["exec_command(python3:*)"] });
    const open = new PermissionEngine({ mode: "bypass" });
    const id = await start(open, "python3 -q");
    const text = await call(engine, "write_stdin", {
      session_id: id,
      chars: "import os; os.remove('V')\n",
    });
    expect(text).toBe('denied by policy: rule "exec_command(python3:*)" forbids this call');
    expect(existsSync(path.join(dir, "V"))).toBe(true);
  });
});
