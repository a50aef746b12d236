import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Writable } from "node:stream";

/*
 * A watchdog for a SIGKILLed host: one small `/bin/sh` per host process, in its own session,
 * blocked reading a pipe only the host holds. When the host dies, however it dies, the read ends
 * (end-of-file) and the watchdog SIGKILLs every group on its list: background grandchildren
 * included, and for the price of a write per group instead of an extra exec per command
 * (`setpriv --pdeathsig` doubled a short command's start-up cost and covered only the command).
 *
 * The list is "+ PGID" / "- PGID" lines. The host appends them to a file of its own (in a
 * private directory under the temporary directory), which the watchdog reads only at the end:
 * a plain file write. A line sent down the pipe instead woke the watchdog every time, about
 * 40 µs of a short command's wall time on a busy machine plus the shell's own CPU. Where no
 * such file can be made, the lines go down the pipe (the watchdog reads both). Its `rm` is
 * found on the system's default PATH (`command -p`): the host's own PATH may have none.
 */
const SCRIPT = `trap '' INT TERM HUP
groups=' '
note() {
  case "$op $groups" in
    "+ "*" $pg "*) ;;
    "+ "*) groups="$groups$pg " ;;
    "- "*" $pg "*) groups="\${groups%% $pg *} \${groups#* $pg }" ;;
  esac
}
while read -r op pg; do note; done
if [ -n "$1" ]; then
  if [ -f "$1/groups" ]; then
    while read -r op pg; do note; done < "$1/groups"
  fi
  command -p rm -rf -- "$1"
fi
for pg in $groups; do kill -s KILL -- "-$pg" 2>/dev/null; done`;

/** The list file is rewritten with only the live groups once it grows past this. */
const MAX_LIST_BYTES = 64 * 1024;

interface ListFile {
  dir: string;
  fd: number;
  bytes: number;
}

interface Watchdog {
  /** Its stdin: end-of-file there is the host's death. */
  pipe: Writable;
  /** Where the lines go; undefined: down the pipe. */
  list: ListFile | undefined;
}

let dog: Watchdog | null | undefined;
/** The groups on the watchdog's list, to rewrite it whole (compaction, or a switch to the pipe). */
const listed = new Set<number>();

function closeList(list: ListFile): void {
  try {
    closeSync(list.fd);
  } catch {
    // already closed
  }
  rmSync(list.dir, { recursive: true, force: true });
}

function openList(): ListFile | undefined {
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(tmpdir(), "toolcall-watchdog-"));
    return { dir, fd: openSync(path.join(dir, "groups"), "wx", 0o600), bytes: 0 };
  } catch {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** The watchdog, started on first use; null where it cannot run (no /bin/sh). */
function watchdog(): Watchdog | null {
  if (dog !== undefined) return dog;
  if (process.platform === "win32") return (dog = null);
  const list = openList();
  const gone = (): void => {
    if (dog?.list) closeList(dog.list);
    dog = null;
  };
  try {
    const child = spawn("/bin/sh", ["-c", SCRIPT, "toolcall-watchdog", ...(list ? [list.dir] : [])], {
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
    dog = { pipe: stdin, list };
  } catch {
    if (list) closeList(list);
    dog = null;
  }
  return dog;
}

const linesOf = (groups: Iterable<number>): string => {
  let lines = "";
  for (const pg of groups) lines += `+ ${pg}\n`;
  return lines;
};

/** Replaces the list file by one naming only the live groups (atomically: a rename). */
function compact(list: ListFile): void {
  const next = path.join(list.dir, "groups.next");
  const fd = openSync(next, "w", 0o600);
  try {
    const lines = linesOf(listed);
    writeSync(fd, lines);
    renameSync(next, path.join(list.dir, "groups"));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  closeSync(list.fd);
  list.fd = fd;
  list.bytes = 0;
}

function send(lines: string): void {
  const d = watchdog();
  if (!d) return;
  const list = d.list;
  if (list) {
    try {
      list.bytes += writeSync(list.fd, lines);
      if (list.bytes > MAX_LIST_BYTES) compact(list);
      return;
    } catch {
      // The file failed (a full disk): the pipe takes over, starting with the whole list.
      d.list = undefined;
      try {
        unlinkSync(path.join(list.dir, "groups"));
      } catch {
        // the watchdog skips a list it cannot read
      }
      closeList(list);
      d.pipe.write(linesOf(listed));
      return;
    }
  }
  d.pipe.write(lines);
}

/**
 * `-` lines not written yet: a group that is gone is written with the next `+` (or after
 * REMOVAL_FLUSH_MS), so a run of short commands costs one write each. Until then the watchdog
 * would SIGKILL a group that no longer exists, which only matters if the host dies and the
 * kernel reuses that group id within those milliseconds.
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

/** Tells the watchdog a group to kill if the host dies (`+`, at once) or that it is gone (`-`). */
export function watch(pgid: number, on: boolean): void {
  if (on) {
    listed.add(pgid);
    // In order: a group id reused since its `-` is listed again after it.
    // (A pending flush timer is left to fire: re-arming one per command costs more than it saves.)
    const lines = `${removals}+ ${pgid}\n`;
    removals = "";
    send(lines);
    return;
  }
  listed.delete(pgid);
  removals += `- ${pgid}\n`;
  if (flushTimer === undefined) {
    flushTimer = setTimeout(flushRemovals, REMOVAL_FLUSH_MS);
    flushTimer.unref();
  }
}
