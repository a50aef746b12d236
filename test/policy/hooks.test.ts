import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  blockedCommand,
  Hooks,
  validateHookConfig,
  type HookCallContext,
  type HookConfig,
  type HookMatcher,
} from "../../src/policy/index.js";
import { processAlive, processGroupAlive } from "../../src/process/index.js";
import { texts, type ExecEnvironment } from "../../src/protocol/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { setTimeout as delay } from "node:timers/promises";

let dir: string;
/** The hooks' environment: the tests follow the host's pids of hook processes, which a PID namespace would renumber. */
let groupKill: ExecEnvironment;
let logLines: Array<Record<string, unknown>>;
let logger: Logger;
/** Every pid a hook reported, SIGKILLed after the test in case it failed half-way. */
const seen: number[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hooks-"));
  groupKill = await createExecEnvironment({ cwd: dir, pidNamespace: false });
  logLines = [];
  logger = pino(
    { level: "debug" },
    new Writable({
      write: (chunk, _enc, cb) => {
        logLines.push(JSON.parse(String(chunk)));
        cb();
      },
    }),
  );
});

afterEach(async () => {
  for (const pid of seen.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await rm(dir, { recursive: true, force: true });
});

/** Writes an executable `#!/bin/sh` script into the temp dir and returns its path (quoted for sh). */
async function script(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return `'${file}'`;
}

/** A hook printing `json` on stdout and exiting 0. */
const printing = (name: string, json: unknown): Promise<string> =>
  script(name, `cat > /dev/null\ncat <<'EOF'\n${JSON.stringify(json)}\nEOF`);

const pre = (decision: string, reason?: string, updatedInput?: unknown): unknown => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: decision,
    ...(reason !== undefined && { permissionDecisionReason: reason }),
    ...(updatedInput !== undefined && { updatedInput }),
  },
});

const hooksFor = (event: "PreToolUse" | "PostToolUse", ...matchers: HookMatcher[]): Hooks =>
  Hooks.from({ [event]: matchers });
const cmd = (command: string, timeout?: number) => ({
  type: "command" as const,
  command,
  ...(timeout !== undefined && { timeout }),
});

function call(overrides: Partial<HookCallContext> = {}): HookCallContext {
  return {
    toolName: "shell_command",
    toolInput: { command: "git status" },
    toolUseId: "call_1",
    cwd: dir,
    environment: groupKill,
    signal: new AbortController().signal,
    logger,
    ...overrides,
  };
}

/** Pids a hook wrote, one per line, remembered for cleanup. */
async function pids(file: string): Promise<number[]> {
  const list = (await readFile(file, "utf8")).trim().split(/\s+/).map(Number);
  seen.push(...list);
  return list;
}

