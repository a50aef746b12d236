import { describe, expect, it } from "vitest";
import { updatePlanToolFactory } from "../../../src/handlers/update_plan/handler.js";
import { functionCall, fromFactory, runtimeOf } from "../toolHarness.js";

const tools = fromFactory(updatePlanToolFactory);

async function plan(args: unknown) {
  const { runtime, events } = runtimeOf(tools);
  runtime.submit(functionCall("update_plan", args, "p1"));
  const [outcome] = await runtime.drainOutcomes();
  return { outcome: outcome!, events: events.filter((e) => e.type === "plan_update") };
}

describe("update_plan", () => {
  it("emits plan_update and answers `Plan updated`", async () => {
    const steps = [
      { step: "read the code", status: "completed" },
      { step: "write the fix", status: "in_progress" },
      { step: "run tests", status: "pending" },
    ];
    const { outcome, events } = await plan({ explanation: "halfway", plan: steps });
    expect(outcome.success).toBe(true);
    expect(outcome.item).toEqual({ type: "function_call_output", call_id: "p1", output: "Plan updated" });
    expect(events).toEqual([
      { type: "plan_update", callId: "p1", toolName: "update_plan", explanation: "halfway", plan: steps },
    ]);
  });

  it("allows at most one in_progress step", async () => {
    const { outcome, events } = await plan({
      plan: [
        { step: "a", status: "in_progress" },
        { step: "b", status: "in_progress" },
      ],
    });
    expect(outcome.success).toBe(false);
    expect(outcome.item).toMatchObject({
      output: "at most one step can be in_progress at a time, but 2 steps are in_progress",
    });
    expect(events).toEqual([]);
  });

  it("rejects an unknown status and a missing plan by the schema", async () => {
    const bad = await plan({ plan: [{ step: "a", status: "done" }] });
    expect(bad.outcome.item).toMatchObject({
      output: "invalid arguments for update_plan: /plan/0/status must be equal to one of the allowed values",
    });
    const missing = await plan({ explanation: "x" });
    expect(missing.outcome.item).toMatchObject({
      output: "invalid arguments for update_plan: / must have required property 'plan'",
    });
  });
});
