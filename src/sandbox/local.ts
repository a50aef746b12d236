import {
  cachedLookup,
  childSessions,
  forgetProgram,
  releaseGroup,
  signalSessions,
  programProblem,
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
import { Readable } from "node:stream";
import { bwrapArgs } from "./bwrap.js";
import type { NetworkAllowlist } from "./netAllowlist.js";
import { HelperClient } from "./helper/client.js";
import { localFileOps } from "./helper/ops.js";
import { helperScript } from "./helper/script.js";
import { ptyArgv } from "./pty.js";
import { inGitDir, realTargets, rootOf } from "./roots.js";

const findBwrap = cachedLookup("bwrap");

/**
 * A started group as the seam's `SpawnedProcess`. With a PTY the command leads its own session
 * under `script`: it is signalled by session too.
 */
function spawned(started: GroupChild, tty: boolean): SpawnedProcess {
  const { child, pgid, exited } = started;
  let disposing: Promise<void> | undefined;
  const sessions = (): number[] => (tty ? childSessions(pgid) : []);
  return {
    pid: pgid,
    stdin: child.stdin,
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

  constructor(
    private readonly cwd: string,
    readonly sandbox: ExecEnvironment["sandbox"],
    private readonly writable: readonly string[],
    private readonly readable: readonly string[] | undefined,
    private readonly environment: (base: NodeJS.ProcessEnv) => Record<string, string>,
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
    const [script, node] = await Promise.all([helperScript(), realpath(process.execPath)]);
    const readable = this.sandbox.readableRoots;
    const sandbox =
      readable === undefined
        ? this.sandbox
        : { ...this.sandbox, readableRoots: [...readable, path.dirname(node), path.dirname(script)] };
    const args = await bwrapArgs(sandbox, this.writable, this.cwd);
    // Its own group, tracked: the host's watchdog kills it too should --die-with-parent not.
    return spawnGroup(bwrap, [...args, "--", node, script], {
      cwd: this.cwd,
      env: { PATH: "/usr/bin:/bin" },
      stdio: "pipe",
      forwardHostSignals: false,
    });
  }

  /** Ends the resident helper (a later file operation starts none). */
  allowDomains(hosts: readonly string[]): void {
    this.network?.allow(hosts);
  }

  async close(): Promise<void> {
    await Promise.all([this.helper?.close(), this.network?.close()]);
  }

  async spawn(req: SpawnRequest): Promise<SpawnedProcess> {
    // The filter returns a fresh object: the request's variables go straight into it.
    const env = Object.assign(this.environment(process.env), req.env);
    const program = req.argv[0] ?? "";
    let prefix: readonly string[] = [];
    if (req.sandboxed !== false && this.kind === "bubblewrap") {
      // Never a silent fallback to no sandbox.
      const bwrap = await findBwrap(process.env["PATH"]);
      if (!bwrap) throw FunctionCallError.respondToModel(texts.sandboxUnavailable);
      const route = await this.network?.route(this.readable !== undefined).catch((err: unknown) => {
        throw FunctionCallError.respondToModel(`network proxy unavailable: ${errorMessage(err)}`);
      });
      prefix = [
        bwrap,
        ...(await bwrapArgs(this.sandbox, this.writable, req.cwd, route?.mounts)),
        "--",
        ...(route?.wrapper ?? []),
      ];
    }
    const problem = await programProblem(program, req.cwd, env["PATH"]);
    if (problem !== undefined) throw FunctionCallError.respondToModel(problem);
    const command = req.tty === true ? await ptyArgv(req.argv, env) : req.argv;
    const [file = program, ...args] = [...prefix, ...command];
    try {
      return spawned(
        await spawnGroup(file, args, {
          cwd: req.cwd,
          env,
          stdio: [req.stdin ?? "ignore", "pipe", "pipe"],
        }),
        req.tty === true,
      );
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
        if (inGitDir(root, real)) throw new SandboxDenial(p, texts.insideGitDir(p));
      }
    }
  }

  async checkRead(p: string, opts: { cwd?: string } = {}): Promise<void> {
    const base = opts.cwd ?? this.cwd;
    const abs = path.resolve(base, p);
    const readable = this.readable;
    if (readable !== undefined && (await realTargets(base, p)).some((real) => rootOf(readable, real) === undefined))
      throw new SandboxDenial(p, texts.outsideReadableRoots(p));
    let st;
    try {
      st = await stat(abs);
    } catch {
      return; // what does not exist is the reader's to report
    }
    if (!st.isFile() && !st.isDirectory()) throw FunctionCallError.respondToModel(texts.notRegularFile(p));
  }
}
