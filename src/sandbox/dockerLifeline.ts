import { releaseGroup, spawnGroup, type GroupChild } from "../process/index.js";
import type { DockerCli } from "./dockerCli.js";

/*
 * The owner's heartbeat as the engine sees it (DESIGN section 16, "Remote engines"): one
 * `docker exec --interactive` per container whose stdin is a pipe from this process. When the
 * process dies (SIGKILL included) or its machine or network goes, the exec's stdin reaches its end
 * and the shell inside stops the container's init, and `--rm` removes the container: an engine on
 * another machine needs no sweep by our pid, which it cannot judge. A clean close removes the
 * container first; the lifeline is released after.
 */
const LIFELINE = `read _ || :; kill -s TERM 1`;

export class Lifeline {
  private constructor(private readonly started: GroupChild) {}

  /** Attaches to the running `container` (as root, so it may signal its init whatever the image's user). */
  static async attach(cli: DockerCli, container: string): Promise<Lifeline> {
    const started = await spawnGroup(
      cli.binary,
      ["exec", "--interactive", "--user", "0", container, "sh", "-c", LIFELINE],
      { cwd: "/", env: cli.env, stdio: ["pipe", "ignore", "ignore"], forwardHostSignals: false },
    );
    started.child.stdin?.on("error", () => undefined);
    // It must never keep the host's event loop alive.
    started.child.unref();
    (started.child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return new Lifeline(started);
  }

  /** Has the exec ended (the container is going or gone)? */
  get ended(): boolean {
    return this.started.child.exitCode !== null || this.started.child.signalCode !== null;
  }

  /** Lets go without ending the container (it is removed by its owner). */
  release(): Promise<void> {
    return releaseGroup(this.started);
  }
}
