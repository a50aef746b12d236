import {
  cachedLookup,
  childSessions,
  forgetProgram,
  releaseGroup,
  interruptGroup,
  signalSessions,
  programProblem,
  runProgram,
  spawnGroup,
  terminateProcessGroup,
  type GroupChild,
} from "../process/index.js";
import {
  FunctionCallError,
  SandboxDenial,
  texts,
  type ExecEnvironment,
  type FileOps,
  type SpawnedProcess,
  type SpawnRequest,
} from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { Readable, type Writable } from "node:stream";
import { bwrapArgs, sandboxSeccomp, unconfinedBwrapArgs } from "./bwrap.js";
import { BWRAP_ATTEMPTS, mountVanished, startInBwrap } from "./bwrapStart.js";
import type { NetworkAllowlist } from "./netAllowlist.js";
import { HelperClient } from "./helper/client.js";
import { localFileOps } from "./helper/ops.js";
import { helperScript } from "./helper/script.js";
import { seccompProblem } from "./seccomp.js";
import { ptyArgv } from "./pty.js";
import { directoryIdentities, Standby, standbyCanRun } from "./standby.js";
import { isSecret } from "./hiddenPaths.js";
import { PROTECTED_DIRS, protectedName, walk as walkProtected } from "./protectedPaths.js";
import { isWithin, realTargets, rootOf } from "./roots.js";

const findBwrap = cachedLookup("bwrap");
/** How long a command runs before the next command's standby starts anyway (withStandbyNext). */
const STANDBY_DELAY_MS = 50;

/** Writes the seccomp program to bubblewrap's SECCOMP_FD, which it reads to the end before it runs anything. */
const namespaceProbes = new Map<string, Promise<boolean>>();

/**
 * Can bubblewrap give an unsandboxed command its own PID namespace here (not inside a container
 * that forbids namespaces)? Asked once per bubblewrap; without it such commands run as before,
 * their process group killed at the end (what escapes that is in the README).
 */
function pidNamespaceWorks(bwrap: string): Promise<boolean> {
  let probe = namespaceProbes.get(bwrap);
  if (probe === undefined) {
    probe = (async () => {
      for (let attempt = 0; attempt < BWRAP_ATTEMPTS; attempt++) {
        const r = await runProgram(bwrap, [...unconfinedBwrapArgs("/"), "--", "true"], {
          env: { PATH: process.env["PATH"] ?? "" },
          timeoutMs: 30_000,
        });
        // A host mount that vanished while it set up says nothing of namespaces: ask again.
        if (r.code === 0 || !mountVanished(r.stderr)) return r.code === 0;
      }
      return false;
    })().catch(() => false);
    namespaceProbes.set(bwrap, probe);
  }
  return probe;
}

/**
 * A started group as the seam's `SpawnedProcess`. With a PTY the command leads its own session
 * under `script`: it is signalled by session too.
 */
function spawned(
  started: GroupChild,
  tty: boolean,
  stdin: Writable | null = started.child.stdin,
  /** Started by bubblewrap: its group leader is bubblewrap, not the command. */
  wrapped = true,
): SpawnedProcess {
  const { child, pgid, exited } = started;
  let disposing: Promise<void> | undefined;
  const sessions = (): number[] => (tty ? childSessions(pgid) : []);
  return {
    pid: pgid,
    stdin,
    // Both are pipes (spawnGroup is always asked for them); the fallbacks only satisfy the types.
    stdout: child.stdout ?? Readable.from([]),
    stderr: child.stderr ?? Readable.from([]),
    exited,
    terminate: async (graceMs) => {
      const ptys = sessions();
      signalSessions(ptys, "SIGTERM");
      await terminateProcessGroup(pgid, graceMs);
      signalSessions(ptys, "SIGKILL");
    },
    interrupt: () => interruptGroup(pgid, wrapped),
    dispose: () =>
      (disposing ??= (async () => {
        // A command that ended by itself may have left background processes: they die with it.
        signalSessions(sessions(), "SIGKILL");
        await releaseGroup(started);
      })()),
  };
}

/**
 * Commands on this machine: in bubblewrap under `read-only` and `workspace-write`, directly
 * (a SIGKILLed host's watchdog kills them, src/process) under `danger-full-access` or for an
 * approved escalation. `writable` and the sandbox's roots are real paths.
 */
export class LocalEnvironment implements ExecEnvironment {
  readonly kind: string;
  readonly files: FileOps;
  /** The resident helper that performs the file tools' operations inside bubblewrap. */
  private readonly helper: HelperClient | undefined;
  /** The bubblewrap started for the next command (standby.ts), when one is ready. */
  private standby: Standby | undefined;
  /** Bumped by close(): a standby still starting for before then is discarded. */
  private standbyEra = 0;