/** Polls a file-system condition a hook process brings about; fails instead of hanging. */
async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await delay(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const warnings = (): string[] => logLines.filter((l) => l["level"] === 40).map((l) => String(l["msg"]));

describe("PreToolUse decisions", () => {
  it("reads deny, ask and allow from hookSpecificOutput, with the hook's reason", async () => {
    for (const decision of ["deny", "ask", "allow"] as const) {
      const hooks = hooksFor("PreToolUse", {
        hooks: [cmd(await printing(`${decision}.sh`, pre(decision, "because")))],
      });
      expect(await hooks.runPreToolUse(call())).toEqual({ decision, reason: "because" });
    }
    expect(warnings()).toEqual([]);
  });

  it("takes updatedInput from a hook that rewrites the input", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [cmd(await printing("rewrite.sh", pre("allow", undefined, { command: "git status --short" })))],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({
      decision: "allow",
      updatedInput: { command: "git status --short" },
    });
  });

  it("blocks on exit 2 with the trimmed stderr as the reason, and words the model's text", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [cmd(await script("block.sh", "echo '  no pushes to main  ' >&2\nexit 2"))],
    });
    const result = await hooks.runPreToolUse(call({ toolInput: { command: "git push origin main" } }));
    expect(result).toEqual({ decision: "deny", reason: "no pushes to main" });
    expect(
      texts.preToolUseBlocked(
        result.reason!,
        blockedCommand("shell_command", { command: "git push origin main" }),
        "x",
      ),
    ).toBe("Command blocked by PreToolUse hook: no pushes to main. Command: git push origin main");
  });

  it("gives a deny without a reason a placeholder reason; empty stdout is no opinion", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [cmd(await script("silent2.sh", "exit 2")), cmd(await script("quiet.sh", "exit 0"))],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({ decision: "deny", reason: "no reason given" });
    const quiet = hooksFor("PreToolUse", { hooks: [cmd(await script("quiet0.sh", "exit 0"))] });
    expect(await quiet.runPreToolUse(call())).toEqual({});
  });

  it("accepts Claude Code's older top-level decision (approve/block) so an old deny is not lost", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [cmd(await printing("legacy.sh", { decision: "block", reason: "old style" }))],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({ decision: "deny", reason: "old style" });
  });

  it("a deny wins over allow and ask whatever the config order; the reason is the deciding hook's", async () => {
    const hooks = hooksFor(
      "PreToolUse",
      { hooks: [cmd(await printing("allow.sh", pre("allow", "fine")))] },
      { matcher: "shell_command", hooks: [cmd(await printing("ask.sh", pre("ask", "check")))] },
      { matcher: "*", hooks: [cmd(await printing("deny.sh", pre("deny", "no")))] },
    );
    expect(await hooks.runPreToolUse(call())).toEqual({ decision: "deny", reason: "no" });
    const askOverAllow = hooksFor("PreToolUse", {
      hooks: [cmd(await printing("allow2.sh", pre("allow", "fine"))), cmd(await printing("ask2.sh", pre("ask", "hm")))],
    });
    expect(await askOverAllow.runPreToolUse(call())).toEqual({ decision: "ask", reason: "hm" });
  });

  it("takes updatedInput from the first hook in config order, not the first to finish", async () => {
    // The first hook waits until the second has finished, so completion order is the reverse.
    const first = await script(
      "first.sh",
      `cat > /dev/null
i=0; while [ ! -e '${dir}/second.done' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
echo '${JSON.stringify(pre("allow", undefined, { v: 1 }))}'`,
    );
    const second = await script(
      "second.sh",
      `cat > /dev/null; echo '${JSON.stringify(pre("allow", undefined, { v: 2 }))}'; touch '${dir}/second.done'`,
    );
    const hooks = hooksFor("PreToolUse", { hooks: [cmd(first), cmd(second)] });
    const result = await hooks.runPreToolUse(call());
    expect(existsSync(path.join(dir, "second.done"))).toBe(true);
    expect(result.updatedInput).toEqual({ v: 1 });
  });

  it("runs matching hooks in parallel: each waits for the other's file (a barrier)", async () => {
    const barrier = (me: string, other: string): Promise<string> =>
      script(
        `${me}.sh`,
        `cat > /dev/null; touch '${dir}/${me}'
i=0; while [ ! -e '${dir}/${other}' ]; do i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done
touch '${dir}/${me}.done'`,
      );
    const hooks = hooksFor(
      "PreToolUse",
      { hooks: [cmd(await barrier("a", "b"))] },
      { hooks: [cmd(await barrier("b", "a"))] },
    );
    expect(await hooks.runPreToolUse(call())).toEqual({});
    // Run one after the other, the first would have given up (exit 1) without its `.done`.
    expect(existsSync(path.join(dir, "a.done"))).toBe(true);
    expect(existsSync(path.join(dir, "b.done"))).toBe(true);
    expect(warnings()).toEqual([]);
  });
});

