import { randomBytes, randomUUID } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { onHostExit, ownIdentity, spawnGroup, watchCommand } from "../process/index.js";
import {
  FunctionCallError,
  type EnvironmentPolicy,
  type ExecEnvironment,
  type SpawnedProcess,
  type SpawnRequest,
} from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import { DockerCli, LABEL, reapDeadHosts } from "./dockerCli.js";
import { dockerProcess, WRAPPER } from "./dockerExec.js";
import { environmentFilter, validateEnvironmentPolicy } from "./envPolicy.js";
import { LocalEnvironment } from "./local.js";
import { ptyArgv } from "./pty.js";

export interface DockerEnvironmentOptions {
  /** The image every session's container runs (the user's; never built here). */
  image: string;
  /** A host directory, bound into the container at the same path: commands and file tools share it. */
  workspace: string;
  /**
   * Default false: `--network none`. True: the engine's default network; a string: that
   * network (`host`, a user-defined one).
   */
  network?: boolean | string;
  /**
   * Which of the host's variables pass into the container, over the image's own environment.
   * Default `{ inherit: "none" }`: the image's environment alone (the host's PATH or HOME mean
   * nothing inside).
   */
  env?: EnvironmentPolicy;
  /** `docker run --user`: e.g. "1000:1000", so files in the workspace belong to the host's user. */
  user?: string;
  /** The engine: `host` is a DOCKER_HOST value (`unix:///...`, `tcp://...`, `ssh://...`); default the CLI's own. */
  docker?: { host?: string };
}

const OPTION_KEYS = ["image", "workspace", "network", "env", "user", "docker"];

/** Throws a TypeError naming the first option that is not what the environment expects. */
function validate(opts: unknown): DockerEnvironmentOptions {
  if (typeof opts !== "object" || opts === null || Array.isArray(opts))
    throw new TypeError("options must be an object");
  const o = opts as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!OPTION_KEYS.includes(key)) throw new TypeError(`${key} is not a known option`);
  if (typeof o["image"] !== "string" || o["image"] === "" || o["image"].startsWith("-"))
    throw new TypeError("image must be an image name");
  if (typeof o["workspace"] !== "string" || o["workspace"] === "") throw new TypeError("workspace must be a directory");
  // `-v SOURCE:TARGET` splits on ":".
  if (o["workspace"].includes(":")) throw new TypeError(`workspace must not contain ":": ${o["workspace"]}`);
  const network = o["network"];
  if (network !== undefined && typeof network !== "boolean" && (typeof network !== "string" || network === ""))
    throw new TypeError("network must be a boolean or a network name");
  if (o["user"] !== undefined && (typeof o["user"] !== "string" || o["user"] === ""))
    throw new TypeError("user must be a non-empty string");
  const docker = o["docker"];
  if (docker !== undefined) {
    if (typeof docker !== "object" || docker === null || Array.isArray(docker))
      throw new TypeError("docker must be an object");
    for (const key of Object.keys(docker))
      if (key !== "host") throw new TypeError(`docker.${key} is not a known option`);
    const host = (docker as Record<string, unknown>)["host"];
    if (host !== undefined && (typeof host !== "string" || host === ""))
      throw new TypeError("docker.host must be a non-empty string");
  }
  return o as unknown as DockerEnvironmentOptions;
}

const isWithin = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

/**
 * Commands in a container of their own (DESIGN section 16): one container per environment,
 * started with the first command, the workspace bound at the same path; every command (shell
 * tools, exec sessions, hooks, ripgrep) runs in it with `docker exec`. Files stay on the bound
 * workspace, so the file tools work unchanged and may write and read the workspace only.
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
  private readonly hostChecks: LocalEnvironment;

  constructor(
    private readonly cli: DockerCli,
    private readonly opts: DockerEnvironmentOptions,
    /** The workspace as given (resolved), where the container sees it. */
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
    // The file tools' checks are the local ones, with the workspace as the only root.
    this.hostChecks = new LocalEnvironment(workspace, this.sandbox, [realWorkspace], [realWorkspace], environment);
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
      ...["--volume", `${this.workspace}:${this.workspace}`, "--workdir", this.workspace],
      ...["--entrypoint", "sh", this.opts.image],
      // Keeps the container up with the shell alone: stdin stays open while nobody writes to it.
      ...["-c", "read _ || while :; do sleep 3600; done"],
    ]);
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
        cwd: this.workspace,
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
    return this.hostChecks.checkWrite(paths, opts);
  }

  checkRead(p: string, opts?: { cwd?: string }): Promise<void> {
    return this.hostChecks.checkRead(p, opts);
  }

  /** Removes the container (its commands die with it); later commands are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.started?.catch(() => undefined);
    // Never asked to start: there is nothing to remove.
    if (this.removeAtExit === undefined) return;
    try {
      await this.cli.run(["rm", "--force", this.container]);
    } catch (err) {
      // A start that failed left none (older CLIs say so with an error).
      if (!/No such container/i.test(errorMessage(err))) throw err;
    } finally {
      this.removeAtExit();
      this.removeAtDeath?.();
    }
  }
}

/** The sweep under way per engine (DOCKER_HOST value; "" for the default). */
const reaping = new Map<string, Promise<unknown>>();

/**
 * A Docker environment (DESIGN section 16). Checks the options, the workspace and that the
 * engine answers, and removes the containers of host processes that died without cleaning up
 * (environments starting together share one sweep). The container itself starts with the first
 * command. Rejects with a TypeError for bad options, an Error when the engine is unreachable.
 */
export async function createDockerEnvironment(options: DockerEnvironmentOptions): Promise<DockerEnvironment> {
  const opts = validate(options);
  const workspace = path.resolve(opts.workspace);
  const st = await stat(workspace).catch(() => undefined);
  if (!st?.isDirectory()) throw new TypeError(`workspace is not a directory: ${workspace}`);
  const filter = environmentFilter(validateEnvironmentPolicy(opts.env ?? { inherit: "none" }));
  const cli = await DockerCli.find(opts.docker?.host);
  const engine = opts.docker?.host ?? "";
  let sweep = reaping.get(engine);
  if (sweep === undefined) {
    sweep = reapDeadHosts(cli).finally(() => reaping.delete(engine));
    reaping.set(engine, sweep);
  }
  await sweep.catch((err: unknown) => {
    throw new Error(`Docker Engine unavailable: ${errorMessage(err)}`);
  });
  return new DockerEnvironment(cli, opts, workspace, await realpath(workspace), filter);
}
