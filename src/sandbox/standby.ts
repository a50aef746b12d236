import { randomUUID } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { releaseGroup, spawnGroup, trackProcessGroup, type GroupChild } from "../process/index.js";
import { SECCOMP_FD } from "./bwrap.js";
import { reported } from "./bwrapStart.js";

/** The pipe whose end tells the stub its command is there (the spawn's fifth stdio entry, after SECCOMP_FD). */
const READY_FD = SECCOMP_FD + 1;
/**
 * An unlinked file of the host's that holds the command. A file, not a pipe: bash reads a pipe
 * (or socket) a byte at a time, a file in blocks, and the command's variables are kilobytes.
 */
const REQUEST_FD = READY_FD + 1;
/** The stub's interpreter and the program that sets exactly the command's variables: system files every sandbox sees. */
const SHELL = "/bin/bash";
const ENV = "/usr/bin/env";
/**
 * Reports on READY_FD that bubblewrap's set-up is done, waits for its end, reads "stdin mode, count, count × NAME=VALUE, argv" (each ended by
 * a NUL) from REQUEST_FD, closes both (the command inherits no descriptor of ours) and becomes
 * the command: stdin /dev/null unless "pipe" (as a fresh spawn's "ignore"), `env -i` leaving it
 * only the given variables (bash adds its own otherwise), `--` keeping an argv[0] that starts
 * with `-` a program. No command (the standby discarded) ends it quietly.
 */
const STUB =
  `printf . >&${READY_FD}; read -r <&${READY_FD}; mapfile -d '' -t r <&${REQUEST_FD} || exit; exec ${READY_FD}<&- ${REQUEST_FD}<&-; ` +
  `((\${#r[@]} > 2)) || exit 0; [[ \${r[0]} == pipe ]] || exec </dev/null; ` +
  `n=\${r[1]}; exec ${ENV} -i -- "\${r[@]:2:n}" "\${r[@]:n+2}"`;

let stubWorks: boolean | undefined;

/**
 * Can a standby run this command exactly as a fresh bubblewrap would? Not when the stub's two
 * programs are missing, nor for what its framing or `env` would read otherwise: a NUL anywhere
 * (spawn refuses it: so does the fresh path), a `=` in a variable's name or in argv[0] (`env`
 * would take it for a variable).
 */
export function standbyCanRun(argv: readonly string[], env: Record<string, string>): boolean {
  stubWorks ??= existsSync(SHELL) && existsSync(ENV);
  if (!stubWorks) return false;
  const [program] = argv;
  if (program === undefined || program === "" || program.includes("=")) return false;
  if (argv.some((a) => a.includes("\0"))) return false;
  return Object.entries(env).every(([k, v]) => k !== "" && !k.includes("=") && !`${k}${v}`.includes("\0"));
}

/**
 * The directories' identities (device and inode): a standby's mounts and working directory hold
 * the ones it started with, so one removed and made again since needs a new bubblewrap.
 */
export function directoryIdentities(dirs: readonly string[]): string[] {
  return dirs.map((dir) => {
    const st = statSync(dir, { throwIfNoEntry: false });
    return st === undefined ? "" : `${st.dev}:${st.ino}`;
  });
}

/**
 * A bubblewrap started before its command is known (DESIGN 12: its namespaces cost more than
 * the command's own start): the sandbox's arguments, seccomp program sent, running a stub that
 * waits on REQUEST_FD for the command and execs it in place. So each command still gets a
 * namespace of its own, only made ahead. `key` names the arguments: it serves only a command
 * that would get exactly those.
 */
export class Standby {
  private exited = false;
  /**
   * True once bubblewrap's set-up is done and the stub waits; false when it failed (a host mount
   * that vanished meanwhile, bwrapStart.ts): the command then starts on its own.
   */
  readonly ready: Promise<boolean>;

  private constructor(
    readonly key: string,
    private readonly started: GroupChild,
    /** The host's descriptor of the request file, until the request is written. */
    private request: number | undefined,
  ) {
    void started.exited.then(() => (this.exited = true));
    this.ready = reported(started.child.stdio[READY_FD] as Readable | null);
  }

