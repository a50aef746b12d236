import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  PermissionEngine,
  ToolCallRuntime,
  createToolRouter,
  createTurnContext,
  type ApprovalRequest,
  type ToolCall,
  type ToolInvocation,
} from "../../../src/index.js";
import { applyPatchToolFactory } from "../../../src/handlers/apply_patch/index.js";
import { interceptApplyPatch, shellToolFactory } from "../../../src/handlers/shell/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";
import { Scratch } from "../../sandbox/helpers.js";
import { callTool, fromFactory, functionCall, patchRun, routerOf, runtimeOf, useTempDir } from "../toolHarness.js";

/*
 * apply_patch run through the shell tools (Codex's interception): `["apply_patch", PATCH]` or a
 * `bash -lc` heredoc is applied as the apply_patch tool applies it, and answered in the
 * command's format. Real files in a temp dir, through the real handlers and runtime.
 */
let dir: string;
useTempDir((d) => (dir = d));
beforeEach(() => {
  vi.stubEnv("SHELL", "/bin/bash"); // shell_command runs `$SHELL -lc`
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const shellTools = fromFactory(shellToolFactory, { shell: "shell" });
const commandTools = fromFactory(shellToolFactory, { shell: "shell_command" });
const patchTool = fromFactory(applyPatchToolFactory, { applyPatch: "function" });

const addFile = (p: string, line = "hello"): string => `*** Begin Patch\n*** Add File: ${p}\n+${line}\n*** End Patch`;
const heredoc = (patch: string, prefix = "", start = "<<'EOF'", end = "EOF"): string =>
  `${prefix}apply_patch ${start}\n${patch}\n${end}`;

/** `Exit code` and `Output` of a shell tool's answer, the wall time checked for shape only. */
function exec(text: string): { exit: number; output: string } {
  const m = /^Exit code: (\d+)\nWall time: \d+\.\d seconds\nOutput:\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`not an exec output: ${JSON.stringify(text)}`);
  return { exit: Number(m[1]), output: m[2] ?? "" };
}

const outputText = (output: unknown): string => (typeof output === "string" ? output : JSON.stringify(output));
const read = (p: string): Promise<string> => readFile(path.join(dir, p), "utf8");

describe("apply_patch run through the shell tools", () => {
  it('applies ["apply_patch", PATCH] in the cwd, answering exit code 0 and the summary, between exec events', async () => {
    const argv = ["apply_patch", addFile("hello.txt")];
    const { runtime, events } = runtimeOf(shellTools, { cwd: dir });
    runtime.submit(functionCall("shell", { command: argv }, "p1"));
    const [outcome] = await runtime.drainOutcomes();
    const text = outcome && "output" in outcome.item ? outputText(outcome.item.output) : "";
    expect(exec(text)).toEqual({ exit: 0, output: "Success. Updated the following files:\nA hello.txt\n" });
    expect(outcome?.success).toBe(true);
    expect(await read("hello.txt")).toBe("hello\n");
    const exe = events.filter((e) => e.type.startsWith("exec_command"));
    expect(exe.map((e) => e.type)).toEqual(["exec_command_begin", "exec_command_output_delta", "exec_command_end"]);
    expect(exe[0]).toMatchObject({ callId: "p1", toolName: "shell", command: argv, cwd: dir });
    expect(exe[1]).toMatchObject({ stream: "stdout", chunk: "Success. Updated the following files:\nA hello.txt\n" });
    expect(exe[2]).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
  });

  it("applies applypatch the same way", async () => {
    const out = await callTool(shellTools, "shell", { command: ["applypatch", addFile("a.txt")] }, { cwd: dir });
    expect(exec(out.text).exit).toBe(0);
    expect(await read("a.txt")).toBe("hello\n");
  });

  it("applies a bash -lc heredoc, updating a file", async () => {
    await writeFile(path.join(dir, "m.txt"), "one\ntwo\n");
    const patch = "*** Begin Patch\n*** Update File: m.txt\n@@\n one\n-two\n+TWO\n*** End Patch";
    const out = await callTool(shellTools, "shell", { command: ["bash", "-lc", heredoc(patch)] }, { cwd: dir });
    expect(exec(out.text)).toEqual({ exit: 0, output: "Success. Updated the following files:\nM m.txt\n" });
    expect(await read("m.txt")).toBe("one\nTWO\n");
  });

  it('applies `cd sub && apply_patch <<"EOF"` through shell_command, relative to sub', async () => {
    await mkdir(path.join(dir, "sub"));
    const command = heredoc(addFile("new.txt"), "cd sub && ", '<<"EOF"');
    const out = await callTool(commandTools, "shell_command", { command }, { cwd: dir });
    expect(exec(out.text)).toEqual({ exit: 0, output: "Success. Updated the following files:\nA new.txt\n" });
    expect(await read("sub/new.txt")).toBe("hello\n");
    expect(existsSync(path.join(dir, "new.txt"))).toBe(false);
  });

  it("places cd DIR under the call's workdir, and reads shell_command with login: false", async () => {
    await mkdir(path.join(dir, "a/b"), { recursive: true });
    const command = heredoc(addFile("x.txt"), "cd 'b' && ");
    const out = await callTool(commandTools, "shell_command", { command, workdir: "a", login: false }, { cwd: dir });
    expect(exec(out.text).exit).toBe(0);
    expect(await read("a/b/x.txt")).toBe("hello\n");
  });

  it("takes an unquoted heredoc's body literally: nothing is expanded", async () => {
    const command = ["bash", "-lc", heredoc(addFile("env.sh", "echo $HOME `id -u`"), "", "<<PATCH", "PATCH")];
    const out = await callTool(shellTools, "shell", { command }, { cwd: dir });
    expect(exec(out.text).exit).toBe(0);
    expect(await read("env.sh")).toBe("echo $HOME `id -u`\n");
  });

  it("answers a local_shell_call in the command's format", async () => {
    // The `local_shell` alias is registered by the composition root.
    const runtime = new ToolCallRuntime(await createToolRouter({ shell: "shell" }), createTurnContext({ cwd: dir }));
    runtime.submit({
      type: "local_shell_call",
      call_id: "l1",
      action: { type: "exec", command: ["bash", "-c", heredoc(addFile("l.txt"))], working_directory: dir },
    });
    const [item] = await runtime.drain();
    expect(item).toMatchObject({ type: "local_shell_call_output", id: "l1" });
    const output = item && "output" in item ? outputText(item.output) : "";
    expect(exec(output)).toEqual({ exit: 0, output: "Success. Updated the following files:\nA l.txt\n" });
    expect(await read("l.txt")).toBe("hello\n");
  });

  it("answers a patch that does not apply with apply_patch's own error, exit code 1, nothing written", async () => {
    await writeFile(path.join(dir, "m.txt"), "one\n");
    // The added file comes first: all or nothing, it is not written either.
    const patch =
      "*** Begin Patch\n*** Add File: first.txt\n+x\n*** Update File: m.txt\n@@\n-nope\n+yes\n*** End Patch";
    const viaTool = await callTool(patchTool, "apply_patch", { input: patch }, { cwd: dir });
    expect(viaTool.success).toBe(false);
    const viaShell = await callTool(shellTools, "shell", { command: ["bash", "-lc", heredoc(patch)] }, { cwd: dir });
    expect(viaShell.success).toBe(false);
    expect(exec(viaShell.text)).toEqual({ exit: 1, output: viaTool.text });
    expect(viaTool.text).toMatch(
      /^apply_patch verification failed: Failed to find expected lines in .*m\.txt:\n-?nope/,
    );
    expect(await read("m.txt")).toBe("one\n");
    expect(existsSync(path.join(dir, "first.txt"))).toBe(false);
  });

  it("answers a patch that does not parse with apply_patch's parse error (also for a file name, as Codex)", async () => {
    const out = await callTool(shellTools, "shell", { command: ["apply_patch", "fix.patch"] }, { cwd: dir });
    expect(exec(out.text)).toEqual({
      exit: 1,
      output: "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'",
    });
    const empty = await callTool(shellTools, "shell", { command: ["bash", "-c", heredoc("")] }, { cwd: dir });
    expect(exec(empty.text).exit).toBe(1);
  });

  it("runs apply_patch exclusively, as the apply_patch tool runs", () => {
    const router = routerOf(shellTools);
    const parallel = (command: string[]): boolean =>
      router.callSupportsParallel(router.buildToolCall(functionCall("shell", { command })) as ToolCall);
    expect(parallel(["apply_patch", addFile("x")])).toBe(false);
    expect(parallel(["bash", "-lc", heredoc(addFile("x"))])).toBe(false);
    expect(parallel(["bash", "-lc", "echo apply_patch"])).toBe(true);
    expect(parallel(["touch", "x"])).toBe(true);
  });
});

describe("commands that are not apply_patch as Codex intercepts it run as they are", () => {
  /** A fake `apply_patch` program first on PATH: what a command that is not intercepted runs. */
  async function withFakeApplyPatch(): Promise<Awaited<ReturnType<typeof createExecEnvironment>>> {
    const bin = path.join(dir, "bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "apply_patch"), '#!/bin/sh\necho "fake apply_patch $*"\ncat\n');
    await chmod(path.join(bin, "apply_patch"), 0o755);
    return createExecEnvironment({ cwd: dir, env: { set: { PATH: `${bin}:${process.env["PATH"] ?? ""}` } } });
  }

  const patch = addFile("never.txt");

  it.each([
    ["apply_patch < file.patch", "apply_patch < fix.patch", `fake apply_patch \n${patch}\n`],
    ["apply_patch FILE", "apply_patch fix.patch", "fake apply_patch fix.patch\n"],
    ["echo x && apply_patch <<EOF", `echo x && ${heredoc(patch, "", "<<EOF")}`, `x\nfake apply_patch \n${patch}\n`],
    ["cat <<EOF", `cat <<EOF\n${patch}\nEOF`, `${patch}\n`],
    ["a command after the heredoc", `${heredoc(patch)}\necho done`, `fake apply_patch \n${patch}\ndone\n`],
  ])("%s", async (_what, script, expected) => {
    const environment = await withFakeApplyPatch();
    await writeFile(path.join(dir, "fix.patch"), `${patch}\n`);
    // bash -c: a login shell's profile may reset PATH.
    const out = await callTool(shellTools, "shell", { command: ["bash", "-c", script] }, { cwd: dir, environment });
    expect(exec(out.text)).toEqual({ exit: 0, output: expected });
    expect(existsSync(path.join(dir, "never.txt"))).toBe(false);
  });
});

describe("interceptApplyPatch: the helper for other command tools", () => {
  const inv = (): ToolInvocation => ({
    callId: "c1",
    toolName: "exec_command",
    payload: { kind: "function", arguments: "{}" },
    args: {},
    signal: new AbortController().signal,
    turn: createTurnContext({ cwd: dir }),
    context: undefined,
  });

  it("applies apply_patch relative to the cwd it is given (and cd DIR), and answers apply_patch's text", async () => {
    await mkdir(path.join(dir, "w/s"), { recursive: true });
    const cwd = path.join(dir, "w");
    const argv = ["/bin/zsh", "-lc", heredoc(addFile("x.txt"), "cd s && ")];
    expect(await interceptApplyPatch(inv(), argv, cwd)).toEqual({
      text: "Success. Updated the following files:\nA x.txt\n",
      answer: patchRun("Success. Updated the following files:\nA x.txt\n"),
      success: true,
      refused: false,
    });
    expect(await read("w/s/x.txt")).toBe("hello\n");
    const refused =
      "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'";
    expect(await interceptApplyPatch(inv(), ["apply_patch", "nope"], cwd)).toEqual({
      text: refused,
      answer: refused,
      success: false,
      refused: true,
    });
  });

  it("is undefined for any other command, which runs as usual", async () => {
    expect(await interceptApplyPatch(inv(), ["bash", "-lc", "ls"], dir)).toBeUndefined();
    expect(await interceptApplyPatch(inv(), ["git", "apply", "x.patch"], dir)).toBeUndefined();
  });
});

describe("apply_patch through the shell under a workspace-write sandbox", () => {
  // The workspace lives outside os.tmpdir(), which is itself a writable root.
  const scratch = new Scratch();
  let work: string;
  let outside: string;
  beforeEach(async () => {
    const base = await scratch.outside("shellpatch");
    work = path.join(base, "work");
    outside = path.join(base, "outside");
    await mkdir(work);
    await mkdir(outside);
  });
  afterEach(() => scratch.cleanup());

  async function shellIn(command: string[], approve?: (req: ApprovalRequest) => void) {
    const environment = await createExecEnvironment({ cwd: work, sandbox: { mode: "workspace-write" } });
    const permissions =
      approve &&
      new PermissionEngine({
        mode: "bypass",
        approve: async (req) => {
          approve(req);
          return { decision: "allow" };
        },
      });
    return callTool(shellTools, "shell", { command }, { cwd: work, environment, ...(permissions && { permissions }) });
  }

  it("writes inside the workspace", async () => {
    const out = await shellIn(["apply_patch", addFile("in.txt")]);
    expect(exec(out.text).exit).toBe(0);
    expect(await readFile(path.join(work, "in.txt"), "utf8")).toBe("hello\n");
  });

  it("refuses a write outside the writable roots before anything is written", async () => {
    const patch = `*** Begin Patch\n*** Add File: in.txt\n+in\n*** Add File: ../outside/x.txt\n+out\n*** End Patch`;
    const out = await shellIn(["apply_patch", patch]);
    expect(exec(out.text)).toEqual({
      exit: 1,
      output: "denied by sandbox: ../outside/x.txt is outside the writable roots",
    });
    expect(out.success).toBe(false);
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
    expect(existsSync(path.join(work, "in.txt"))).toBe(false);
  });

  it("judges the paths relative to cd DIR, as the patch wrote them", async () => {
    const out = await shellIn(["bash", "-lc", heredoc(addFile("outside/x.txt"), "cd .. && ")]);
    expect(exec(out.text)).toEqual({
      exit: 1,
      output: "denied by sandbox: outside/x.txt is outside the writable roots",
    });
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
  });

  it("writes outside on a person's allow of the sandbox_escalation", async () => {
    const asked: ApprovalRequest[] = [];
    const out = await shellIn(["apply_patch", addFile("../outside/x.txt")], (req) => asked.push(req));
    expect(asked).toMatchObject([
      {
        kind: "sandbox_escalation",
        toolName: "shell",
        reason: "../outside/x.txt is outside the writable roots; write it anyway?",
      },
    ]);
    expect(exec(out.text).exit).toBe(0);
    expect(await readFile(path.join(outside, "x.txt"), "utf8")).toBe("hello\n");
  });
});