describe("hook input and environment", () => {
  it("writes one JSON object on stdin and runs in the turn's cwd under its environment policy", async () => {
    const echo = await script(
      "echo.sh",
      `cat > '${dir}/stdin.json'; pwd > '${dir}/pwd'; printf '%s' "$HOOK_TEST_VAR" > '${dir}/env'; printf '%s' "$HOOK_TEST_SECRET" > '${dir}/secret'`,
    );
    process.env["HOOK_TEST_SECRET"] = "hunter2";
    const work = await mkdtemp(path.join(dir, "work-"));
    const hooks = Hooks.from({ PreToolUse: [{ hooks: [cmd(echo)] }], PostToolUse: [{ hooks: [cmd(echo)] }] });
    const input = { command: "ls -la", workdir: "sub" };
    await hooks.runPreToolUse(
      call({
        toolInput: input,
        toolUseId: "call_42",
        cwd: work,
        environment: await createExecEnvironment({ cwd: work, env: { set: { HOOK_TEST_VAR: "x y" } } }),
      }),
    );
    delete process.env["HOOK_TEST_SECRET"];
    // The default excludes hide *SECRET*; `set` reaches the hook.
    expect(await readFile(path.join(dir, "secret"), "utf8")).toBe("");
    const stdin = await readFile(path.join(dir, "stdin.json"), "utf8");
    expect(stdin.endsWith("}\n")).toBe(true);
    expect(JSON.parse(stdin)).toEqual({
      session_id: null,
      transcript_path: null,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      cwd: work,
      tool_name: "shell_command",
      tool_input: input,
      tool_use_id: "call_42",
    });
    expect((await readFile(path.join(dir, "pwd"), "utf8")).trim()).toBe(await realpath(work));
    expect(await readFile(path.join(dir, "env"), "utf8")).toBe("x y");

    await hooks.runPostToolUse({ ...call({ toolInput: input }), toolResponse: { output: "total 0", exit_code: 0 } });
    expect(JSON.parse(await readFile(path.join(dir, "stdin.json"), "utf8"))).toEqual({
      session_id: null,
      transcript_path: null,
      permission_mode: "default",
      hook_event_name: "PostToolUse",
      cwd: dir,
      tool_name: "shell_command",
      tool_input: input,
      tool_use_id: "call_1",
      tool_response: { output: "total 0", exit_code: 0 },
    });
  });

  it("uses process.env when no env is given", async () => {
    process.env["HOOK_TEST_INHERITED"] = "inherited";
    try {
      const hooks = hooksFor("PreToolUse", {
        hooks: [cmd(await script("env.sh", `printf '%s' "$HOOK_TEST_INHERITED" > '${dir}/env'`))],
      });
      await hooks.runPreToolUse(call());
      expect(await readFile(path.join(dir, "env"), "utf8")).toBe("inherited");
    } finally {
      delete process.env["HOOK_TEST_INHERITED"];
    }
  });
});

describe("failing hooks are logged and the call goes on", () => {
  it("ignores other exit codes, garbage stdout and wrong shapes, logging each", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [
        cmd(await script("exit1.sh", "echo oops >&2; exit 1")),
        cmd(await script("garbage.sh", "echo 'this is not json'")),
        cmd(await printing("array.sh", ["deny"])),
        cmd(await printing("baddecision.sh", pre("maybe"))),
        cmd(await printing("otherevent.sh", { hookSpecificOutput: { hookEventName: "PostToolUse" } })),
      ],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({});
    const lines = logLines.filter((l) => l["level"] === 40);
    expect(lines.map((l) => l["msg"])).toEqual([
      "hook failed; ignored",
      "hook printed unusable output; ignored",
      "hook printed unusable output; ignored",
      "hook printed unusable output; ignored",
      "hook printed unusable output; ignored",
    ]);
    expect(lines[0]).toMatchObject({ event: "PreToolUse", tool: "shell_command", exitCode: 1, stderr: "oops" });
    expect(lines[1]).toMatchObject({ problem: "stdout is not JSON", stdout: "this is not json\n" });
  });

  it("treats a hook printing more than 1 MiB as garbage, even with exit 2", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [
        cmd(await script("flood.sh", "head -c 2000000 /dev/zero | tr '\\0' a; exit 0")),
        cmd(await script("flood2.sh", "head -c 2000000 /dev/zero | tr '\\0' a >&2; exit 2")),
      ],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({});
    expect(logLines.filter((l) => l["level"] === 40).map((l) => l["stream"])).toEqual(["stdout", "stderr"]);
  });

  it("logs a hook that cannot start (its cwd is gone)", async () => {
    const hooks = hooksFor("PreToolUse", { hooks: [cmd("true")] });
    expect(await hooks.runPreToolUse(call({ cwd: path.join(dir, "missing") }))).toEqual({});
    expect(warnings()).toEqual(["hook could not start; ignored"]);
  });

  it("kills a hook at its timeout, leaving no process behind, and goes on", async () => {
    const slow = await script(
      "slow.sh",
      `sleep 30 & echo $! > '${dir}/pids'; echo $$ >> '${dir}/pids'; cut -d' ' -f5 /proc/$$/stat > '${dir}/pgid'; wait`,
    );
    const hooks = hooksFor("PreToolUse", { hooks: [cmd(slow, 1), cmd(await printing("allow.sh", pre("allow")))] });
    expect(await hooks.runPreToolUse(call())).toEqual({ decision: "allow" });
    const [sleeper, shell] = await pids(path.join(dir, "pids"));
    const pgid = Number(readFileSync(path.join(dir, "pgid"), "utf8"));
    expect(processAlive(sleeper!)).toBe(false);
    expect(processAlive(shell!)).toBe(false);
    expect(processGroupAlive(pgid)).toBe(false);
    expect(logLines.find((l) => l["level"] === 40)).toMatchObject({
      msg: "hook timed out and was killed; ignored",
      timeoutMs: 1000,
    });
  });

  it("kills a hook's background children once it exits", async () => {
    const hooks = hooksFor("PreToolUse", {
      hooks: [cmd(await script("bg.sh", `sleep 30 > /dev/null 2>&1 & echo $! > '${dir}/pids'; exit 0`))],
    });
    expect(await hooks.runPreToolUse(call())).toEqual({});
    const [sleeper] = await pids(path.join(dir, "pids"));
    expect(processAlive(sleeper!)).toBe(false);
  });
});

