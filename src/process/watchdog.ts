import { spawn } from "node:child_process";
import type { Writable } from "node:stream";

/*
 * A watchdog for a SIGKILLed host: one small `/bin/sh` per host process, in its own session,
 * reading "+ PGID" / "- PGID" lines on stdin. Only the host holds the other end of that pipe,
 * so when the host dies, however it dies, the watchdog reads end-of-file and SIGKILLs every
 * group still listed: background grandchildren included, and for the price of a pipe write per
 * group instead of an extra exec per command (`setpriv --pdeathsig` doubled a short command's
 * start-up cost and covered only the command itself).
 */
const SCRIPT = `trap '' INT TERM HUP
groups=' '
while read -r op pg; do
  case "$op $groups" in
    "+ "*" $pg "*) ;;
    "+ "*) groups="$groups$pg " ;;
    "- "*" $pg "*) groups="\${groups%% $pg *} \${groups#* $pg }" ;;
  esac
done
for pg in $groups; do kill -s KILL -- "-$pg" 2>/dev/null; done`;

let pipe: Writable | null | undefined;

/** The watchdog's stdin, started on first use; null where it cannot run (no /bin/sh). */
function watchdog(): Writable | null {
  if (pipe !== undefined) return pipe;
  if (process.platform === "win32") return (pipe = null);
  try {
    const child = spawn("/bin/sh", ["-c", SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {
      pipe = null;
    });
    // Neither the watchdog nor its pipe keeps the host's event loop alive.
    child.unref();
    const stdin = child.stdin as (Writable & { unref?: () => void }) | null;
    stdin?.unref?.();
    stdin?.on("error", () => {
      pipe = null;
    });
    pipe = stdin;
  } catch {
    pipe = null;
  }
  return pipe;
}

/**
 * `-` lines not written yet. Each pipe write wakes the watchdog, about 0.3 ms of the host's CPU
 * on a busy machine (bench/exec.ts): a group that is gone is written with the next `+` (or
 * after REMOVAL_FLUSH_MS), so a run of short commands costs one write each. Until then the
 * watchdog would SIGKILL a group that no longer exists, which only matters if the host dies
 * and the kernel reuses that group id within those milliseconds.
 */
let removals = "";
let flushTimer: NodeJS.Timeout | undefined;
const REMOVAL_FLUSH_MS = 250;

function flushRemovals(): void {
  flushTimer = undefined;
  const lines = removals;
  removals = "";
  if (lines !== "") watchdog()?.write(lines);
}

/** Tells the watchdog a group to kill if the host dies (`+`, at once) or that it is gone (`-`). */
export function watch(pgid: number, on: boolean): void {
  if (on) {
    // In order: a group id reused since its `-` is listed again after it.
    // (A pending flush timer is left to fire: re-arming one per command costs more than it saves.)
    const lines = `${removals}+ ${pgid}\n`;
    removals = "";
    watchdog()?.write(lines);
    return;
  }
  removals += `- ${pgid}\n`;
  if (flushTimer === undefined) {
    flushTimer = setTimeout(flushRemovals, REMOVAL_FLUSH_MS);
    flushTimer.unref();
  }
}
