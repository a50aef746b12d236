import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { deadline } from "../../src/turn/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("deadline", () => {
  it("aborts with the parent, is not expired then, and leaves no listener after dispose", () => {
    const parent = new AbortController();
    const limit = deadline(parent.signal, 60_000);
    parent.abort("stop");
    expect(limit.signal.aborted).toBe(true);
    expect(limit.signal.reason).toBe("stop");
    expect(limit.expired).toBe(false);
    limit.dispose();
  });

  it("expires on time", async () => {
    const limit = deadline(new AbortController().signal, 5);
    await new Promise<void>((r) => {
      limit.signal.addEventListener(
        "abort",
        () => {
          r();
        },
        { once: true },
      );
    });
    expect(limit.expired).toBe(true);
    limit.dispose();
  });

  it("keeps the process alive, so an unanswered dynamic call still ends with its timeout output", async () => {
    // A script whose only pending work is a dynamic call nobody answers: with an unref'd timer
    // (AbortSignal.timeout) Node would exit before the call produced an output.
    const script = `
      import { createToolRouter, ToolCallRuntime, createTurnContext } from ${JSON.stringify(`${root}src/index.ts`)};
      const router = await createToolRouter({ dynamicToolTimeoutMs: 200 },
        { dynamicTools: [{ name: "ask", description: "d", inputSchema: { type: "object" } }] });
      const runtime = new ToolCallRuntime(router, createTurnContext());
      runtime.submit({ type: "function_call", call_id: "c1", name: "ask", arguments: "{}" });
      console.log(JSON.stringify(await runtime.drain()));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: root,
      },
    );
    expect(JSON.parse(stdout)).toEqual([
      { type: "function_call_output", call_id: "c1", output: "dynamic tool ask got no response within 0.2s" },
    ]);
  });
});
