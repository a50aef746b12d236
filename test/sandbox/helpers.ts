/**
 * Shared by the sandbox tests (DESIGN section 12): whether bubblewrap can run here, scratch
 * directories (one family under os.tmpdir(), one outside it: os.tmpdir() is a writable root),
 * and running a command to its end with its output.
 */
import { execFileSync } from "node:child_process";
import { access, constants, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { ShellHandler } from "../../src/subpaths/handlers.js";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ApprovalDecision,
  type ApprovalRequest,
  type PermissionPolicy,
  type ToolEvent,
  type ToolInvocation,
  type ToolOutput,
  type ToolRouter,
  type ToolsConfig,
} from "../../src/index.js";
import { findExecutable } from "../../src/process/index.js";
import type { ExecEnvironment } from "../../src/protocol/index.js";
import { createExecEnvironment, runCommand } from "../../src/sandbox/index.js";
import { ROOT } from "../cli/helpers.js";
import { text } from "../support/harness.js";

const BWRAP = await findExecutable("bwrap", process.env["PATH"]);

function bwrapWorks(bwrap: string): boolean {
  try {
    execFileSync(bwrap, ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--", "true"], {
      stdio: "ignore",
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}

/** Why the tests that need bubblewrap cannot run here, or undefined when they can. */
const BWRAP_PROBLEM: string | undefined =
  BWRAP === null
    ? "bubblewrap (bwrap) is not installed"
    : bwrapWorks(BWRAP)
      ? undefined
      : `${BWRAP} cannot create its namespaces here`;

/**
 * A suite of tests that need something of the machine (`problem`: why it cannot run here, or
 * undefined when it can). Without it the suite is skipped, the reason in its name; under
 * `CI=true` it runs and fails instead (CI installs what they need: a skip there would hide a
 * feature nobody tested).
 */
export function describeRequiring(problem: string | undefined, name: string, body: () => void): void {
  if (problem === undefined) {
    describe(name, body);
  } else if (process.env["CI"] === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${problem}: under CI=true these tests must run, not skip`);
      });
      body();
    });
  } else {
    // Outside CI only, on a machine without what the suite needs; the suite name says why.
    describe.skip(`${name} [skipped: ${problem}]`, body);
  }
}

/** A suite of tests that need a working bubblewrap (see describeRequiring). */
export function describeSandbox(name: string, body: () => void): void {
  describeRequiring(BWRAP_PROBLEM, name, body);
}

const isWithin = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

/**
 * A base for directories outside every default writable root: /var/tmp, or the repository
 * when /var/tmp is missing, read-only, or is itself os.tmpdir().
 */
async function outsideBase(): Promise<string> {
  const tmp = await realpath(os.tmpdir());
  for (const candidate of ["/var/tmp", ROOT]) {
    try {
      const real = await realpath(candidate);
      await access(real, constants.W_OK);
      if (!isWithin(tmp, real) && !isWithin(real, tmp)) return real;
    } catch {
      // try the next
    }
  }
  throw new Error("no writable directory outside os.tmpdir() for the sandbox tests");
}

/** Scratch directories, all removed by `cleanup()`. Real paths. */
export class Scratch {
  private readonly dirs: string[] = [];

  /** A new directory under os.tmpdir() (a writable root of every workspace-write environment). */
  async inTmp(prefix: string): Promise<string> {
    return this.keep(await realpath(await mkdtemp(path.join(os.tmpdir(), `sbtest-${prefix}-`))));
  }

  /** A new directory outside os.tmpdir(): no root unless a test makes it one. */
  async outside(prefix: string): Promise<string> {
    return this.keep(await mkdtemp(path.join(await outsideBase(), `sbtest-${prefix}-`)));
  }

  private keep(dir: string): string {
    this.dirs.push(dir);
    return dir;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  }
}

/** Runs `argv` in `env` to its end: exit code and the output of both streams, interleaved. */
export async function run(
  env: ExecEnvironment,
  argv: string[],
  opts: { cwd: string; sandboxed?: boolean },
): Promise<{ exitCode: number; output: string }> {
  let output = "";
  const result = await runCommand(
    env,
    { argv, cwd: opts.cwd, ...(opts.sandboxed !== undefined && { sandboxed: opts.sandboxed }) },
    { timeoutMs: 15_000, killGraceMs: 200, onOutput: (_stream, chunk) => (output += chunk.toString("utf8")) },
  );
  return { exitCode: result.exitCode, output };
}

const shell = new ShellHandler({ timeoutMs: 15_000, killGraceMs: 200 });

/** The shell handler, called directly (no policy stage), in a turn on `env`. */
export async function shellIn(env: ExecEnvironment, cwd: string, argv: string[]): Promise<string> {
  const args = { command: argv };
  const inv: ToolInvocation = {
    callId: "call-1",
    toolName: "shell",
    payload: { kind: "function", arguments: JSON.stringify(args) },
    args,
    signal: new AbortController().signal,
    // Room for a CI machine's whole environment in `env` output.
    turn: createTurnContext({ cwd, environment: env, truncationPolicy: { mode: "bytes", limit: 1_000_000 } }),
    context: undefined,
  };
  return body(await shell.handle(inv));
}

function body(out: ToolOutput): string {
  if (out.kind !== "function" || typeof out.body !== "string") throw new Error("expected a text function output");
  return out.body;
}

/** An engine on `policy` whose `approve` plays the person with `answer`, recording what it was asked. */
export function askingEngine(
  policy: PermissionPolicy,
  answer?: (req: ApprovalRequest) => ApprovalDecision,
): { permissions: PermissionEngine; asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const permissions = new PermissionEngine({
    ...policy,
    ...(answer && {
      approve: async (req: ApprovalRequest) => {
        asked.push(req);
        return answer(req);
      },
    }),
  });
  return { permissions, asked };
}

/**
 * The escalation tests' bench: a workspace-write environment, a directory `outside` its
 * roots, and `call` running one function call through a fresh runtime on `tools`' router.
 * Registers its own set-up and clean-up.
 */
export function escalationBench(prefix: string, tools: ToolsConfig) {
  const scratch = new Scratch();
  let workspace = "";
  let outside = "";
  let env: ExecEnvironment | undefined;
  let router: ToolRouter | undefined;
  let n = 0;
  beforeAll(async () => {
    workspace = await scratch.outside(`${prefix}-ws`);
    outside = await scratch.outside(`${prefix}-out`);
    env = await createExecEnvironment({ cwd: workspace, sandbox: { mode: "workspace-write" } });
    router = await createToolRouter(tools);
  });
  afterAll(async () => {
    await router?.close();
    await env?.close?.();
    await scratch.cleanup();
  });
  return {
    /** A fresh path in the directory outside the roots. */
    target: (suffix = ""): string => path.join(outside, `f${++n}${suffix}`),
    /** `name(args)` through a runtime judged by `permissions`: its output and the events. */
    async call(
      name: string,
      args: Record<string, unknown>,
      permissions: PermissionEngine | undefined,
    ): Promise<{ output: string; events: ToolEvent[] }> {
      const events: ToolEvent[] = [];
      const turn = createTurnContext({
        cwd: workspace,
        ...(env && { environment: env }),
        ...(permissions && { permissions }),
        onEvent: (e) => events.push(e),
      });
      const runtime = new ToolCallRuntime(router!, turn);
      runtime.submit({ type: "function_call", call_id: `c${n}`, name, arguments: JSON.stringify(args) });
      return { output: (await runtime.drain()).map(text)[0]!, events };
    },
  };
}
