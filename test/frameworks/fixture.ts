/**
 * One turn for every framework adapter test: 10 calls over three steps (DESIGN section 13,
 * "Framework adapters"). Step 1 proves two shared calls overlap (a barrier only both can pass)
 * and an exclusive call runs alone and in call order; step 2 has an image, an approval and a
 * failing call; step 3 is aborted while its exclusive call runs (the call after it is queued).
 */
import {
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolHandler,
  type TurnContext,
} from "../../src/index.js";

export interface PlannedCall {
  callId: string;
  toolName: string;
  input: Record<string, unknown>;
}

export const STEPS: PlannedCall[][] = [
  [
    { callId: "a1", toolName: "read", input: { key: "pair" } },
    { callId: "a2", toolName: "read", input: { key: "pair" } },
    { callId: "w1", toolName: "write", input: { text: "one" } },
    { callId: "a3", toolName: "read", input: { key: "after" } },
  ],
  [
    { callId: "i1", toolName: "snap", input: {} },
    { callId: "d1", toolName: "deploy", input: { target: "prod" } },
    { callId: "f1", toolName: "fail", input: {} },
  ],
  [
    { callId: "a4", toolName: "read", input: { key: "last" } },
    { callId: "h1", toolName: "hang", input: {} },
    { callId: "a5", toolName: "read", input: { key: "queued" } },
  ],
];

/** 1x1 PNG. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

/** What the handlers saw: start/end order and the most calls running while an exclusive one ran. */
export class Observed {
  readonly log: string[] = [];
  active = 0;
  overlapWithExclusive = 0;
  private readonly waiting = new Map<string, Array<() => void>>();
  private hangStarted!: () => void;
  readonly hangRunning = new Promise<void>((resolve) => (this.hangStarted = resolve));
  private hangStopped!: () => void;
  /** Resolves when the hanging call's handler saw its abort signal. */
  readonly hangAborted = new Promise<void>((resolve) => (this.hangStopped = resolve));

  /** Resolves once `count` calls of `key` are inside it at once: only overlapping calls pass. */
  meet(key: string, count: number): Promise<void> {
    return new Promise((resolve) => {
      const list = this.waiting.get(key) ?? [];
      list.push(resolve);
      this.waiting.set(key, list);
      if (list.length >= count) for (const r of list) r();
    });
  }

  hang(signal: AbortSignal): Promise<never> {
    this.hangStarted();
    return new Promise((_, reject) => {
      signal.addEventListener("abort", () => {
        this.hangStopped();
        reject(new Error("aborted"));
      });
    });
  }
}

function handlers(seen: Observed): Record<string, ToolHandler> {
  const exclusive = (name: string, body: () => Promise<string>): ToolHandler => ({
    kind: "function",
    async handle() {
      seen.active++;
      seen.log.push(`${name}:start`);
      if (seen.active > 1) seen.overlapWithExclusive = seen.active;
      try {
        return { kind: "function", body: await body() };
      } finally {
        seen.active--;
        seen.log.push(`${name}:end`);
      }
    },
    abortedOutput: () => `${name} aborted`,
  });
  return {
    read: {
      kind: "function",
      async handle(inv) {
        const { key } = inv.args as { key: string };
        seen.active++;
        seen.log.push(`read ${key}:start`);
        if (key === "pair") await seen.meet(key, 2);
        seen.active--;
        seen.log.push(`read ${key}:end`);
        return { kind: "function", body: `read ${key}` };
      },
      abortedOutput: () => "read aborted",
    },
    write: exclusive("write", () => Promise.resolve("written")),
    deploy: exclusive("deploy", () => Promise.resolve("deployed to prod")),
    hang: {
      kind: "function",
      handle: (inv) => seen.hang(inv.signal),
      abortedOutput: () => "hang aborted",
    },
    snap: {
      kind: "function",
      handle: () =>
        Promise.resolve({
          kind: "function",
          body: [
            { type: "input_text", text: "a screenshot" },
            { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
          ],
        }),
    },
    fail: {
      kind: "function",
      handle: () => Promise.reject(new Error("disk full")),
    },
  };
}

const OBJECT = (properties: Record<string, unknown>) => ({
  type: "object" as const,
  properties,
  additionalProperties: false,
});

/** The router: `read` and `snap` shared, every other tool exclusive. */
export function makeRouter(seen: Observed): ToolRouter {
  const h = handlers(seen);
  const builder = new ToolRegistryBuilder();
  const spec = (name: string, parameters: ReturnType<typeof OBJECT>, parallel: boolean) =>
    builder
      .pushSpecWithParallelSupport({ type: "function", name, description: `the ${name} tool`, parameters }, parallel)
      .registerHandler(name, h[name]!);
  spec("read", OBJECT({ key: { type: "string" } }), true);
  spec("snap", OBJECT({}), true);
  spec("write", OBJECT({ text: { type: "string" } }), false);
  spec("deploy", OBJECT({ target: { type: "string" } }), false);
  spec("fail", OBJECT({}), false);
  spec("hang", OBJECT({}), false);
  const { specs, registry } = builder.build();
  return new ToolRouter(registry, specs);
}

/** Our policy: `deploy` asks, the rest is allowed. */
export function makeTurn(extra: Partial<TurnContext> = {}): TurnContext {
  return createTurnContext({
    cwd: process.cwd(),
    permissions: new PermissionEngine({ mode: "bypass", ask: ["deploy"] }),
    ...extra,
  });
}

/**
 * The same turn through `ToolCallRuntime` directly: each step submitted and drained, the
 * approval allowed, step 3 aborted once `hang` runs. Outputs by call id, as text.
 */
export async function directOutputs(): Promise<Map<string, string>> {
  const seen = new Observed();
  const router = makeRouter(seen);
  const out = new Map<string, string>();
  for (const [i, step] of STEPS.entries()) {
    const controller = new AbortController();
    const turn = makeTurn({
      permissions: new PermissionEngine({
        mode: "bypass",
        ask: ["deploy"],
        approve: () => Promise.resolve({ decision: "allow" }),
      }),
    });
    const runtime = new ToolCallRuntime(router, turn, { signal: controller.signal });
    for (const c of step) {
      runtime.submit({
        type: "function_call",
        call_id: c.callId,
        name: c.toolName,
        arguments: JSON.stringify(c.input),
      });
    }
    if (i === 2)
      void seen.hangRunning.then(() => {
        controller.abort();
      });
    for (const o of await runtime.drainOutcomes()) out.set(o.callId, textOf(o.item));
  }
  return out;
}

function textOf(item: { output?: unknown }): string {
  const output = item.output;
  if (typeof output === "string") return output;
  return (output as Array<{ type: string; text?: string }>)
    .filter((c) => c.type === "input_text")
    .map((c) => c.text)
    .join("\n");
}

export const ALL_CALLS = STEPS.flat();