describe("abort", () => {
  it("kills every running hook's group at once and rejects with the abort reason", async () => {
    const waiting = (name: string): Promise<string> =>
      script(`${name}.sh`, `sleep 30 & echo $! > '${dir}/${name}.pids'; echo $$ >> '${dir}/${name}.pids'; wait`);
    const hooks = Hooks.from({
      PreToolUse: [{ hooks: [cmd(await waiting("one")), cmd(await waiting("two"))] }],
      PostToolUse: [{ hooks: [cmd(await waiting("three"))] }],
    });
    const controller = new AbortController();
    const running = hooks.runPreToolUse(call({ signal: controller.signal }));
    await waitFor(
      () => ["one", "two"].every((n) => existsSync(path.join(dir, `${n}.pids`)) && pidCount(n) === 2),
      "both hooks started",
    );
    const reason = new Error("turn aborted");
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    for (const name of ["one", "two"]) {
      for (const pid of await pids(path.join(dir, `${name}.pids`))) expect(processAlive(pid)).toBe(false);
    }

    const post = new AbortController();
    const posting = hooks.runPostToolUse({ ...call({ signal: post.signal }), toolResponse: "ok" });
    await waitFor(() => existsSync(path.join(dir, "three.pids")) && pidCount("three") === 2, "post hook started");
    post.abort(reason);
    await expect(posting).rejects.toBe(reason);
    for (const pid of await pids(path.join(dir, "three.pids"))) expect(processAlive(pid)).toBe(false);
    expect(warnings()).toEqual([]);
  });

  it("starts nothing when the signal is already aborted", async () => {
    const hooks = hooksFor("PreToolUse", { hooks: [cmd(await script("mark.sh", `touch '${dir}/ran'`))] });
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    await expect(hooks.runPreToolUse(call({ signal: controller.signal }))).rejects.toThrow("gone");
    expect(existsSync(path.join(dir, "ran"))).toBe(false);
  });
});

