import { findExecutable, identityDead, runProgram, spawnDetached, type ProcessIdentity } from "../process/index.js";
import { engineVariables, type DockerEngineOptions } from "./dockerEngine.js";

/** Labels every container of ours carries (DESIGN section 16). */
export const LABEL = {
  session: "toolcall.session",
  pid: "toolcall.pid",
  boot: "toolcall.boot",
  start: "toolcall.start",
} as const;

/** `word` as one `/bin/sh` word. */
const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** Long enough for a `docker run` that pulls its image; a hung engine still gets an answer. */
const DOCKER_TIMEOUT_MS = 120_000;

/** The `docker` CLI on this host, talking to one engine (the default, or the one `engine` names). */
export class DockerCli {
  private constructor(
    readonly binary: string,
    /** What the CLI itself needs of the host's environment: PATH, HOME and its DOCKER_* settings. */
    readonly env: Readonly<Record<string, string>>,
  ) {}

  /** Rejects with an Error naming what is missing: the CLI not on PATH, a TLS file. */
  static async find(engine: DockerEngineOptions = {}): Promise<DockerCli> {
    const binary = await findExecutable("docker", process.env["PATH"]);
    if (binary === null) throw new Error("the docker CLI is not on PATH (install docker.io or docker-ce-cli)");
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && (name === "PATH" || name === "HOME" || name.startsWith("DOCKER_"))) env[name] = value;
    }
    return new DockerCli(binary, engineVariables(engine, env));
  }

  /** Would the CLI read this variable itself? Then a command's value of it must not reach the CLI's environment. */
  ownsVariable(name: string): boolean {
    return name in this.env || name === "SHELL" || name.startsWith("DOCKER_");
  }

  /**
   * Runs `docker ARGS`; resolves with its stdout, rejects with an Error carrying its stderr and
   * `exitCode` (null after the timeout).
   */
  async run(args: readonly string[]): Promise<string> {
    const result = await runProgram(this.binary, args, { env: this.env, timeoutMs: DOCKER_TIMEOUT_MS });
    if (result.code === 0) return result.stdout;
    const why = result.timedOut ? `timed out after ${DOCKER_TIMEOUT_MS / 1000}s` : result.stderr.trim();
    const err = new Error(`docker ${args[0] ?? ""} failed: ${why || `exit code ${String(result.code)}`}`);
    throw Object.assign(err, { exitCode: result.code });
  }

  /** `docker rm -f` that outlives this process: for the host's exit. */
  removeDetached(container: string): void {
    spawnDetached(this.binary, ["rm", "-f", container], this.env);
  }

  /**
   * The same as a `/bin/sh` command line, for the watchdog to run should the host be SIGKILLed
   * (src/process/watchdog.ts): the CLI's own variables as assignments, then the CLI. Undefined
   * when some value cannot be one line.
   */
  removeCommand(container: string): string | undefined {
    const assignments = Object.entries(this.env).map(([name, value]) => `${name}=${shellQuote(value)}`);
    const words = [this.binary, "rm", "-f", container].map(shellQuote);
    const line = [...assignments, ...words].join(" ");
    return /[\n\r]/.test(line) ? undefined : line;
  }
}

/**
 * Removes the containers whose host process is dead (a host killed by SIGKILL ran no clean-up).
 * Only containers of this machine's current boot are judged: another host's live containers on a
 * shared engine are never touched. Resolves with how many it removed.
 */
export async function reapDeadHosts(cli: DockerCli): Promise<number> {
  const format = [
    "{{.ID}}",
    `{{.Label "${LABEL.pid}"}}`,
    `{{.Label "${LABEL.boot}"}}`,
    `{{.Label "${LABEL.start}"}}`,
  ].join("\t");
  const listing = await cli.run(["ps", "-a", "--filter", `label=${LABEL.pid}`, "--format", format]);
  const dead = listing
    .split("\n")
    .filter((line) => line !== "")
    .flatMap((line) => {
      const [id = "", pid = "", boot = "", start = ""] = line.split("\t");
      const host: ProcessIdentity = { pid: Number(pid), boot, start };
      return id !== "" && identityDead(host) ? [id] : [];
    });
  if (dead.length === 0) return 0;
  // Another environment starting now may be removing the same ones: "No such container" is fine.
  await cli.run(["rm", "-f", ...dead]).catch(() => undefined);
  return dead.length;
}
