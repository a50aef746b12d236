import { errorMessage } from "../util/index.js";
import { createDockerEnvironment, type DockerEnvironment } from "./docker.js";
import type { DockerEnvironmentOptions } from "./dockerOptions.js";
import { validateEngineOptions, type DockerEngineOptions } from "./dockerEngine.js";

/*
 * Many sessions over many engines (DESIGN section 16, "Remote engines"): environments with
 * their workspace in a volume, handed out on the least loaded engine, never more than
 * `maxPerHost` containers of the pool on one engine (warm ones included), `warm` started
 * containers kept ready per engine. Each engine is swept of dead owners' containers when its
 * first environment is created (createDockerEnvironment); every container carries a lifeline to
 * this process (dockerLifeline.ts), so one whose owner died goes with it on any engine.
 */

export interface DockerPoolOptions {
  /** The engines: an address or context name (`DockerEngineOptions.host`), or engine options. */
  hosts: ReadonlyArray<string | DockerEngineOptions>;
  /** The most containers of this pool on one engine at once, warm ones included. */
  maxPerHost: number;
  /** Started containers kept ready per engine (default 0), within `maxPerHost`. */
  warm?: number;
  /** What every environment is; its workspace is always a volume (`volume.path` may be given). */
  environment: Omit<DockerEnvironmentOptions, "docker" | "workspace" | "volume"> & { volume?: { path?: string } };
}

export interface DockerPoolHostCount {
  /** The engine, as given. */
  host: string;
  /** Environments handed out and not yet closed. */
  active: number;
  /** Started containers waiting to be handed out. */
  warm: number;
}

interface Engine {
  label: string;
  options: DockerEngineOptions;
  /** Handed out or being created for a caller. */
  active: number;
  warm: DockerEnvironment[];
  /** Warm containers being started. */
  warming: number;
}

interface Waiter {
  resolve: (env: DockerEnvironment) => void;
  reject: (err: Error) => void;
  seed: string | undefined;
}

function positiveInteger(value: unknown, name: string, min: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min)
    throw new TypeError(`${name} must be an integer of at least ${min}`);
  return value;
}

export class DockerPool {
  private readonly engines: Engine[];
  private readonly maxPerHost: number;
  private readonly warm: number;
  private readonly waiting: Waiter[] = [];
  private closed = false;
  /** Warm containers being started, for close() to wait on. */
  private readonly warming = new Set<Promise<void>>();

  constructor(private readonly opts: DockerPoolOptions) {
    if (!Array.isArray(opts.hosts) || opts.hosts.length === 0)
      throw new TypeError("hosts must list at least one engine");
    this.maxPerHost = positiveInteger(opts.maxPerHost, "maxPerHost", 1);
    this.warm = Math.min(positiveInteger(opts.warm ?? 0, "warm", 0), this.maxPerHost);
    this.engines = opts.hosts.map((h, i) => {
      const options = validateEngineOptions(typeof h === "string" ? { host: h } : h, `hosts[${i}]`);
      return { label: options.host ?? "(default)", options, active: 0, warm: [], warming: 0 };
    });
    if (typeof opts.environment !== "object" || opts.environment === null)
      throw new TypeError("environment must be an object");
    for (const engine of this.engines) this.fillWarm(engine);
  }

  /** Per engine: environments handed out and warm containers ready. */
  counts(): DockerPoolHostCount[] {
    return this.engines.map((e) => ({ host: e.label, active: e.active, warm: e.warm.length }));
  }

  /**
   * An environment on the least loaded engine with room (a warm one when it has one), `seed`
   * copied into its workspace; waits while every engine is full. Close it to give its place back.
   */
  acquire(opts: { seed?: string } = {}): Promise<DockerEnvironment> {
    if (this.closed) return Promise.reject(new Error("the Docker pool is closed"));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, seed: opts.seed });
      this.dispatch();
    });
  }

  private load(e: Engine): number {
    return e.active + e.warm.length + e.warming;
  }

  /** Hands out places while there are waiters and room. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      // Least loaded by what callers hold; a warm container counts as room on its engine.
      const candidates = this.engines.filter((e) => e.warm.length > 0 || this.load(e) < this.maxPerHost);
      if (candidates.length === 0) return;
      const engine = candidates.reduce((a, b) => (b.active < a.active ? b : a));
      const waiter = this.waiting.shift() as Waiter;
      engine.active++;
      const warm = engine.warm.shift();
      void this.handOut(engine, warm, waiter);
    }
  }

  private async handOut(engine: Engine, warm: DockerEnvironment | undefined, waiter: Waiter): Promise<void> {
    let env: DockerEnvironment | undefined = warm;
    try {
      env ??= await this.create(engine);
      if (waiter.seed !== undefined) await env.seed(waiter.seed);
    } catch (err) {
      engine.active--;
      if (env !== undefined) await env.close().catch(() => undefined);
      waiter.reject(new Error(`Docker pool, engine ${engine.label}: ${errorMessage(err)}`));
      this.dispatch();
      return;
    }
    const handed = env;
    void handed.whenClosed.then(() => {
      engine.active--;
      this.fillWarm(engine);
      this.dispatch();
    });
    waiter.resolve(handed);
    this.fillWarm(engine);
  }

  private create(engine: Engine): Promise<DockerEnvironment> {
    const { volume, ...rest } = this.opts.environment;
    return createDockerEnvironment({ ...rest, volume: { ...volume }, docker: engine.options });
  }

  /** Starts warm containers up to `warm`, within the engine's room. */
  private fillWarm(engine: Engine): void {
    while (!this.closed && engine.warm.length + engine.warming < this.warm && this.load(engine) < this.maxPerHost) {
      engine.warming++;
      const starting = (async () => {
        let env: DockerEnvironment | undefined;
        try {
          env = await this.create(engine);
          await env.prepare();
        } catch {
          // An engine that cannot start one now: callers asking get the reason from their own
          // try (the room it held is free again for them).
          await env?.close().catch(() => undefined);
          engine.warming--;
          this.dispatch();
          return;
        }
        engine.warming--;
        if (this.closed) await env.close().catch(() => undefined);
        else {
          engine.warm.push(env);
          this.dispatch();
        }
      })();
      this.warming.add(starting);
      void starting.finally(() => this.warming.delete(starting));
    }
  }

  /** Refuses later `acquire`s (waiting ones are rejected) and removes the warm containers; handed-out ones stay their owners'. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new Error("the Docker pool is closed"));
    await Promise.all(this.warming);
    const warm = this.engines.flatMap((e) => e.warm.splice(0));
    await Promise.all(warm.map((env) => env.close()));
  }
}