function pidCount(name: string): number {
  return readFileSync(path.join(dir, `${name}.pids`), "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean).length;
}

describe("matchers", () => {
  it("match the whole tool name; empty, * and absent match every tool", () => {
    const hooks = (matcher?: string): Hooks =>
      Hooks.from({ PreToolUse: [{ ...(matcher !== undefined && { matcher }), hooks: [cmd("true")] }] });
    expect(hooks("shell").hasPre("shell")).toBe(true);
    expect(hooks("shell").hasPre("shell_command")).toBe(false);
    expect(hooks("shell").hasPre("local_shell")).toBe(false);
    expect(hooks("Bash|shell").hasPre("Bash")).toBe(true);
    expect(hooks("Bash|shell").hasPre("shell")).toBe(true);
    expect(hooks("Bash|shell").hasPre("Bashful")).toBe(false);
    expect(hooks("Bash|shell").hasPre("my_shell")).toBe(false);
    expect(hooks("shell.*").hasPre("shell_command")).toBe(true);
    expect(hooks("mcp__github__.*").hasPre("mcp__github__create_issue")).toBe(true);
    for (const all of ["", "*", undefined]) expect(hooks(all).hasPre("anything")).toBe(true);
    expect(hooks("shell").hasPost("shell")).toBe(false);
    expect(Hooks.from({}).hasPre("shell")).toBe(false);
  });

  it("runs nothing for a tool no matcher takes", async () => {
    const hooks = hooksFor("PreToolUse", {
      matcher: "shell",
      hooks: [cmd(await script("mark.sh", `cat > /dev/null; touch '${dir}/ran'`))],
    });
    expect(await hooks.runPreToolUse(call({ toolName: "shell_command" }))).toEqual({});
    expect(existsSync(path.join(dir, "ran"))).toBe(false);
    await hooks.runPreToolUse(call({ toolName: "shell", toolInput: { command: ["ls"] } }));
    expect(existsSync(path.join(dir, "ran"))).toBe(true);
  });

  it("runs a command listed under two matching matchers once", async () => {
    const count = await script("count.sh", `cat > /dev/null; echo x >> '${dir}/count'`);
    const hooks = hooksFor("PreToolUse", { matcher: "shell_command", hooks: [cmd(count)] }, { hooks: [cmd(count)] });
    await hooks.runPreToolUse(call());
    expect(await readFile(path.join(dir, "count"), "utf8")).toBe("x\n");
  });
});

describe("PostToolUse", () => {
  const post = (hooks: Hooks) => hooks.runPostToolUse({ ...call(), toolResponse: { output: "done" } });

  it("blocks on decision block, first reason in config order, and collects additionalContext in order", async () => {
    const hooks = hooksFor(
      "PostToolUse",
      { hooks: [cmd(await printing("ctx1.sh", { hookSpecificOutput: { additionalContext: "lint: 2 warnings" } }))] },
      {
        hooks: [
          cmd(await printing("block1.sh", { decision: "block", reason: "secret in output" })),
          cmd(
            await printing("block2.sh", {
              decision: "block",
              reason: "second",
              hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "more" },
            }),
          ),
        ],
      },
    );
    const result = await post(hooks);
    expect(result).toEqual({ block: { reason: "secret in output" }, additionalContext: ["lint: 2 warnings", "more"] });
    expect(texts.postToolUseBlocked(result.block!.reason)).toBe("secret in output");
  });

  it("blocks on exit 2 with stderr as the reason; an empty reason gets the default text", async () => {
    const hooks = hooksFor("PostToolUse", { hooks: [cmd(await script("b.sh", "echo ' leaked key ' >&2; exit 2"))] });
    expect(await post(hooks)).toEqual({ block: { reason: "leaked key" }, additionalContext: [] });
    const silent = hooksFor("PostToolUse", { hooks: [cmd(await script("s.sh", "exit 2"))] });
    const result = await post(silent);
    expect(result).toEqual({ block: { reason: "" }, additionalContext: [] });
    expect(texts.postToolUseBlocked(result.block!.reason)).toBe("PostToolUse hook blocked the tool result");
  });

  it("logs and ignores anything else", async () => {
    const hooks = hooksFor("PostToolUse", {
      hooks: [
        cmd(await script("e.sh", "exit 3")),
        cmd(await printing("d.sh", { decision: "allow" })),
        cmd(await printing("p.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "x" } })),
        cmd(await script("g.sh", "echo '{'")),
      ],
    });
    expect(await post(hooks)).toEqual({ additionalContext: [] });
    expect(warnings()).toHaveLength(4);
  });
});

describe("blockedCommand", () => {
  it("gives the command string, the quoted argv, or undefined", () => {
    expect(blockedCommand("shell_command", { command: "rm -rf /tmp/x" })).toBe("rm -rf /tmp/x");
    expect(blockedCommand("exec_command", { cmd: "npm test" })).toBe("npm test");
    expect(blockedCommand("shell", { command: ["bash", "-lc", "echo 'hi there'"] })).toBe(`bash -lc "echo 'hi there'"`);
    expect(blockedCommand("local_shell", { command: ["ls", "a b"] })).toBe("ls 'a b'");
    expect(blockedCommand("shell", { command: ["ls", 3] })).toBeUndefined();
    expect(blockedCommand("shell_command", { cmd: "x" })).toBeUndefined();
    expect(blockedCommand("read_file", { file_path: "/x" })).toBeUndefined();
    expect(blockedCommand("shell", "ls")).toBeUndefined();
    expect(texts.preToolUseBlocked("no", blockedCommand("read_file", {}), "read_file")).toBe(
      "Tool call blocked by PreToolUse hook: no. Tool: read_file",
    );
  });
});

describe("validateHookConfig", () => {
  it("accepts the hooks.json shape and returns a clean copy", () => {
    const config: HookConfig = {
      PreToolUse: [{ matcher: "Bash|shell", hooks: [{ type: "command", command: "./check.sh", timeout: 30 }] }],
      PostToolUse: [{ hooks: [{ type: "command", command: "./fmt.sh" }] }],
    };
    expect(validateHookConfig(JSON.parse(JSON.stringify(config)), "hooks")).toEqual(config);
  });

  const bad: Array<[string, unknown, string]> = [
    ["not an object", [], "hooks: expected an object, got array"],
    [
      "unknown event",
      { PreToolUze: [] },
      "hooks: unknown hook event PreToolUze (known: PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionStart, SessionEnd, Notification)",
    ],
    ["event not an array", { PreToolUse: {} }, "hooks.PreToolUse: expected an array, got object"],
    ["unknown matcher key", { PreToolUse: [{ hooks: [], match: "x" }] }, "hooks.PreToolUse[0]: unknown key match"],
    [
      "hooks missing",
      { PreToolUse: [{ matcher: "x" }] },
      "hooks.PreToolUse[0].hooks: expected an array, got undefined",
    ],
    [
      "bad regex",
      { PostToolUse: [{ matcher: "shell(", hooks: [] }] },
      'hooks.PostToolUse[0].matcher: invalid regular expression "shell("',
    ],
    ["matcher type", { PreToolUse: [{ matcher: 3, hooks: [] }] }, "hooks.PreToolUse[0].matcher: expected a string"],
    [
      "prompt hook",
      { PreToolUse: [{ hooks: [{ type: "prompt", prompt: "x" }] }] },
      "hooks.PreToolUse[0].hooks[0]: unknown key prompt",
    ],
    [
      "wrong type",
      { PreToolUse: [{ hooks: [{ type: "agent" }] }] },
      'hooks.PreToolUse[0].hooks[0].type: expected "command" (the only hook type supported), got "agent"',
    ],
    [
      "empty command",
      { PreToolUse: [{ hooks: [{ type: "command", command: " " }] }] },
      "hooks.PreToolUse[0].hooks[0].command: expected a non-empty string",
    ],
    [
      "timeout",
      {
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: "a" },
              { type: "command", command: "b", timeout: 0 },
            ],
          },
        ],
      },
      "hooks.PreToolUse[0].hooks[1].timeout: expected a positive number",
    ],
    [
      "timeout type",
      { PreToolUse: [{ hooks: [{ type: "command", command: "b", timeout: "30" }] }] },
      "hooks.PreToolUse[0].hooks[0].timeout: expected a positive number",
    ],
  ];
  for (const [name, value, message] of bad) {
    it(`rejects ${name}, naming the key path`, () => {
      expect(() => validateHookConfig(value, "hooks")).toThrow(message);
    });
  }

  it("Hooks.from validates a plain-JS caller's config too", () => {
    expect(() => Hooks.from({ PreToolUse: [{ matcher: "[", hooks: [] }] })).toThrow(
      /hooks\.PreToolUse\[0\]\.matcher: invalid regular expression/,
    );
  });
});
