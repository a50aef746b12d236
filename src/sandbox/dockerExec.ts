import { PassThrough, Readable } from "node:stream";
import { killProcessGroup, releaseGroup, type GroupChild } from "../process/index.js";
import type { SpawnedProcess } from "../protocol/index.js";
import type { DockerCli } from "./dockerCli.js";

/*
 * One command in a container, run by `docker exec` (DESIGN section 16). `docker exec` makes its
 * process the leader of a new session inside the container, and killing the CLI on the host
 * does not reach it: so the command runs under a small POSIX sh wrapper (builtins only, any
 * image with a `sh`) that
 *   1. reports its pid, which is the command's process group inside the container, as the first
 *      line of stderr (of stdout with a tty, where both are the terminal);
 *   2. runs the command (not exec'd: the wrapper stays to clean up after it) with the
 *      environment it was given: where `sh` is bash, which raises SHLVL and hands `_` to what it
 *      runs, SHLVL is put back and an executable is started through `env -u _` (a builtin or a
 *      missing command is left to the shell, which words its own errors);
 *   3. when it ends, SIGKILLs whatever else is left in its group (background children), as a
 *      local command's group is killed, and exits with the command's status.
 * Abort and timeouts send SIGTERM, then SIGKILL, to that group with a second `docker exec`.
 */
export const WRAPPER = `echo "$$" >&2
pf=$TOOLCALL_PIDFILE; unset TOOLCALL_PIDFILE
[ -z "$pf" ] || echo "$$" 2>/dev/null >"$pf" || :
if [ -n "\${BASH_VERSION-}" ]; then
  case $SHLVL in 1) unset SHLVL ;; ""|*[!0-9]*) ;; *) SHLVL=$((SHLVL-1)) ;; esac
  case $1 in *=*) ;; *) [ -z "$(type -P -- "$1")" ] || ! command -v env >/dev/null || set -- env -u _ -- "$@" ;; esac
fi
"$@"
s=$?
[ -z "$pf" ] || rm -f "$pf" 2>/dev/null || :
for f in /proc/[0-9]*/stat; do
  read -r l 2>/dev/null <"$f" || continue
  set -- \${l##*") "}
  p=\${f#/proc/}; p=\${p%/stat}
  [ "$3" = "$$" ] && [ "$p" != "$$" ] && kill -s KILL "$p" 2>/dev/null
done
exit "$s"`;

/**
 * `sh -c KILL sh PGID POLLS SIGNAL`: SIGNAL, then SIGKILL after POLLS x 50 ms; returns once the
 * group is gone (or 1 s after SIGKILL). PGID may be `@FILE`: the wrapper's pid file, for a CLI
 * killed before it passed the pid line on.
 */
const KILL = `pg=$1; n=$2
case $pg in @*) read -r pg 2>/dev/null <"\${pg#@}" || exit 0 ;; esac
[ "$pg" -gt 1 ] 2>/dev/null || exit 0
kill -s "$3" -- "-$pg" 2>/dev/null || exit 0
while [ "$n" -gt 0 ] && kill -s 0 -- "-$pg" 2>/dev/null; do sleep 0.05; n=$((n-1)); done
kill -s KILL -- "-$pg" 2>/dev/null
n=20
while [ "$n" -gt 0 ] && kill -s 0 -- "-$pg" 2>/dev/null; do sleep 0.05; n=$((n-1)); done
exit 0`;

const POLL_MS = 50;
/** How long the host's CLI may take to notice its command is gone before it is killed too. */
const CLI_EXIT_MS = 2_000;

/**
 * `stream` without its first line, the wrapper's pid, which `onPid` gets (undefined when the
 * stream ends without one). A first line that is not a pid (no `sh` in the image: the engine's
 * own error) is passed through as output.
 */
function splitPidLine(stream: Readable, onPid: (pid: number | undefined) => void): Readable {
  const out = new PassThrough();
  let head: Buffer | undefined = Buffer.alloc(0);
  stream.on("data", (chunk: Buffer) => {
    if (head === undefined) {
      out.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const nl = head.indexOf(10);
    if (nl < 0) return;
    const line = head.subarray(0, nl).toString("utf8").replace(/\r$/, "");
    const rest = head.subarray(nl + 1);
    head = undefined;
    if (/^\d+$/.test(line)) {
      onPid(Number(line));
      if (rest.length > 0) out.write(rest);
    } else {
      onPid(undefined);
      out.write(Buffer.concat([Buffer.from(`${line}\n`), rest]));
    }
  });
  stream.once("close", () => {
    if (head !== undefined && head.length > 0) out.write(head);
    head = undefined;
    onPid(undefined);
    out.end();
  });
  stream.on("error", () => undefined);
  return out;
}

/** A `docker exec` started on the host (its CLI leads a host process group) as the seam's `SpawnedProcess`. */
export function dockerProcess(
  cli: DockerCli,
  container: string,
  started: GroupChild,
  tty: boolean,
  /** Where the wrapper writes its pid inside the container (TOOLCALL_PIDFILE). */
  pidFile?: string,
): SpawnedProcess {
  const { child, pgid, exited } = started;
  let reportPid: (pid: number | undefined) => void = () => undefined;
  const inner = new Promise<number | undefined>((resolve) => (reportPid = resolve));
  const empty = (): Readable => Readable.from([]);
  let stdout = child.stdout ?? empty();
  let stderr = child.stderr ?? empty();
  if (tty) stdout = splitPidLine(stdout, reportPid);
  else stderr = splitPidLine(stderr, reportPid);
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((status) => {
    ended = status;
  });
  let killed = false;

  /**
   * Signals the command's group inside the container. Not once the wrapper ended (the CLI exited
   * with its code; the host's signals are not passed on to the CLI): its pid may belong to
   * another command by now. A CLI killed by a signal left the command running: that one is.
   */
  const killInside = async (signal: "TERM" | "KILL", graceMs: number): Promise<void> => {
    const pid = await inner;
    if (ended !== undefined && ended.code !== null) return;
    // A CLI killed before it passed the pid line on: the wrapper's pid file names the group.
    const target = pid !== undefined ? String(pid) : pidFile !== undefined ? `@${pidFile}` : undefined;
    if (target === undefined) return;
    killed = true;
    const polls = String(Math.ceil(graceMs / POLL_MS));
    // The container may already be gone (closed): then so is the command.
    await cli.run(["exec", container, "sh", "-c", KILL, "sh", target, polls, signal]).catch(() => undefined);
  };
  const cliGone = async (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLI_EXIT_MS)))]);
    clearTimeout(timer);
    await killProcessGroup(pgid);
  };

  let disposing: Promise<void> | undefined;
  return {
    pid: pgid,
    stdin: child.stdin,
    stdout,
    stderr,
    exited,
    terminate: async (graceMs) => {
      await killInside("TERM", graceMs);
      await cliGone();
    },
    dispose: () =>
      (disposing ??= (async () => {
        try {
          // The wrapper cleaned up after a command that ended by itself; a CLI killed by a
          // signal left its command running inside.
          if (!killed && ended?.code === null) await killInside("KILL", 0);
        } finally {
          await releaseGroup(started);
        }
      })()),
  };
}
