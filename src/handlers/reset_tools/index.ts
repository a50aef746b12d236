import { type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { ToolActivation, ToolFactory, ToolGroup, ToolHandler, ToolInvocation } from "../../registry/index.js";

/** `reset_tools`: one boolean per group, described by the group's description and tools. */
function resetToolsSpec(groups: Readonly<Record<string, ToolGroup>>): FunctionToolSpec {
  const properties = Object.fromEntries(
    Object.entries(groups).map(([name, g]) => [
      name,
      { type: "boolean", description: `${g.description ? `${g.description} ` : ""}Tools: ${g.tools.join(", ")}.` },
    ]),
  );
  return {
    type: "function",
    name: "reset_tools",
    description:
      "Chooses which tool groups are active. Only active groups' tools are offered and callable. Pass true for every group the task needs now and false for the others; the change applies from your next request.",
    strict: false,
    parameters: { type: "object", properties, additionalProperties: false },
  };
}

/** Sets the active groups and answers with the instructions of the groups now active. */
class ResetToolsHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly activation: ToolActivation) {}

  handle(inv: ToolInvocation): Promise<ToolOutput> {
    const wanted = inv.args as Record<string, boolean>;
    this.activation.setActive(wanted);
    const active = this.activation.activeGroups;
    const parts = [active.length === 0 ? "No tool group is active." : `Active tool groups: ${active.join(", ")}.`];
    for (const name of active) {
      const instructions = this.activation.groups[name]?.instructions;
      if (instructions) parts.push(`## ${name}\n${instructions}`);
    }
    return Promise.resolve({ kind: "function", body: parts.join("\n\n") });
  }
}

export interface ResetToolsConfig {
  /** Named bundles of tools; every group starts inactive; tools in no group are always on. */
  groups?: Record<string, ToolGroup>;
}

/** `reset_tools` when `ToolsConfig.groups` names any group. */
export const resetToolsFactory: ToolFactory<ResetToolsConfig> = (_config, ctx) =>
  ctx.activation && Object.keys(ctx.activation.groups).length > 0
    ? [
        {
          spec: resetToolsSpec(ctx.activation.groups),
          handler: new ResetToolsHandler(ctx.activation),
          supportsParallel: false,
        },
      ]
    : [];