  constructor(
    private readonly cwd: string,
    readonly sandbox: ExecEnvironment["sandbox"],
    private readonly writable: readonly string[],
    private readonly readable: readonly string[] | undefined,
    private readonly environment: (base: NodeJS.ProcessEnv) => Record<string, string>,
    /** Unsandboxed commands in their own PID namespace where bubblewrap runs (ExecEnvironmentOptions.pidNamespace). */
    private readonly pidNamespace = true,
    private readonly network?: NetworkAllowlist,
  ) {
    this.kind = sandbox.mode === "danger-full-access" ? "local" : "bubblewrap";
    this.helper = this.kind === "bubblewrap" ? new HelperClient(() => this.startHelper()) : undefined;
    this.files = this.helper?.files ?? localFileOps;
  }

  /**
   * `node sandbox-helper.js` in bubblewrap with the commands' mounts (node and the script made
   * visible when only `readableRoots` are), with no variable of the host's: it needs none.
   */
  private async startHelper(): Promise<GroupChild> {
    const bwrap = await findBwrap(process.env["PATH"]);
    if (!bwrap) throw FunctionCallError.respondToModel(texts.sandboxUnavailable);
    const problem = seccompProblem();
    if (problem !== undefined) throw FunctionCallError.respondToModel(problem);
    const [script, node] = await Promise.all([helperScript(), realpath(process.execPath)]);
    const readable = this.sandbox.readableRoots;
    const sandbox =
      readable === undefined
        ? this.sandbox
        : { ...this.sandbox, readableRoots: [...readable, path.dirname(node), path.dirname(script)] };
    // Its own group; bubblewrap's --die-with-parent and PID namespace end it with the host.
    return startInBwrap(() => [bwrap, ...bwrapArgs(sandbox, this.writable, this.cwd)], [node, script], {
      cwd: this.cwd,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "pipe",
      seccomp: sandboxSeccomp(this.sandbox),
      forwardHostSignals: false,
    });
  }

  allowDomains(hosts: readonly string[]): void {
    this.network?.allow(hosts);
  }

  /**
   * Ends the resident helper (a later file operation starts a new one), the standby (a later
   * command starts a new one) and the network proxy.
   */
  async close(): Promise<void> {
    this.standbyEra++;
    const standby = this.standby;
    this.standby = undefined;
    await Promise.all([this.helper?.close(), standby?.discard(), this.network?.close()]);
  }

  /** The standby when it was made for `key` and still waits; any other is discarded. */
  private takeStandby(key: string): Standby | undefined {
    const standby = this.standby;
    this.standby = undefined;
    if (standby?.key === key && standby.alive) return standby;
    void standby?.discard();
    return undefined;
  }

  /**
   * The next command's standby, started once the current command is disposed of (its caller
   * is done with it) or has run for STANDBY_DELAY_MS: starting a process stalls the host's event
   * loop for milliseconds, which must not delay a short command's result, while a long one's
   * successor is ready in time. Returns `current` with that hook on its dispose.
   */
  private withStandbyNext(
    current: SpawnedProcess,
    key: string,
    launcher: readonly string[],
    cwd: string,
    seccomp: Buffer | undefined,
  ): SpawnedProcess {
    const era = this.standbyEra;
    let timer: NodeJS.Timeout | undefined;
    const start = (): void => {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      // After the caller's own continuation of the dispose.
      setImmediate(() => {
        if (era !== this.standbyEra || this.standby !== undefined) return;
        Standby.start(key, launcher, cwd, seccomp).then(
          (standby) => {
            if (era === this.standbyEra && this.standby === undefined) this.standby = standby;
            else void standby.discard();
          },
          // Not started (bubblewrap gone): the next command starts its own, and says why.
          () => undefined,
        );
      });
    };
    timer = setTimeout(start, STANDBY_DELAY_MS).unref();
    return {
      ...current,
      dispose: () => {
        const disposing = current.dispose();
        void disposing.then(start, start);
        return disposing;
      },
    };
  }

