import { randomBytes, randomUUID } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { onHostExit, ownIdentity, spawnGroup, watchCommand } from "../process/index.js";
import {
  FunctionCallError,
  type ExecEnvironment,
  type FileOps,
  type SpawnedProcess,
  type SpawnRequest,
} from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import { pullFromContainer, seedContainer } from "./dockerArchive.js";
import { DockerCli, LABEL, reapDeadHosts } from "./dockerCli.js";
import { ContainerFiles } from "./dockerFiles.js";
import { DEFAULT_VOLUME_PATH, validate, type DockerEnvironmentOptions } from "./dockerOptions.js";
import { Lifeline } from "./dockerLifeline.js";
import { dockerProcess, WRAPPER } from "./dockerExec.js";
import { environmentFilter, validateEnvironmentPolicy } from "./envPolicy.js";
import { localFileOps } from "./helper/ops.js";
import { LocalEnvironment } from "./local.js";
import { ptyArgv } from "./pty.js";

const isWithin = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

/**
 * Commands in a container of their own (DESIGN section 16): one container per environment,
 * started with the first command (or the first file operation); every command (shell tools,
 * exec sessions, hooks, ripgrep) runs in it with `docker exec`. With `workspace`, the host
 * directory is bound at the same path, so the file tools work on the host and may write and read
 * the workspace only. With `volume`, the workspace lives in the container: the file tools run
 * there through the resident helper (paths resolved by the container's kernel; reads anywhere in
 * the container, writes in the workspace), and `pull()` copies files back.
 */
export class DockerEnvironment implements ExecEnvironment {
  readonly kind = "docker";
  /** The workspace is all a container has: a person's allow could not widen it. */
  readonly canEscalate = false;
  readonly sandbox: ExecEnvironment["sandbox"];
  /** Labels the container `toolcall.session=<session>`. */
  readonly session = randomBytes(6).toString("hex");
  /** The container's name. */
  readonly container = `toolcall-${this.session}`;
  private started: Promise<void> | undefined;
  private closed = false;
  private removeAtExit: (() => void) | undefined;
  /** The watchdog's `docker rm -f` for a SIGKILLed host (security review R5). */
  private removeAtDeath: (() => void) | undefined;
  private readonly hostChecks: LocalEnvironment | undefined;
  /** The volume mode's file tools, in the container. */
  private readonly inContainer: ContainerFiles | undefined;
  private lifeline: Lifeline | undefined;
  /** The directory `seed()` copied in last: where `pull()` copies back by default. */
  private seededFrom: string | undefined;
  private markClosed: () => void = () => undefined;
  /** Resolves once `close()` is done (a pool counts it free then). */
  readonly whenClosed = new Promise<void>((resolve) => (this.markClosed = resolve));
  /** The file tools' operations: the host's on a bound workspace, the container's on a volume. */
  readonly files: FileOps;

  constructor(
    private readonly cli: DockerCli,
    private readonly opts: DockerEnvironmentOptions,
    /** The workspace as given (resolved; the volume's path), where the container sees it. */
    private readonly workspace: string,
    private readonly realWorkspace: string,
    private readonly environment: (base: NodeJS.ProcessEnv) => Record<string, string>,
  ) {
    this.sandbox = {
      mode: "workspace-write",
      writableRoots: [realWorkspace],
      networkAccess: opts.network !== undefined && opts.network !== false,
      readableRoots: [realWorkspace],
    };
    if (opts.volume !== undefined) {
      this.inContainer = new ContainerFiles(cli, this.container, () => this.ensureStarted(), workspace);
      this.files = this.inContainer.files;
      this.sandbox = { ...this.sandbox, readableRoots: ["/"] };
    } else {
      this.files = localFileOps;
      // The file tools' checks are the local ones, with the workspace as the only root.
      this.hostChecks = new LocalEnvironment(workspace, this.sandbox, [realWorkspace], [realWorkspace], environment);
    }
  }

  /** Does the workspace live in the container (`volume`)? */
  get hasVolume(): boolean {
    return this.opts.volume !== undefined;
  }

  /** Where the workspace is inside the container (the turn's cwd). */
  get workdir(): string {
    return this.workspace;
  }