  /** `launcher`: bubblewrap and its arguments (before `--`); `seccomp`: the program for SECCOMP_FD, if any. */
  static async start(key: string, launcher: readonly string[], cwd: string, seccomp?: Buffer): Promise<Standby> {
    const [file = "", ...args] = launcher;
    const name = path.join(tmpdir(), `toolcall-standby-${randomUUID()}`);
    const request = openSync(name, "wx+", 0o600);
    let started: GroupChild;
    try {
      unlinkSync(name);
      started = await spawnGroup(file, [...args, "--", SHELL, "--noprofile", "--norc", "-c", STUB], {
        cwd,
        env: { PATH: "/usr/bin:/bin" },
        stdio: ["pipe", "pipe", "pipe", seccomp ? "pipe" : "ignore", "pipe", request],
        // bubblewrap's --die-with-parent and PID namespace end it with the host; tracked (host
        // signals passed on, as to a fresh command's) once it runs its command.
        diesWithHost: true,
        track: false,
      });
    } catch (err) {
      closeSync(request);
      throw err;
    }
    // A standby that died (or was discarded) closes it: its exit is what counts.
    (started.child.stdio[READY_FD] as Writable | null)?.on("error", () => undefined);
    started.child.stdin?.on("error", () => undefined);
    if (seccomp) {
      const pipe = started.child.stdio[SECCOMP_FD] as Writable | null;
      pipe?.on("error", () => undefined);
      pipe?.end(seccomp);
    }
    // Idle, it must not keep the host alive: an embedder that never closes its environment
    // still exits when its work is done (bubblewrap's --die-with-parent ends the standby then).
    holdsHost(started, false);
    return new Standby(key, started, request);
  }

  /**
   * Still waiting for its command (a bubblewrap that failed or was killed never runs one). Asks
   * the kernel too: a standby killed a moment ago is a zombie before its exit reaches the host.
   */
  get alive(): boolean {
    const { child, pgid } = this.started;
    if (this.exited || child.exitCode !== null || child.signalCode !== null) return false;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pgid}/stat`, "utf8");
    } catch {
      return false;
    }
    // "pid (comm) state ...": comm may hold anything, the state follows its last parenthesis.
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  }

  /** Resolves with `ready`, the host kept alive meanwhile (a command waits on it). */
  claim(): Promise<boolean> {
    holdsHost(this.started, true);
    return this.ready;
  }

  /**
   * Hands it its command; the returned group is the command's from then on. With `stdin`
   * "ignore" the command reads /dev/null.
   */
  run(argv: readonly string[], env: Record<string, string>, stdin: "ignore" | "pipe"): GroupChild {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const fields = [stdin, String(vars.length), ...vars, ...argv];
    const request = Buffer.from(fields.map((f) => `${f}\0`).join(""));
    if (this.request !== undefined) {
      // At offset 0, whatever the shared file offset: the stub reads from the start.
      writeSync(this.request, request, 0, request.length, 0);
      this.closeRequest();
    }
    (this.started.child.stdio[READY_FD] as Writable | null)?.end();
    if (stdin === "ignore") this.started.child.stdin?.destroy();
    holdsHost(this.started, true);
    const untrack = trackProcessGroup(this.started.pgid, { forwardHostSignals: true, watchdog: false });
    return { ...this.started, untrack };
  }

  private closeRequest(): void {
    if (this.request !== undefined) closeSync(this.request);
    this.request = undefined;
  }

  /** Kills it and releases its pipes. */
  async discard(): Promise<void> {
    const { child } = this.started;
    this.closeRequest();
    (child.stdio[READY_FD] as Writable | null)?.destroy();
    await releaseGroup(this.started);
  }
}

/** Whether the standby's process and pipes keep the host's event loop alive (ref / unref). */
function holdsHost({ child }: GroupChild, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const stream of child.stdio) {
    const handle = stream as { ref?: () => void; unref?: () => void } | null;
    if (on) handle?.ref?.();
    else handle?.unref?.();
  }
}
