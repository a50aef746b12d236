import { describe, expect, it } from "vitest";
import { SidecarServer } from "../../src/subpaths/server.js";
import {
  createTurnContext,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolHandler,
  type ToolUsage,
} from "../../src/index.js";
import { waitFor } from "../support/harness.js";

type Message = Record<string, unknown> & { id?: unknown; method?: string };

/** A sidecar over a router with a `poll` tool (always "pending") and a `shell` tool, with quotas and a loop limit. */
function connect() {
  const handler: ToolHandler = {
    kind: "function",
    handle: async () => Promise.resolve({ kind: "function", body: "pending" }),
  };
  const builder = new ToolRegistryBuilder();
  for (const name of ["poll", "shell"]) {
    builder
      .pushSpec({
        type: "function",
        name,
        description: name,
        parameters: { type: "object", properties: { n: { type: "integer" } } },
      })
      .registerHandler(name, handler);
  }
  const { specs, registry } = builder.build();
  const router = new ToolRouter(registry, specs, undefined, { loopLimit: 2, quotas: { shell: { perTurn: 1 } } });
  const sent: Message[] = [];
  const server = new SidecarServer({
    open: () => Promise.resolve({ router, turn: createTurnContext(), close: () => Promise.resolve() }),
    send: (m) => sent.push(JSON.parse(m) as Message),
  });
  let id = 0;
  const result = async <T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> => {
    const mine = ++id;
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }));
    await waitFor(() => sent.some((m) => m.id === mine && m.method === undefined), `the reply to ${method}`);
    return (sent.find((m) => m.id === mine && m.method === undefined) as Message)["result"] as T;
  };
  return { result };
}

const call = (callId: string, name: string, args = "{}") => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: args,
});

describe("the sidecar: loops, quotas and session/usage (DESIGN section 18)", () => {
  it("answers a looping call and a call past its quota without running them, and reports usage across turns", async () => {
    const { result } = connect();
    await result("initialize");
    const turn = async (items: object[]): Promise<string[]> => {
      const { turnId } = await result<{ turnId: string }>("turn/start");
      for (const item of items) await result("turn/submit", { turnId, item });
      const { outputs } = await result<{ outputs: Array<{ output: string }> }>("turn/drain", { turnId });
      return outputs.map((o) => o.output);
    };
    expect(await turn([call("p1", "poll"), call("s1", "shell"), call("s2", "shell", "{n: 2}")])).toEqual([
      "pending",
      "pending",
      // Refused, and still told its arguments were repaired.
      "note: arguments were repaired: quoted unquoted keys\nquota exceeded: shell may run 1 times per turn",
    ]);
    // p1's streak was broken by s1; p2 and p3 make two in a row, so p4 is not run.
    expect(
      await turn([call("p2", "poll"), call("p3", "poll"), call("p4", "poll"), call("s3", "shell", '{"n": "3"}')]),
    ).toEqual([
      "pending",
      "pending",
      "this exact call ran 2 times with the same result; change the approach or the arguments",
      'note: arguments were repaired: read "3" as 3 for /n\npending',
    ]);
    const { tools } = await result<{ tools: Record<string, ToolUsage> }>("session/usage");
    expect(tools["poll"]).toMatchObject({ calls: 4, failures: 0, denials: 1, repairs: 0 });
    expect(tools["shell"]).toMatchObject({ calls: 3, failures: 0, denials: 1, repairs: 2 });
    expect(tools["poll"]?.bytes).toBe(
      3 * "pending".length +
        "this exact call ran 2 times with the same result; change the approach or the arguments".length,
    );
  });
});
