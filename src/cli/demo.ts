import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { McpConnectionManager } from "../mcp/index.js";
import { outputContent, outputText, type ExecEnvironment, type UnknownItem } from "../protocol/index.js";
import { createToolRouter } from "../toolset.js";
import { ToolCallRuntime } from "../runtime/index.js";
import { createTurnContext, type ToolEvent } from "../turn/index.js";
import { PermissionEngine } from "../policy/index.js";
import { exitCodeFor, interruptible, InterruptedError, onInterrupt, RunningCommands, stderrLogger } from "./session.js";
import { LiveStatus } from "./status.js";
import { CallTimeline, exclusiveOverlaps, timelineText } from "./timeline.js";
import { bwrapInstalled, describeSandbox, openEnvironment, type SandboxFlags } from "./sandbox.js";
import { now } from "../util/index.js";

const WORKSPACE_FILES: Record<string, string> = {
  "package.json": `{ "name": "demo-app", "version": "1.0.0", "type": "module" }\n`,
  "README.md": "# demo-app\n\nA tiny app the demo agent works on.\n",
  "src/app.js": [
    'import { greet } from "./util.js";',
    "",
    "// TODO: return the real exit code",
    "export function main() {",
    "  return 1;",
    "}",
    "",
    'console.log(greet("demo"), main());',
    "",
  ].join("\n"),
  "src/util.js": [
    "export function greet(name) {",
    "  // TODO: localise the greeting",
    "  return `hello, ${name}`;",
    "}",
    "",
  ].join("\n"),
};

const PATCH = [
  "*** Begin Patch",
  "*** Update File: src/app.js",
  "@@ export function main() {",
  "-  return 1;",
  "+  return 0;",
  "*** End Patch",
].join("\n");

/** A recorded model response: the items one coding turn streamed, `${WS}` the workspace. */
function recordedResponse(ws: string): UnknownItem[] {
  const fn = (callId: string, name: string, args: unknown): UnknownItem => ({
    type: "function_call",
    call_id: callId,
    name,
    arguments: JSON.stringify(args),
  });
  return [
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Inspect, review, patch, build." }] },
    fn("call_read_app", "read_file", { file_path: path.join(ws, "src/app.js") }),
    fn("call_read_util", "read_file", { file_path: path.join(ws, "src/util.js") }),
    fn("call_grep_todo", "grep_files", { pattern: "TODO", include: "*.js", path: ws }),
    fn("call_list", "list_dir", { dir_path: ws, depth: 2 }),
    fn("call_ls", "shell", { command: ["ls", "-la", "src"], workdir: ws }),
    fn("call_review", "mcp__demo__slow_review", { topic: "src/app.js exit codes", delay_ms: 1200 }),
    fn("call_words", "mcp__demo__word_count", { text: WORKSPACE_FILES["README.md"] }),
    // Mutating, so it passes the readiness gate; the sleep stands in for a slow build step. Not
    // a login shell (-l): the user's profile may write to $HOME, which the sandbox refuses.
    fn("call_backup", "shell", {
      command: ["bash", "-c", "cp -r src .backup && sleep 0.5 && ls .backup"],
      workdir: ws,
    }),
    { type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: PATCH },
    fn("call_check", "shell", { command: ["grep", "-n", "return", "src/app.js"], workdir: ws }),
    // Denied by the demo's policy (`shell(rm:*)`): answered without running.
    fn("call_cleanup", "shell", { command: ["rm", "-rf", ".backup"], workdir: ws }),
  ];
}

/**
 * The demo's policy: the backup script's commands are allowed by rule, `rm` is denied, and
 * anything else that changes files (the patch) is asked; the demo answers "allow" itself and
 * prints the request, as an embedder's approval prompt would show it.
 */
function demoPolicy(print: (line: string) => void): PermissionEngine {
  return new PermissionEngine({
    allow: ["shell(cp:*)", "shell(sleep:*)", "shell(ls:*)"],
    deny: ["shell(rm:*)"],
    approve: async (req) => {
      print(
        `approval asked: ${req.toolName} (${req.reason})\n${req.summary.replace(/^/gm, "    ")}\n  -> allow (answered by the demo)\n`,
      );
      return { decision: "allow" };
    },
  });
}

/** The bundled example server: compiled JS from dist, or the TS source through tsx. */
function demoServerLaunch(): { command: string; args: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".ts")) {
    return {
      command: process.execPath,
      args: ["--import", import.meta.resolve("tsx"), path.join(path.dirname(here), "demo/server.ts")],
    };
  }
  return { command: process.execPath, args: [path.join(path.dirname(here), "demo/server.js")] };
}

function label(item: UnknownItem): string {
  return `${String(item["call_id"])} ${String(item["name"])}`;
}

function preview(text: string, lines = 6): string {
  const all = text.replace(/\n+$/, "").split("\n");
  const shown = all.slice(0, lines).map((l) => `    ${l.length > 100 ? `${l.slice(0, 100)}…` : l}`);
  if (all.length > lines) shown.push(`    … (${all.length - lines} more lines)`);
  return shown.join("\n");
}

