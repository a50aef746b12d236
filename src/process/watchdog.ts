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

/** Tells the watchdog a group to kill if the host dies (`+`) or that it is gone (`-`). */
export function watch(pgid: number, on: boolean): void {
  watchdog()?.write(`${on ? "+" : "-"} ${pgid}\n`);
}