  async spawn(req: SpawnRequest): Promise<SpawnedProcess> {
    // The filter returns a fresh object: the request's variables go straight into it.
    const env = Object.assign(this.environment(process.env), req.env);
    const program = req.argv[0] ?? "";
    // bubblewrap and its arguments (before `--`), and what runs inside before the command.
    let launcher: readonly string[] | undefined;
    /** Makes `launcher` again (the host's tree may have changed when bubblewrap starts again). */
    let launch: (() => readonly string[]) | undefined;
    let wrapper: readonly string[] = [];
    let seccomp: Buffer | undefined;
    const sandboxed = req.sandboxed !== false && this.kind === "bubblewrap";
    const bwrap = await findBwrap(process.env["PATH"]);
    if (sandboxed) {
      // Never a silent fallback to no sandbox (nor to one without its seccomp filter).
      if (!bwrap) throw FunctionCallError.respondToModel(texts.sandboxUnavailable);
      const problem = seccompProblem();
      if (problem !== undefined) throw FunctionCallError.respondToModel(problem);
      seccomp = sandboxSeccomp(this.sandbox);
      const route = await this.network?.route(this.readable !== undefined).catch((err: unknown) => {
        throw FunctionCallError.respondToModel(`network proxy unavailable: ${errorMessage(err)}`);
      });
      const sandbox = this.sandbox;
      const writable = this.writable;
      launch = () => [bwrap, ...bwrapArgs(sandbox, writable, req.cwd, route?.mounts)];
      launcher = launch();
      wrapper = route?.wrapper ?? [];
      // The host's temporary directory is not there: the sandbox's own /tmp is.
      for (const name of ["TMPDIR", "TMP", "TEMP"]) if (name === "TMPDIR" || name in env) env[name] = "/tmp";
    } else if (this.pidNamespace && bwrap && (await pidNamespaceWorks(bwrap))) {
      launch = () => [bwrap, ...unconfinedBwrapArgs(req.cwd)];
      launcher = launch();
    }
    const problem = await programProblem(program, req.cwd, env["PATH"]);
    if (problem !== undefined) throw FunctionCallError.respondToModel(problem);
    const command = [...wrapper, ...(req.tty === true ? await ptyArgv(req.argv, env) : req.argv)];
    // A standby serves a command that would get the very same bubblewrap arguments (computed
    // afresh above: a mount that appeared since makes them differ) over the same directories;
    // not one on a PTY, whose session `script` sets up itself, nor one behind the domain
    // allowlist's bridge (a node start dwarfs bubblewrap's; an idle standby would hold the
    // proxy's socket between commands).
    const key =
      launcher !== undefined && req.tty !== true && wrapper.length === 0 && standbyCanRun(command, env)
        ? JSON.stringify([launcher, directoryIdentities([req.cwd, ...this.writable, ...(this.readable ?? [])])])
        : undefined;
    if (launcher !== undefined && key !== undefined) {
      const standby = this.takeStandby(key);
      // Set up by now, or in a moment (no later than a fresh one would be); one whose set-up
      // failed gives way to a fresh bubblewrap, which starts again where a host mount vanished.
      if (standby !== undefined && (await standby.claim())) {
        const stdin = req.stdin ?? "ignore";
        const started = standby.run(command, env, stdin);
        const proc = spawned(started, false, stdin === "pipe" ? started.child.stdin : null);
        return this.withStandbyNext(proc, key, launcher, req.cwd, seccomp);
      }
      void standby?.discard();
    }
    const [file = program, ...args] = command;
    const stdin = req.stdin ?? "ignore";
    try {
      // In bubblewrap: its --die-with-parent and PID namespace end it with the host.
      const started =
        launch === undefined
          ? await spawnGroup(file, args, { cwd: req.cwd, env, stdio: [stdin, "pipe", "pipe"] })
          : await startInBwrap(launch, command, { cwd: req.cwd, env, stdin, ...(seccomp && { seccomp }) });
      const proc = spawned(started, req.tty === true, started.child.stdin, launcher !== undefined);
      return launcher !== undefined && key !== undefined
        ? this.withStandbyNext(proc, key, launcher, req.cwd, seccomp)
        : proc;
    } catch (err) {
      // A program found before may be gone (or no longer executable) since: look again.
      forgetProgram(program, req.cwd, env["PATH"]);
      const gone = await programProblem(program, req.cwd, env["PATH"]);
      throw FunctionCallError.respondToModel(gone ?? `failed to start ${program}: ${errorMessage(err)}`);
    }
  }

  async checkWrite(paths: readonly string[], opts: { cwd?: string } = {}): Promise<void> {
    if (this.sandbox.mode === "danger-full-access") return;
    const base = opts.cwd ?? this.cwd;
    for (const p of paths) {
      for (const real of await realTargets(base, p)) {
        const root = rootOf(this.writable, real);
        if (root === undefined) throw new SandboxDenial(p, texts.outsideWritableRoots(p));
        const name = protectedName(root, real);
        if (name !== undefined) throw new SandboxDenial(p, texts.protectedPath(p, name, PROTECTED_DIRS.has(name)));
        // A `.git` file's gitdir target may be named anything.
        if (walkProtected([root]).some((dir) => isWithin(dir, real)))
          throw new SandboxDenial(p, texts.protectedPath(p, "a repository's git directory", true));
      }
    }
  }

  async checkRead(p: string, opts: { cwd?: string } = {}): Promise<void> {
    const base = opts.cwd ?? this.cwd;
    const abs = path.resolve(base, p);
    const readable = this.readable;
    const hideSecrets = this.sandbox.mode !== "danger-full-access";
    // Both are queries: asked at once, judged in order (a denial before the file's kind).
    const [reals, st] = await Promise.all([
      readable !== undefined || hideSecrets ? realTargets(base, p) : [],
      stat(abs).catch(() => undefined), // what does not exist is the reader's to report
    ]);
    if (readable !== undefined && reals.some((real) => rootOf(readable, real) === undefined))
      throw new SandboxDenial(p, texts.outsideReadableRoots(p));
    // Hidden from sandboxed commands, so from the readers too (a full-access command reads them anyway).
    if (hideSecrets && reals.some(isSecret)) throw new SandboxDenial(p, texts.secretPath(p));
    if (st && !st.isFile() && !st.isDirectory()) throw FunctionCallError.respondToModel(texts.notRegularFile(p));
  }
}
