import { Socket } from "node:net";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProcessGroupStdioTransport } from "../../src/mcp/stdioTransport.js";

/** A real child that answers every request line with its id, one line per answer. */
const ECHO_SERVER = `
let buf = "";
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf("\\n")) !== -1) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if ("id" in msg) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { n: msg.params.n } }) + "\\n");
  }
});
`;

const request = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, method: "tools/call", params: { n: id } });

let transport: ProcessGroupStdioTransport | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await transport?.close();
  transport = undefined;
});

/** A started transport, the answers it delivers (`answered(n)`: once n came) and every write to a socket. */
async function started() {
  const t = new ProcessGroupStdioTransport({ command: process.execPath, args: ["-e", ECHO_SERVER] });
  transport = t;
  const answers: JSONRPCMessage[] = [];
  let waiting: { n: number; done: () => void } | undefined;
  t.onmessage = (m) => {
    answers.push(m);
    if (waiting && answers.length >= waiting.n) waiting.done();
  };
  const answered = (n: number): Promise<void> =>
    new Promise((done) => {
      waiting = { n, done };
      if (answers.length >= n) done();
    });
  await t.start();
  const writes: string[] = [];
  const write = Reflect.get(Socket.prototype, "write") as (...a: unknown[]) => boolean;
  vi.spyOn(Socket.prototype, "write").mockImplementation(function (this: Socket, ...args: unknown[]) {
    writes.push(String(args[0]));
    return write.apply(this, args);
  });
  return { t, answers, answered, writes };
}

describe("ProcessGroupStdioTransport writes", () => {
  it("writes a lone message at once, and the rest of a synchronous run in one write", async () => {
    const { t, answers, answered, writes } = await started();
    const sent = [t.send(request(0))];
    // Written before send returned: a lone request waits for nothing.
    expect(writes).toHaveLength(1);
    for (let id = 1; id < 50; id++) sent.push(t.send(request(id)));
    expect(writes).toHaveLength(1);
    await Promise.all(sent);
    expect(writes).toHaveLength(2);
    expect(
      writes[1]
        ?.split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
    await answered(50);
    expect(answers.map((m) => (m as { id: number }).id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // The next run starts again with a write at once.
    void t.send(request(50));
    expect(writes).toHaveLength(3);
  });

  it("rejects a message that cannot be serialized instead of throwing", async () => {
    const { t } = await started();
    const bad = { jsonrpc: "2.0", id: 1, method: "x", params: { n: 1n } } as unknown as JSONRPCMessage;
    let thrown: unknown;
    let result: Promise<void> | undefined;
    try {
      result = t.send(bad);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeUndefined();
    await expect(result).rejects.toThrow(/BigInt/);
  });
});

describe("ProcessGroupStdioTransport start and close", () => {
  it("closed while it imports the SDK's stdio module, it launches nothing and says so", async () => {
    const t = new ProcessGroupStdioTransport({ command: process.execPath, args: ["-e", ECHO_SERVER] });
    transport = t;
    const start = t.start();
    await t.close();
    await expect(start).rejects.toThrow("MCP server closed before it started");
    expect(t.pid).toBeUndefined();
  });
});
