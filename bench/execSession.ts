/**
 * `npx tsx bench/execSession.ts --base DIST [--reps N] [--new DIST]`: what a `write_stdin`
 * round trip costs. Opens a `cat` session on a PTY in each build, then sends a line with
 * `yield_time_ms` 250 (the least Codex allows: the call waits that long for output): the base
 * build, this build as Codex (`yield` "time"), and this build with `yield: "until_idle"`
 * (router option `execIdleYield`), beside a raw pipe to `cat`; interleaved, medians
 * [p25–p75]. Measures, asserts nothing.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Build, flag, interleaved, loadBuilds, machineLine } from "./lib/builds.js";
import { NO_LOOP_DETECTION } from "./lib/tools.js";

const reps = Number(flag("reps", "20"));
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/execSession.ts [--reps N] [--base DIST] [--new DIST]\n");
  process.exit(2);
}
const YIELD_MS = 250;

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-exec-session-"));
const { base, next } = await loadBuilds();

/** A `cat` session in `lib`; each `send` is one write_stdin round trip, checked for its echo. */
async function session(lib: Build, extra: Record<string, unknown>, idle: boolean) {
  const router = await lib.createToolRouter({ ...NO_LOOP_DETECTION, shell: "unified_exec", ...extra });
  const turn = lib.createTurnContext({ cwd });
  let n = 0;
  const call = async (name: string, input: unknown): Promise<string> => {
    const runtime = new lib.ToolCallRuntime(router, turn);
    runtime.submit({ type: "function_call", call_id: `c${++n}`, name, arguments: JSON.stringify(input) });
    const [item] = await runtime.drain();
    return (item as { output: string }).output;
  };
  const opened = await call("exec_command", { cmd: "cat", login: false, tty: true, yield_time_ms: YIELD_MS });
  const id = Number(/session ID (\d+)/.exec(opened)?.[1]);
  if (!Number.isInteger(id)) throw new Error(`no session: ${opened}`);
  return {
    router,
    send: async () => {
      const line = `line ${++n}`;
      const args = {
        session_id: id,
        chars: `${line}\n`,
        yield_time_ms: YIELD_MS,
        ...(idle && { yield: "until_idle" }),
      };
      const out = await call("write_stdin", args);
      if (!out.includes(line)) throw new Error(`lost output: ${out}`);
    },
  };
}

const raw = spawn("cat", { stdio: ["pipe", "pipe", "ignore"] });
let rawN = 0;
const rawSend = (): Promise<void> =>
  new Promise((resolve) => {
    const line = `line ${++rawN}\n`;
    let seen = "";
    const on = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (seen.includes(line)) {
        raw.stdout.off("data", on);
        resolve();
      }
    };
    raw.stdout.on("data", on);
    raw.stdin.write(line);
  });

const sessions = [
  await session(base, {}, false),
  await session(next, {}, false),
  await session(next, { execIdleYield: true }, true),
];
try {
  process.stdout.write(`${machineLine()}\nwrite_stdin round trip, PTY cat, yield_time_ms ${YIELD_MS}, ${reps} reps\n`);
  await interleaved(
    [
      { id: "base", run: (sessions[0] as { send: () => Promise<void> }).send },
      { id: "new, yield time", run: (sessions[1] as { send: () => Promise<void> }).send },
      { id: "new, yield until_idle", run: (sessions[2] as { send: () => Promise<void> }).send },
      { id: "raw pipe to cat", run: rawSend },
    ],
    reps,
    2,
  );
} finally {
  raw.kill();
  await Promise.all(sessions.map((s) => s.router.close()));
  await rm(cwd, { recursive: true, force: true });
}
