import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { startTime } from "./identity.js";

/*
 * A watchdog for a SIGKILLed host: one small `/bin/sh` per host process, in its own session,
 * blocked reading a pipe only the host holds. When the host dies, however it dies, the read ends
 * (end-of-file) and the watchdog SIGKILLs every group on its list (background grandchildren
 * included) and removes the host's containers.
 *
 * Its list lives in its own memory, fed line by line over that pipe, and nowhere else: a kill
 * list in a file (it once lived in the temporary directory, a writable root of every sandbox)
 * let a sandboxed command name any process group to kill (security review S8). Lines:
 *   `+ PGID START`  a group to kill, START its leader's start time (`/proc/PGID/stat` field 22)
 *   `- PGID`        that group is gone
 *   `c KEY COMMAND` a shell command that removes a container (`docker rm -f ...`), keyed
 *   `d KEY`         that container is gone
 * Before a kill it checks the group's leader is the process the host recorded (a reused id
 * belongs to someone else; a leader whose start the host could not read, one that ended before
 * it was listed, is never taken for it), and it never kills a group id of 1 or less (`kill -- -1`
 * is every process). With its leader gone, a group id cannot be reused while members remain. Commands under bubblewrap are not listed: `--die-with-parent` and their PID
 * namespace already end them with the host, for no write at all.
 */
const SCRIPT = `trap '' INT TERM HUP
groups=' '
keys=' '
while read -r op id rest; do
  case $id in ''|*[!0-9A-Za-z_]*) continue ;; esac
  case $op in
    +) case $id in *[!0-9]*) continue ;; esac
       [ "$id" -gt 1 ] || continue
       eval "s_$id=\\$rest"
       case $groups in *" $id "*) ;; *) groups="$groups$id " ;; esac ;;
    -) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
    c) eval "c_$id=\\$rest"
       case $keys in *" $id "*) ;; *) keys="$keys$id " ;; esac ;;
    d) eval "c_$id=" ;;
  esac
done
for pg in $groups; do
  eval "want=\\$s_$pg"
  if read -r l < "/proc/$pg/stat"; then
    [ -n "$want" ] || continue
    set -- \${l##*") "}
    [ "\${20}" = "$want" ] || continue
  fi
  kill -s KILL -- "-$pg"
done 2>/dev/null
for k in $keys; do
  eval "cmd=\\$c_$k"
  [ -n "$cmd" ] && eval "$cmd" </dev/null >/dev/null 2>&1
done`;

let dog: Writable | null | undefined;

/** The watchdog's pipe, started on first use; null where it cannot run (no /bin/sh). */
function watchdog(): Writable | null {
  if (dog !== undefined) return dog;
  if (process.platform === "win32") return (dog = null);
  const gone = (): void => {
    dog = null;
  };
  try {
    const child = spawn("/bin/sh", ["-c", SCRIPT, "toolcall-watchdog"], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", gone);
    // Neither the watchdog nor its pipe keeps the host's event loop alive.
    child.unref();
    const stdin = child.stdin as (Writable & { unref?: () => void }) | null;
    if (!stdin) throw new Error("no pipe to the watchdog");
    stdin.unref?.();
    stdin.on("error", gone);
    dog = stdin;
  } catch {
    dog = null;
  }
  return dog;
}

function send(lines: string): void {
  watchdog()?.write(lines);
}

/**
 * `-` lines not written yet: a group that is gone is written with the next `+` (or after
 * REMOVAL_FLUSH_MS), so a run of short commands costs one write each. Should the host die
 * meanwhile, the watchdog's start-time check spares a process that reused the id.
 */
let removals = "";
let flushTimer: NodeJS.Timeout | undefined;
const REMOVAL_FLUSH_MS = 250;

function flushRemovals(): void {
  flushTimer = undefined;
  const lines = removals;
  removals = "";
  if (lines !== "") send(lines);
}

/** A group id of 1 or less would mean "every process": never listed. */
const listable = (pgid: number): boolean => Number.isInteger(pgid) && pgid > 1;

/** Tells the watchdog a group to kill if the host dies (`+`, at once). */
export function watch(pgid: number): void {
  if (!listable(pgid)) return;
  // In order: a group id reused since its `-` is listed again after it.
  // (A pending flush timer is left to fire: re-arming one per command costs more than it saves.)
  const lines = `${removals}+ ${pgid} ${startTime(pgid) ?? ""}\n`;
  removals = "";
  send(lines);
}

/** Tells the watchdog a group is gone (`-`, batched). */
export function unwatch(pgid: number): void {
  if (!listable(pgid)) return;
  removals += `- ${pgid}\n`;
  if (flushTimer === undefined) {
    flushTimer = setTimeout(flushRemovals, REMOVAL_FLUSH_MS);
    flushTimer.unref();
  }
}

/**
 * Has the watchdog run `command` (a `/bin/sh` command line, one line) if the host dies before
 * the returned function is called: for what outlives the host's processes, a container.
 */
let nextKey = 0;

export function watchCommand(command: string): () => void {
  if (command.includes("\n") || command.includes("\r")) throw new TypeError("a watchdog command is one line");
  const key = `k${(nextKey++).toString(36)}`;
  send(`c ${key} ${command}\n`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    send(`d ${key}\n`);
  };
}
