import { FunctionCallError, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import { emitEvent, type PlanStatus } from "../../turn/index.js";
import type { ToolHandler, ToolInvocation, ToolFactory } from "../../registry/index.js";

export const UPDATE_PLAN_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true, idempotentHint: true },
  name: "update_plan",
  description: `Updates the task plan.
Provide an optional explanation and a list of plan items, each with a step and status.
At most one step can be in_progress at a time.
`,
  strict: false,
  parameters: {
    type: "object",
    properties: {
      explanation: { type: "string" },
      plan: {
        type: "array",
        description: "The list of steps",
        items: {
          type: "object",
          properties: {
            step: { type: "string" },
            status: {
              type: "string",
              enum: ["pending", "in_progress", "completed"],
              description: "One of: pending, in_progress, completed",
            },
          },
          required: ["step", "status"],
          additionalProperties: false,
        },
      },
    },
    required: ["plan"],
    additionalProperties: false,
  },
};

interface UpdatePlanArgs {
  explanation?: string;
  plan: Array<{ step: string; status: PlanStatus }>;
}

/**
 * Codex `update_plan`: the plan is for the client (the `plan_update` event), the model only
 * learns it was recorded.
 */
export class UpdatePlanHandler implements ToolHandler {
  readonly kind = "function" as const;

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { explanation, plan } = inv.args as UpdatePlanArgs;
    const inProgress = plan.filter((item) => item.status === "in_progress").length;
    if (inProgress > 1) {
      throw FunctionCallError.respondToModel(
        `at most one step can be in_progress at a time, but ${inProgress} steps are in_progress`,
      );
    }
    emitEvent(inv.turn, {
      type: "plan_update",
      callId: inv.callId,
      toolName: inv.toolName,
      ...(explanation !== undefined ? { explanation } : {}),
      plan: plan.map(({ step, status }) => ({ step, status })),
    });
    return { kind: "function", body: "Plan updated", success: true };
  }
}

export interface UpdatePlanToolConfig {
  /** Default true. */
  updatePlan?: boolean;
}

export const updatePlanToolFactory: ToolFactory<UpdatePlanToolConfig> = (config) =>
  config.updatePlan === false
    ? []
    : [{ spec: UPDATE_PLAN_SPEC, handler: new UpdatePlanHandler(), supportsParallel: false }];