  /** Starts the container once; a failed start is retried by the next command. */
  private ensureStarted(): Promise<void> {
    this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async start(): Promise<void> {
    const me = ownIdentity();
    // Before `docker run`: a host that exits while it runs still removes what it created.
    this.removeAtExit ??= onHostExit(() => {
      this.cli.removeDetached(this.container);
    });
    const removal = this.cli.removeCommand(this.container);
    if (removal !== undefined) this.removeAtDeath ??= watchCommand(removal);
    const network = this.opts.network;
    await this.cli.run([
      "run",
      "--detach",
      "--interactive",
      "--rm",
      "--init",
      "--name",
      this.container,
      ...["--label", `${LABEL.session}=${this.session}`, "--label", `${LABEL.pid}=${me.pid}`],
      ...["--label", `${LABEL.boot}=${me.boot}`, "--label", `${LABEL.start}=${me.start}`],
      ...(network === true ? [] : ["--network", network === undefined || network === false ? "none" : network]),
      ...(this.opts.user !== undefined ? ["--user", this.opts.user] : []),
      ...(this.opts.volume !== undefined
        ? ["--mount", `type=volume,dst=${this.workspace}`]
        : ["--volume", `${this.workspace}:${this.workspace}`]),
      ...["--workdir", this.workspace],
      ...["--entrypoint", "sh", this.opts.image],
      // Keeps the container up with the shell alone: stdin stays open while nobody writes to it.
      ...["-c", "read _ || while :; do sleep 3600; done"],
    ]);
    if (this.opts.volume === undefined) return;
    this.lifeline = await Lifeline.attach(this.cli, this.container);
    const seed = this.opts.volume.seed;
    if (seed !== undefined) await seedContainer(this.cli, this.container, path.resolve(seed), this.workspace);
  }

  /** Starts the container now rather than with the first command (a pool's warm containers). */
  prepare(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the Docker environment is closed"));
    return this.ensureStarted();
  }

  /**
   * Copies the host directory `from` into the volume workspace (archive API), over what is
   * there; later `pull()`s default to it. Only for a `volume` workspace.
   */
  async seed(from: string): Promise<void> {
    const volume = this.opts.volume;
    if (volume === undefined) throw new Error("seed() is for a volume workspace; a bound one is the host's directory");
    if (this.closed) throw new Error("the Docker environment is closed");
    await this.ensureStarted();
    await seedContainer(this.cli, this.container, path.resolve(from), this.workspace);
    this.seededFrom = from;
  }

  /**
   * Copies `paths` (relative to the workspace, or absolute inside it; default the whole
   * workspace) from the container to the same places under the host directory `dest` (default
   * the volume's seed): the archive API, unpacked as hostile input (only files, directories and
   * symlinks; nothing followed on the host). Resolves with the host paths of the files written.
   * Only for a `volume` workspace.
   */
  async pull(paths: readonly string[] = ["."], dest?: string): Promise<string[]> {
    if (this.opts.volume === undefined)
      throw new Error("pull() is for a volume workspace; a bound one is on the host already");
    if (this.closed) throw new Error("the Docker environment is closed");
    return this.copyBack(paths, dest);
  }

  private async copyBack(paths: readonly string[], dest?: string): Promise<string[]> {
    const into = dest ?? this.seededFrom ?? this.opts.volume?.seed;
    if (into === undefined) throw new TypeError("pull() needs a destination directory: the volume has no seed");
    const st = await stat(into).catch(() => undefined);
    if (!st?.isDirectory()) throw new TypeError(`the destination is not a directory: ${into}`);
    const sources = paths.map((p) => {
      const abs = path.posix.resolve(this.workspace, p);
      if (!isWithin(this.workspace, abs))
        throw new TypeError(`${p} is outside the container's workspace ${this.workspace}`);
      return abs;
    });
    await this.ensureStarted();
    const written: string[] = [];
    for (const source of sources) {
      const result = await pullFromContainer(this.cli, this.container, this.workspace, source, path.resolve(into));
      written.push(...result.files);
    }
    return written;
  }

  async spawn(req: SpawnRequest): Promise<SpawnedProcess> {
    if (this.closed) throw FunctionCallError.respondToModel("the Docker environment is closed");
    if (req.argv.length === 0 || req.argv[0] === "")
      throw FunctionCallError.respondToModel("command must not be empty");
    let cwd = path.resolve(this.workspace, req.cwd);
    // The same directory by its real path (a turn's cwd may be either): where the container has it.
    if (!isWithin(this.workspace, cwd) && isWithin(this.realWorkspace, cwd))
      cwd = path.join(this.workspace, path.relative(this.realWorkspace, cwd));
    if (!isWithin(this.workspace, cwd)) {
      throw FunctionCallError.respondToModel(`${req.cwd} is outside the container's workspace ${this.workspace}`);
    }
    try {
      await this.ensureStarted();
    } catch (err) {
      throw FunctionCallError.respondToModel(`container unavailable: ${errorMessage(err)}`);
    }
    // Values reach the CLI through its environment (`-e NAME`), not its command line (`ps`).
    const clientEnv: Record<string, string> = { ...this.cli.env };
    const envFlags: string[] = [];
    for (const [name, value] of Object.entries({ ...this.environment(process.env), ...req.env })) {
      if (this.cli.ownsVariable(name)) {
        envFlags.push("--env", `${name}=${value}`);
      } else {
        envFlags.push("--env", name);
        clientEnv[name] = value;
      }
    }
    const tty = req.tty === true;
    const stdin = req.stdin ?? "ignore";
    const pidFile = `/tmp/.toolcall-cmd-${randomUUID()}`;
    const argv = [
      this.cli.binary,
      "exec",
      ...(stdin === "pipe" ? ["--interactive"] : []),
      // The CLI wants a terminal of its own for `--tty`: `script` gives it one on the host.
      ...(tty ? ["--tty"] : []),
      ...["--workdir", cwd, ...envFlags, "--env", `TOOLCALL_PIDFILE=${pidFile}`, this.container],
      ...["sh", "-c", WRAPPER, "sh", ...req.argv],
    ];
    const [file = this.cli.binary, ...args] = tty ? await ptyArgv(argv, clientEnv) : argv;
    try {
      const started = await spawnGroup(file, args, {
        cwd: this.opts.volume === undefined ? this.workspace : "/",
        env: clientEnv,
        stdio: [stdin, "pipe", "pipe"],
        // A signal would end the CLI (exit 0 on SIGINT) and leave the command running inside:
        // the host's Ctrl-C reaches the command through the turn's abort instead.
        forwardHostSignals: false,
      });
      return dockerProcess(this.cli, this.container, started, tty, pidFile);
    } catch (err) {
      throw FunctionCallError.respondToModel(`failed to start docker exec: ${errorMessage(err)}`);
    }
  }

  checkWrite(paths: readonly string[], opts?: { cwd?: string }): Promise<void> {
    if (this.inContainer !== undefined) return this.inContainer.checkWrite(paths, opts?.cwd ?? this.workspace);
    return (this.hostChecks as LocalEnvironment).checkWrite(paths, opts);
  }

  checkRead(p: string, opts?: { cwd?: string }): Promise<void> {
    if (this.inContainer !== undefined) return this.inContainer.checkRead(p, opts?.cwd ?? this.workspace);
    return (this.hostChecks as LocalEnvironment).checkRead(p, opts);
  }

  /** Removes the container (its commands die with it); later commands are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.started?.catch(() => undefined);
    // Never asked to start: there is nothing to remove.
    if (this.removeAtExit === undefined) {
      this.markClosed();
      return;
    }
    // A container that started: its workspace comes back before it goes (which it does anyway).
    const started = await this.started?.then(
      () => true,
      () => false,
    );
    const copied =
      this.opts.volume?.pullOnClose === true && started === true
        ? await this.copyBack(["."]).then(
            () => undefined,
            (err: unknown) => err,
          )
        : undefined;
    try {
      await this.inContainer?.close();
      await this.cli.run(["rm", "--force", this.container]);
    } catch (err) {
      // A start that failed left none (older CLIs say so with an error).
      if (!/No such container/i.test(errorMessage(err))) throw err;
    } finally {
      // Only now: its end would stop the container.
      await this.lifeline?.release();
      this.removeAtExit();
      this.removeAtDeath?.();
      this.markClosed();
    }
    if (copied !== undefined) throw new Error(`the workspace was not copied back: ${errorMessage(copied)}`);
  }
}

/** The sweep under way per engine (its DOCKER_HOST and DOCKER_CONTEXT). */
const reaping = new Map<string, Promise<unknown>>();

/**
 * A Docker environment (DESIGN section 16). Checks the options, the workspace and that the
 * engine answers, and removes the containers of host processes that died without cleaning up
 * (environments starting together share one sweep). The container itself starts with the first
 * command. Rejects with a TypeError for bad options, an Error when the engine is unreachable.
 */
export async function createDockerEnvironment(options: DockerEnvironmentOptions): Promise<DockerEnvironment> {
  const opts = validate(options);
  const filter = environmentFilter(validateEnvironmentPolicy(opts.env ?? { inherit: "none" }));
  let workspace: string;
  let realWorkspace: string;
  if (opts.volume !== undefined) {
    workspace = realWorkspace = path.posix.normalize(opts.volume.path ?? DEFAULT_VOLUME_PATH).replace(/(.)\/$/, "$1");
    const seed = opts.volume.seed;
    if (seed !== undefined && !(await stat(seed).catch(() => undefined))?.isDirectory())
      throw new TypeError(`volume.seed is not a directory: ${path.resolve(seed)}`);
  } else {
    workspace = path.resolve(opts.workspace ?? "");
    const st = await stat(workspace).catch(() => undefined);
    if (!st?.isDirectory()) throw new TypeError(`workspace is not a directory: ${workspace}`);
    realWorkspace = await realpath(workspace);
  }
  const cli = await DockerCli.find(opts.docker);
  const engine = JSON.stringify([cli.env["DOCKER_HOST"], cli.env["DOCKER_CONTEXT"]]);
  let sweep = reaping.get(engine);
  if (sweep === undefined) {
    sweep = reapDeadHosts(cli).finally(() => reaping.delete(engine));
    reaping.set(engine, sweep);
  }
  await sweep.catch((err: unknown) => {
    throw new Error(`Docker Engine unavailable: ${errorMessage(err)}`);
  });
  return new DockerEnvironment(cli, opts, workspace, realWorkspace, filter);
}
