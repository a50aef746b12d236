import {
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolCallRuntimeOptions,
  type ToolEvent,
  type ToolHandler,
  type ToolInvocation,
  type ToolOutput,
  type TurnContext,
} from "../../src/index.js";

/** Lets every pending microtask and I/O callback run (no wall-clock dependence). */
export async function flush(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Waits until `cond` holds, flushing between checks; fails loudly instead of hanging. */
export async function waitFor(cond: () => boolean, what: string, rounds = 2000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Records which calls are running, in which order they started and ended. */
export class Observer {
  readonly log: string[] = [];
  readonly active = new Set<string>();
  readonly started = new Set<string>();
  maxActive = 0;
  /** For each start: who else was running at that moment. */
  readonly overlapAtStart = new Map<string, string[]>();

  start(id: string): void {
    this.overlapAtStart.set(id, [...this.active]);
    this.active.add(id);
    this.started.add(id);
    this.maxActive = Math.max(this.maxActive, this.active.size);
    this.log.push(`start:${id}`);
  }

  end(id: string): void {
    this.active.delete(id);
    this.log.push(`end:${id}`);
  }
}

/**
 * A handler whose calls each wait for `release(callId)` (or their signal, when
 * `honourSignal`), recording start and end with the observer.
 */
export class ControlledHandler implements ToolHandler {
  readonly kind = "function" as const;
  private readonly gates = new Map<string, Deferred<string>>();
  readonly invocations = new Map<string, ToolInvocation>();

  constructor(
    readonly observer: Observer,
    private readonly opts: { mutating?: boolean; honourSignal?: boolean; partial?: string } = {},
  ) {}

  isMutating(): boolean {
    return this.opts.mutating === true;
  }

  private gate(id: string): Deferred<string> {
    let g = this.gates.get(id);
    if (!g) {
      g = deferred<string>();
      this.gates.set(id, g);
    }
    return g;
  }

  release(id: string, body = `done ${id}`): void {
    this.gate(id).resolve(body);
  }

  fail(id: string, err: unknown): void {
    this.gate(id).reject(err);
  }

  abortedOutput(_inv: ToolInvocation | undefined, elapsedMs: number): string | undefined {
    return this.opts.partial === undefined
      ? undefined
      : `partial after ${Math.round(elapsedMs)}ms: ${this.opts.partial}`;
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    this.invocations.set(inv.callId, inv);
    this.observer.start(inv.callId);
    try {
      const waits: Promise<string>[] = [this.gate(inv.callId).promise];
      if (this.opts.honourSignal) {
        waits.push(
          new Promise<string>((_, reject) => {
            inv.signal.addEventListener(
              "abort",
              () => {
                reject(new Error("handler saw abort"));
              },
              { once: true },
            );
          }),
        );
      }
      const body = await Promise.race(waits);
      return { kind: "function", body };
    } finally {
      this.observer.end(inv.callId);
    }
  }
}

const OBJECT_SCHEMA = { type: "object", properties: {}, additionalProperties: true };

export interface ToolDef {
  name: string;
  handler: ToolHandler;
  parallel?: boolean;
  parameters?: Record<string, unknown>;
}

export function makeRouter(tools: ToolDef[]): ToolRouter {
  const b = new ToolRegistryBuilder();
  for (const t of tools) {
    b.pushSpecWithParallelSupport(
      { type: "function", name: t.name, description: `test tool ${t.name}`, parameters: t.parameters ?? OBJECT_SCHEMA },
      t.parallel ?? false,
    );
    b.registerHandler(t.name, t.handler);
  }
  const { specs, registry } = b.build();
  return new ToolRouter(registry, specs);
}

export function makeRuntime(
  tools: ToolDef[],
  opts: {
    turn?: Partial<TurnContext>;
    maxConcurrency?: number;
    signal?: AbortSignal;
    onOutcome?: ToolCallRuntimeOptions<unknown>["onOutcome"];
  } = {},
): { runtime: ToolCallRuntime; events: ToolEvent[]; turn: TurnContext; router: ToolRouter } {
  const events: ToolEvent[] = [];
  const turn = createTurnContext({ onEvent: (e) => events.push(e), ...opts.turn });
  const router = makeRouter(tools);
  const runtimeOpts: ToolCallRuntimeOptions<unknown> = {};
  if (opts.onOutcome) runtimeOpts.onOutcome = opts.onOutcome;
  if (opts.maxConcurrency !== undefined) runtimeOpts.maxConcurrency = opts.maxConcurrency;
  if (opts.signal) runtimeOpts.signal = opts.signal;
  return { runtime: new ToolCallRuntime(router, turn, runtimeOpts), events, turn, router };
}

export const fc = (callId: string, name: string, args: unknown = "{}") => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: args,
});

/** Output text of a ResponseInputItem. */
export function text(item: { output: unknown }): string {
  return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
}
