import type { Readable, Writable } from "node:stream";
import { text } from "node:stream/consumers";
import { releaseGroup, spawnGroup, type GroupChild } from "../process/index.js";
import { SECCOMP_FD } from "./bwrap.js";

/*
 * bubblewrap binds the host's tree recursively (`--ro-bind / /`), then remounts each submount it
 * read from its mount table. A mount whose directory the host removes in between (a Docker
 * engine ending a container: its overlay's `merged`) is gone from the sandbox's copy too, and
 * bubblewrap fails the whole set-up: "Can't bind mount /oldroot/ on /newroot/: ... remount
 * ".../merged": No such file or directory". Nothing of the command ran then, so it is started
 * again. Which it was is told by the sandbox itself: the first program inside reports on
 * SETUP_FD before it becomes the command, so a command's own output can never pass for
 * bubblewrap's failure (nor is a command ever run twice).
 */

/** The descriptor the sandbox reports its set-up done on: the spawn's fifth stdio entry. */
const SETUP_FD = SECCOMP_FD + 1;
/**
 * One byte on SETUP_FD, then the command in its place (same process, same variables: bubblewrap
 * has set PWD already, the shell keeps it), SETUP_FD closed for it.
 */
const ANNOUNCE = `printf . >&${SETUP_FD} && exec "$@" ${SETUP_FD}>&-`;
/** Every system has it (the sandbox shows the system directories in every mode). */
const SHELL = "/bin/sh";
/**
 * bubblewrap's own failure on a submount that went away while it set up: its directory gone
 * (ENOENT) or there again but no longer a mount (EINVAL).
 */
const VANISHED_MOUNT = /^bwrap: Can't bind mount [^\n]*remount[^\n]*: (No such file or directory|Invalid argument)$/m;
/**
 * A host file the arguments hide (a Unix socket, a credential: /dev/null bound over it) removed
 * since they were made: bubblewrap cannot make its mount point in the read-only tree.
 */
const VANISHED_FILE = /^bwrap: Can't create file at [^\n]*: Read-only file system$/m;
/**
 * Attempts per command: each fails only if a mount goes in that very instant (a few
 * milliseconds of bubblewrap each); a host that churns mounts all the time still gets its
 * commands run.
 */
export const BWRAP_ATTEMPTS = 20;
/** Attempts when bubblewrap ends before the command without saying why. */
const SILENT_ATTEMPTS = 3;

/** Was bubblewrap's failure (its stderr) a mount that went away during its set-up? */
export function mountVanished(stderr: string): boolean {
  return VANISHED_MOUNT.test(stderr);
}

/** Did the host's tree change under bubblewrap's set-up (worth arguments made afresh)? */
const treeChanged = (stderr: string): boolean => mountVanished(stderr) || VANISHED_FILE.test(stderr);

export interface BwrapStart {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: "ignore" | "pipe";
  /** The seccomp program bubblewrap reads from SECCOMP_FD (`--seccomp`), if any. */
  seccomp?: Buffer;
  forwardHostSignals?: boolean;
}

/** Resolves true on the first byte the sandbox writes on `pipe`, false when the pipe ends first. */
export function reported(pipe: Readable | null | undefined): Promise<boolean> {
  if (!pipe) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const answer = (value: boolean) => (): void => {
      resolve(value);
    };
    pipe.once("data", answer(true));
    for (const end of ["end", "close", "error"]) pipe.once(end, answer(false));
  });
}

/** Has the sandbox reported its set-up done (SETUP_FD then closed on our side)? */
function setUp(started: GroupChild): Promise<boolean> {
  const pipe = started.child.stdio[SETUP_FD] as Readable | null | undefined;
  return reported(pipe).finally(() => pipe?.destroy());
}

/**
 * Keeps the child's output unread until the caller listens, returning the release. Node resumes
 * a child's pipes as it reports the exit (so that unread output cannot hold its close): a
 * command that ended while the set-up report was awaited (its exit reaped along with another
 * child's, before that report was read) had its output dropped before anyone listened. A
 * stream with a 'readable' listener ignores resume(); once it is removed, the caller's 'data'
 * listener gets all that waited.
 */
function holdOutput({ child }: GroupChild): () => void {
  const streams = [child.stdout, child.stderr];
  const wait = (): void => undefined;
  for (const stream of streams) stream?.on("readable", wait);
  return () => {
    for (const stream of streams) stream?.off("readable", wait);
  };
}

/** What bubblewrap wrote on stderr before it exited (the stream to its end: data waits there unread till now). */
async function stderrOf(started: GroupChild): Promise<string> {
  const said = started.child.stderr ? await text(started.child.stderr).catch(() => "") : "";
  await started.closed;
  return said;
}

/**
 * Starts `command` in bubblewrap (`launcher()`: bubblewrap and its arguments, before `--`, made
 * afresh for each attempt) in a process group of its own, killed with the host, and resolves
 * once the command runs inside (again after a set-up that a change of the host's tree broke: a
 * mount or a hidden file gone). Rejects with an Error carrying bubblewrap's own message when the
 * set-up fails otherwise.
 */
export async function startInBwrap(
  launcher: () => readonly string[],
  command: readonly string[],
  opts: BwrapStart,
): Promise<GroupChild> {
  for (let attempt = 1; ; attempt++) {
    const [file = "", ...args] = launcher();
    const started = await spawnGroup(file, [...args, "--", SHELL, "-c", ANNOUNCE, "sh", ...command], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin, "pipe", "pipe", opts.seccomp ? "pipe" : "ignore", "pipe"],
      diesWithHost: true,
      ...(opts.forwardHostSignals !== undefined && { forwardHostSignals: opts.forwardHostSignals }),
    });
    if (opts.seccomp) {
      const pipe = started.child.stdio[SECCOMP_FD] as Writable | null | undefined;
      // A bubblewrap that failed before reading it closes the pipe: its own exit reports why.
      pipe?.on("error", () => undefined);
      pipe?.end(opts.seccomp);
    }
    const release = holdOutput(started);
    const ok = await setUp(started);
    release();
    if (ok) return started;
    const stderr = await stderrOf(started);
    const { code, signal } = await started.exited;
    await releaseGroup(started);
    if (attempt < BWRAP_ATTEMPTS && treeChanged(stderr)) continue;
    // Ended without a word (killed, or a resource the kernel refused for the moment): nothing
    // of the command ran, so a few more tries are safe; a set-up that says why is not retried.
    if (attempt < SILENT_ATTEMPTS && stderr.trim() === "") continue;
    throw new Error(
      stderr.trim() || `bubblewrap exited (${signal ?? `code ${code}`}) before the command started, ${attempt} times`,
    );
  }
}
