import { describe, expect, it } from "vitest";
import { FatalToolCallError, FunctionCallError, type ToolHandler } from "../../src/index.js";
import { ControlledHandler, fc, makeRuntime, Observer, text, waitFor } from "../support/harness.js";

describe("fatal errors", () => {
  it("end the turn: other calls are aborted with the fatal message, drain rejects once", async () => {
    const obs = new Observer();
    const slow = new ControlledHandler(obs, { honourSignal: true });
    const fatal: ToolHandler = {
      kind: "function",
      handle: async () => {
        throw FunctionCallError.fatal("disk on fire");
      },
    };
    const { runtime } = makeRuntime([
      { name: "slow", handler: slow, parallel: true },
      {
        name: "done",
        handler: { kind: "function", handle: async () => ({ kind: "function", body: "ok" }) },
        parallel: true,
      },
      { name: "fatal", handler: fatal, parallel: true },
    ]);
    runtime.submit(fc("ok", "done"));
    runtime.submit(fc("s", "slow"));
    await waitFor(() => obs.started.has("s"), "slow running");
    runtime.submit(fc("f", "fatal"));

    const err = await runtime.drain().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FatalToolCallError);
    const fatalErr = err as FatalToolCallError;
    expect(fatalErr.callId).toBe("f");
    expect(fatalErr.message).toBe("Fatal error: disk on fire");
    expect(fatalErr.outputs.map(text)).toEqual([
      "ok",
      expect.stringMatching(/^aborted after \d+\.\ds because the turn ended: Fatal error: disk on fire$/),
    ]);
    expect(await runtime.drain()).toEqual([]);
  });

  it("a payload the handler does not accept is fatal", async () => {
    const { runtime } = makeRuntime([
      {
        name: "fn",
        handler: { kind: "function", handle: async () => ({ kind: "function", body: "x" }) },
        parallel: true,
      },
    ]);
    runtime.submit({ type: "custom_tool_call", call_id: "c", name: "fn", input: "raw" });
    await expect(runtime.drain()).rejects.toMatchObject({
      name: "FatalToolCallError",
      callId: "c",
      message: "Fatal error: tool fn invoked with incompatible payload",
      outputs: [],
    });
  });

  it("handleToolCall rejects with FatalToolCallError for the fatal call", async () => {
    const fatal: ToolHandler = {
      kind: "function",
      handle: async () => {
        throw FunctionCallError.fatal("nope");
      },
    };
    const { runtime, router } = makeRuntime([{ name: "fatal", handler: fatal }]);
    await expect(runtime.handleToolCall(router.buildToolCall(fc("f", "fatal"))!)).rejects.toBeInstanceOf(
      FatalToolCallError,
    );
  });
});