/** Pairs of calls whose handlers overlapped, for each call that had to run alone. */
/**
 * `toolcall demo`: a recorded turn of eleven items (ten calls) through the runtime, on a temp
 * workspace and a bundled MCP server, offline. Live status, outputs, then a summary. Commands
 * run in the `workspace-write` sandbox when bubblewrap is installed and unconfined otherwise
 * (`npm start` must work on any machine); `--sandbox` chooses instead.
 */
export async function runDemo(opts: { logLevel?: string | undefined } & SandboxFlags = {}): Promise<number> {
  const out = process.stdout;
  const logger = stderrLogger(opts.logLevel);
  const ws = await mkdtemp(path.join(os.tmpdir(), "toolcall-demo-"));
  let mcp: McpConnectionManager | undefined;
  let environment: ExecEnvironment | undefined;
  // An aborted command answers before its process group is gone: the workspace goes after it.
  const commands = new RunningCommands();
  let result = 0;
  // Ctrl-C aborts the turn (outputs and summary still shown) and still removes the workspace.
  const interrupt = new AbortController();
  let interrupted: NodeJS.Signals = "SIGINT";
  const stopHandlingSignals = onInterrupt((signal) => {
    interrupted = signal;
    interrupt.abort();
  });
  try {
    for (const [file, text] of Object.entries(WORKSPACE_FILES)) {
      await mkdir(path.dirname(path.join(ws, file)), { recursive: true });
      await writeFile(path.join(ws, file), text);
    }
    out.write(`toolcall demo: workspace ${ws}\n`);
    const bwrap = await bwrapInstalled();
    const mode = opts.sandbox ?? (bwrap ? "workspace-write" : "danger-full-access");
    environment = await openEnvironment(ws, { mode, networkAccess: opts.network === true }, undefined);
    out.write(`${describeSandbox(mode, { bwrap, chosen: opts.sandbox === undefined ? "auto" : "flag" })}\n`);
    // Interrupted while preparing: no server to start, no turn to run.
    if (interrupt.signal.aborted) throw new InterruptedError(interrupted);
    mcp = McpConnectionManager.start({ demo: demoServerLaunch() }, { logger });
    await interruptible(mcp.waitForStartup());
    const router = await createToolRouter({}, { mcp, logger });
    out.write(
      `tools: ${router
        .specs()
        .map((s) => (s.spec.type === "local_shell" ? "local_shell" : s.spec.name))
        .join(", ")}\n\n`,
    );

    const status = new LiveStatus(out, out.isTTY);
    const timeline = new CallTimeline();
    const onEvent = (event: ToolEvent): void => {
      timeline.onEvent(event);
      status.onEvent(event);
    };
    const denied = new Set<string>();
    const onDecision = (event: ToolEvent): void => {
      if (event.type === "approval_decided" && event.decision === "deny") denied.add(event.callId);
    };
    const turn = createTurnContext({
      cwd: ws,
      logger,
      environment,
      permissions: demoPolicy((line) => {
        status.note(line);
      }),
      onEvent: (event) => {
        commands.observe(event);
        onDecision(event);
        onEvent(event);
      },
    });
    const runtime = new ToolCallRuntime(router, turn, { signal: interrupt.signal });
    const started = now();
    for (const item of recordedResponse(ws)) {
      const call = router.buildToolCall(item);
      if (call) {
        const alone = !router.callSupportsParallel(call);
        timeline.add(call.callId, label(item), { exclusive: alone });
        status.add(call.callId, label(item), { exclusive: alone });
      }
      runtime.submit(item);
    }
    const outcomes = await runtime.drainOutcomes();
    const wallMs = now() - started;
    status.stop();

    out.write("\noutputs (in call order):\n");
    for (const o of outcomes) {
      out.write(
        `\n  ${o.callId} ${o.toolName} ${o.success ? "ok" : "FAILED"}\n${preview(outputText(outputContent(o.item)))}\n`,
      );
    }
    const handlerMs = outcomes.reduce((sum, o) => sum + o.timing.handlerMs, 0);
    const overlaps = exclusiveOverlaps(timeline.calls);
    const exclusive = timeline.calls.filter((c) => c.exclusive).map((c) => c.callId);
    const failed = outcomes.filter((o) => !o.success && !denied.has(o.callId)).length;
    out.write(
      [
        "",
        "summary:",
        `  calls:                  ${outcomes.length} (${failed} failed, ${denied.size} denied by policy)`,
        `  wall time:              ${wallMs.toFixed(0)} ms`,
        `  sum of handler times:   ${handlerMs.toFixed(0)} ms`,
        `  parallel speed-up:      ${(handlerMs / wallMs).toFixed(2)}x`,
        `  exclusive calls:        ${exclusive.join(", ") || "none"}`,
        `  exclusive calls alone:  ${overlaps.length === 0 ? "yes, none overlapped another call" : `NO: ${overlaps.join("; ")}`}`,
        "",
        "timeline:",
        timelineText(timeline.calls, out.columns ?? 100),
      ].join("\n"),
    );
    result = overlaps.length === 0 && failed === 0 ? 0 : 1;
  } finally {
    await commands.settled();
    await environment?.close?.();
    await mcp?.close();
    await rm(ws, { recursive: true, force: true });
    stopHandlingSignals();
  }
  // Also for a Ctrl-C while the demo was cleaning up: the user interrupted it.
  return interrupt.signal.aborted ? exitCodeFor(interrupted) : result;
}
